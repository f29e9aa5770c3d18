/* SPDX-License-Identifier: MIT */
/*
 * The states model's message matching (states-internal.h): two bounded
 * tables, sends waiting for their receive and receives waiting for
 * their send (in a synchronized trace a receive can come at the same
 * time as its send, or a little before it, within the synchronization's
 * error). A matched pair is a flow item; what finds no partner (evicted,
 * its id seen again, the end of the trace) is an anomaly.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "states-internal.h"

static size_t msg_hash(uint32_t core_id, uint64_t id)
{
	return (size_t)ht__states_mix64(id * 31 + core_id);
}

static int32_t *msg_find(struct pend *t, uint32_t core_id, uint64_t id)
{
	size_t mask = t->hash_cap - 1, i;

	for (i = msg_hash(core_id, id) & mask; t->hash[i] >= 0;
	     i = (i + 1) & mask) {
		const struct pending_msg *p = &t->ring[t->hash[i]];

		if (p->core_id == core_id && p->id == id) {
			return &t->hash[i];
		}
	}
	return NULL;
}

/* Linear probing deletion by backward shift: no tombstones. */
static void msg_unhash(struct pend *t, int32_t *slot)
{
	size_t mask = t->hash_cap - 1;
	size_t i = (size_t)(slot - t->hash), j = i, k;

	t->hash[i] = -1;
	for (;;) {
		const struct pending_msg *p;

		j = (j + 1) & mask;
		if (t->hash[j] < 0) {
			return;
		}
		p = &t->ring[t->hash[j]];
		k = msg_hash(p->core_id, p->id) & mask;
		/* move j to i when k is not cyclically in (i, j] */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j)) {
			continue;
		}
		t->hash[i] = t->hash[j];
		t->hash[j] = -1;
		i = j;
	}
}

static int pend_init(struct pend *t, size_t n)
{
	t->ring_cap = n;
	t->hash_cap = 1;
	while (t->hash_cap < 2 * n) {
		t->hash_cap *= 2;
	}
	t->ring = calloc(n, sizeof(*t->ring));
	t->hash = malloc(t->hash_cap * sizeof(*t->hash));
	if (!t->ring || !t->hash) {
		return HT_ENOMEM;
	}
	memset(t->hash, 0xff, t->hash_cap * sizeof(*t->hash));
	return 0;
}

static void pend_fini(struct pend *t)
{
	free(t->ring);
	free(t->hash);
}

void ht__states_msgs_fini(struct ht_states *st)
{
	pend_fini(&st->sends);
	pend_fini(&st->recvs);
}

int ht__states_msgs_init(struct ht_states *st)
{
	int ret = pend_init(&st->sends, st->opts.max_pending_msgs);

	return ret ? ret : pend_init(&st->recvs, st->opts.max_pending_msgs);
}

/* Reports a pending entry that found no partner. */
static int unmatched(struct ht_states *st, struct pend *t,
		     struct pending_msg *p, const char *why)
{
	if (t == &st->sends) {
		st->msgs.send_unmatched++;
		return ht__states_anomaly_at(
		    st, p->core, p->ns, p->path, p->offset,
		    "msg_send id %" PRIu64 " to no receive (%s)", p->id, why);
	}
	st->msgs.recv_unmatched++;
	return ht__states_anomaly_at(st, p->core, p->ns, p->path, p->offset,
				     "msg_recv id %" PRIu64
				     " from core %" PRIu32
				     " without its msg_send (%s)",
				     p->id, p->core_id, why);
}

/* Drops the oldest ring slots that are no longer pending. */
static void ring_trim(struct pend *t)
{
	while (t->ring_len && !t->ring[t->ring_head].live) {
		t->ring_head = (t->ring_head + 1) % t->ring_cap;
		t->ring_len--;
	}
}

int ht__states_pend_add(struct ht_states *st, struct pend *t, struct core *c,
			uint32_t key_core, uint64_t id, int64_t ns,
			const struct ht_ctf_msg *msg)
{
	int32_t *slot = msg_find(t, key_core, id);
	struct pending_msg *p;
	size_t pos, mask, i;
	int ret;

	if (slot) {
		/* the same (sender, id) again: the older one is lost */
		p = &t->ring[*slot];
		p->live = false;
		ret = unmatched(st, t, p, "its id came again");
		msg_unhash(t, slot);
		if (ret) {
			return ret;
		}
	}
	ring_trim(t);
	if (t->ring_len == t->ring_cap) {
		p = &t->ring[t->ring_head];
		if (t == &st->sends) {
			st->msgs.send_evicted++;
		}
		ret = unmatched(st, t, p, "evicted from the pending table");
		msg_unhash(t, msg_find(t, p->core_id, p->id));
		p->live = false;
		t->ring_head = (t->ring_head + 1) % t->ring_cap;
		t->ring_len--;
		if (ret) {
			return ret;
		}
	}
	pos = (t->ring_head + t->ring_len) % t->ring_cap;
	t->ring_len++;
	p = &t->ring[pos];
	p->live = true;
	p->core_id = key_core;
	p->id = id;
	p->ns = ns;
	p->core = c;
	p->path = msg->stream ? msg->stream->path : NULL;
	p->offset = msg->event ? msg->event->offset_bits / 8 : 0;
	mask = t->hash_cap - 1;
	for (i = msg_hash(key_core, id) & mask; t->hash[i] >= 0;
	     i = (i + 1) & mask) {
	}
	t->hash[i] = (int32_t)pos;
	return 0;
}

struct pending_msg *ht__states_pend_take(struct pend *t, uint32_t key_core,
					 uint64_t id)
{
	int32_t *slot = msg_find(t, key_core, id);
	struct pending_msg *p;

	if (!slot) {
		return NULL;
	}
	p = &t->ring[*slot];
	p->live = false;
	msg_unhash(t, slot);
	ring_trim(t);
	return p;
}

/* Reports what is left in @t at the end. */
static int pend_drain(struct ht_states *st, struct pend *t)
{
	int ret;

	while (t->ring_len) {
		struct pending_msg *p = &t->ring[t->ring_head];

		if (p->live) {
			p->live = false;
			ret = unmatched(st, t, p, "end of trace");
			if (ret) {
				return ret;
			}
		}
		t->ring_head = (t->ring_head + 1) % t->ring_cap;
		t->ring_len--;
	}
	return 0;
}

int ht__states_msgs_drain(struct ht_states *st)
{
	int ret = pend_drain(st, &st->sends);

	return ret ? ret : pend_drain(st, &st->recvs);
}
