#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The scenario of test-sync-kernel.sh: a two-CPU Linux master from
time T0 (ns on the master's clock), as an EVENTS.json for
lttng-kernel.py, with known totals per CPU (see the test).
usage: kernel-events.py T0 > EVENTS.json"""
import json
import sys

t = int(sys.argv[1])


def sw(cpu, dt, pc, pt, st, nc, nt):
    return [cpu, t + dt, "sched_switch",
            {"prev_comm": pc, "prev_tid": pt, "prev_prio": 20,
             "prev_state": st, "next_comm": nc, "next_tid": nt,
             "next_prio": 20}]


ev = [
    sw(0, 0, "swapper/0", 0, 0, "master", 42),
    [0, t + 1000, "syscall_entry_read", {"fd": 3, "count": 64}],
    [0, t + 5000, "irq_handler_entry", {"irq": 27, "name": "arch_timer"}],
    [0, t + 6000, "irq_handler_exit", {"irq": 27, "ret": 1}],
    [0, t + 9000, "syscall_exit_read", {"ret": 64, "buf": 0x7fff0000}],
    sw(0, 10000, "master", 42, 1, "swapper/0", 0),
    [0, t + 12000, "syscall_entry_openat",
     {"dfd": -100, "filename": "/dev/mbox0", "flags": 2, "mode": 0}],
    [0, t + 13000, "syscall_exit_openat", {"ret": 3}],
    sw(0, 20000, "swapper/0", 0, 0, "master", 42),
    sw(1, 2000, "swapper/1", 0, 0, "worker", 43),
    [1, t + 3000, "softirq_raise", {"vec": 1}],
    [1, t + 3000, "softirq_entry", {"vec": 1}],
    [1, t + 4000, "softirq_exit", {"vec": 1}],
    sw(1, 8000, "worker", 43, 0, "swapper/1", 0),
    [1, t + 15000, "sched_waking",
     {"comm": "master", "tid": 42, "prio": 20, "target_cpu": 0}],
    [1, t + 15000, "sched_wakeup",
     {"comm": "master", "tid": 42, "prio": 20, "target_cpu": 0}],
    sw(1, 20000, "swapper/1", 0, 0, "worker", 43),
]
ev.sort(key=lambda e: (e[0], e[1]))
print(json.dumps(ev))
