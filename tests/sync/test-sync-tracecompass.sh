#!/usr/bin/env bash
# What Trace Compass reads from a synchronized trace (docs/ctf-layout.md):
# every packet's context has `cpu_id` (its CPU column) equal to
# `core_id`, the env has `hostname` and `domain` = "hetrace" (opened as a
# generic CTF trace); babeltrace2 decodes it. The capture is made by the
# test (mkcapture.py: three cores of three byte orders and clocks).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

python3 "$here/mkcapture.py" "$w/cap" "$w/truth.json" || exit 1
timeout 60 "$HETRACE" sync "$w/cap" -o "$w/out" >/dev/null 2>"$w/err" || bad "sync failed: $(cat "$w/err")"
timeout 60 babeltrace2 -c src.ctf.fs --params "inputs=[\"$w/out\"]" \
	-c sink.text.details --params 'with-metadata=no' >"$w/details" 2>"$w/bt.err" ||
	bad "babeltrace2 failed: $(head -3 "$w/bt.err")"
python3 - "$w/details" "$w/out/metadata" <<'PY' || bad "packet contexts or env"
import re, sys
text = open(sys.argv[1]).read()
ctx = re.findall(r'Packet beginning:\n  Context:\n((?:    \S+: .*\n)+)', text)
assert ctx, 'no packet'
cores = set()
for c in ctx:
    f = dict(re.findall(r'    (\S+): (\S+)', c))
    assert 'cpu_id' in f and f['cpu_id'] == f.get('core_id'), f
    cores.add(f['core_id'])
assert len(cores) == 3, cores
meta = open(sys.argv[2]).read()
env = meta[meta.index('env {'):]
env = env[:env.index('};')]
assert re.search(r'\n\thostname = "[^"]+";', env), env
assert '\n\tdomain = "hetrace";' in env, env
print('%d packets, cores %s: cpu_id == core_id; hostname and domain set' % (len(ctx), sorted(cores)))
PY
exit $fail
