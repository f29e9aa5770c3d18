/* SPDX-License-Identifier: MIT */
/*
 * The sync handshake's slave side (include/hetrace/sync-slave.h states who
 * writes which word of the mailbox and the order of the events).
 */
#include <stddef.h>
#include <string.h>

#include "hetrace/sync-slave.h"

void ht_sync_slave_mbox_init(struct ht_sync_slave_mbox *m, uint32_t slave_id)
{
	m->magic = 0u;
	HT_MEMORY_BARRIER();
	memset((uint8_t *)m + sizeof(m->magic), 0,
	       sizeof(*m) - sizeof(m->magic));
	m->version = HT_SYNC_SLAVE_VERSION;
	m->size = (uint32_t)sizeof(*m);
	m->slave_id = slave_id;
	m->req = HT_SYNC_SLAVE_IDLE;
	/* HT_SYNC_SLAVE_IDLE + 1 == 0: no request is answered yet. */
	m->ack = 0u;
	/* Every field above before the magic that validates them. */
	HT_MEMORY_BARRIER();
	m->magic = HT_SYNC_SLAVE_MAGIC;
}

int ht_sync_slave_mbox_is_valid(const struct ht_sync_slave_mbox *m)
{
	return m->magic == HT_SYNC_SLAVE_MAGIC &&
	       m->version == HT_SYNC_SLAVE_VERSION &&
	       m->size >=
		   (uint32_t)offsetof(struct ht_sync_slave_mbox, reserved2);
}

int ht_sync_slave_handle(struct ht_sync_slave_mbox *m,
			 const struct ht_sync_slave_ops *ops)
{
	uint32_t n = m->req;

	if (n == HT_SYNC_SLAVE_IDLE || m->ack == n + 1u) {
		return 0;
	}
	/* The request's value is read before the events that answer it. */
	HT_MEMORY_BARRIER();
	ops->trace_ack(ops->arg, n);
	ops->trace_notify(ops->arg, n + 1u);
	/*
	 * The sync_notify record, and the clock read that stamped it, come
	 * before the ACK store: the master, which stamps sync_recv after it
	 * sees the ACK, can never stamp it before sync_notify.
	 */
	HT_MEMORY_BARRIER();
	m->ack = n + 1u;
	m->answers = m->answers + 1u;
	return 1;
}
