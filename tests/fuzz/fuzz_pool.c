/* SPDX-License-Identifier: BSD-3-Clause
 * Fuzz the pool table (lib/plan uf_pool, docs/architecture.md#pools) across sizes: members
 * added, removed, taken down and brought back in random sequences.
 * Bytes 0-1: the first size (1..300 members, numbered 0..size-1, all up); then up to 8
 * operations of 2 bytes each: bits 7-6 of the first say which (0 add, 1 remove, 2 down,
 * 3 up), the remaining 14 bits a member number (add: a new member with that number, below
 * 1024; the others: the member at that position modulo the size), fewer on large pools:
 * each fill costs 65,536 x members weights, and an input stops once its fills have summed
 * MAX_WORK members (about 4 fills at 300 members, all 8 below 130), so libFuzzer keeps a
 * few runs a second under ASan.
 * Checked after each operation, bucket by bucket against the table before it: a bucket
 * that changed owner moved to the member added or brought up, or from the member removed
 * or taken down (the remap property, at every size); with any member up, every bucket and
 * every round-robin turn is a member that is up (a turn flagged as a failover exactly when
 * its own member is down, no bucket flagged with every member up); with none up, every
 * bucket is a member.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uf_config.h"
#include "uf_pool.h"

#define MAXM 300
#define MAX_OPS 8
#define MAX_NUMBER 1024
#define MAX_WORK 1200 /* members summed over an input's fills */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct members {
	uint16_t n;
	uint16_t dests[MAXM]; /* member numbers, unique */
	uint64_t ids[MAXM];
	bool up[MAXM];
};

static uint16_t tables[2][UF_POOL_BUCKETS];
static uint16_t rr[MAXM];

static uint64_t
id_of(uint16_t number)
{
	struct uf_cfg_dest d;

	memset(&d, 0, sizeof(d));
	d.ip = rte_cpu_to_be_32(0x0a000000u + number);
	d.udp_port = (uint16_t)(2055 + (number & 3));
	d.port = (uint16_t)(number >> 8 & 1);
	return uf_pool_member_id(&d);
}

static bool
has(const struct members *m, uint16_t number)
{
	for (uint16_t i = 0; i < m->n; i++)
		if (m->dests[i] == number)
			return true;
	return false;
}

static bool
is_up(const struct members *m, uint16_t number)
{
	for (uint16_t i = 0; i < m->n; i++)
		if (m->dests[i] == number)
			return m->up[i];
	return false;
}

/* the table and turns of m are what a pool of m must hold */
static void
check_table(const struct members *m, const uint16_t *table, uint16_t n_up)
{
	bool all_up = n_up == m->n;
	uint32_t b;
	uint16_t i;

	for (b = 0; b < UF_POOL_BUCKETS; b++) {
		uint16_t dest = table[b] & UF_POOL_DEST;

		if (!has(m, dest))
			abort(); /* not a member */
		if (n_up > 0 && !is_up(m, dest))
			abort(); /* a member down while some are up */
		if (all_up && (table[b] & UF_POOL_ALT))
			abort(); /* a failover with every member up */
	}
	for (i = 0; i < m->n && n_up > 0; i++) {
		if (!is_up(m, rr[i] & UF_POOL_DEST))
			abort();
		if (((rr[i] & UF_POOL_ALT) != 0) != !m->up[i])
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct members m;
	uint16_t n_up, cur = 0, i;
	size_t pos;
	int ops = 0, work;

	if (size < 2)
		return 0;
	memset(&m, 0, sizeof(m));
	m.n = (uint16_t)((data[0] << 8 | data[1]) % MAXM + 1);
	for (i = 0; i < m.n; i++) {
		m.dests[i] = i;
		m.ids[i] = id_of(i);
		m.up[i] = true;
	}
	n_up = uf_pool_fill(tables[cur], rr, m.n, m.ids, m.up, m.dests);
	if (n_up != m.n)
		abort();
	check_table(&m, tables[cur], n_up);
	work = m.n;
	for (pos = 2; pos + 1 < size && ops < MAX_OPS && work + m.n + 1 <= MAX_WORK;
	     pos += 2, ops++) {
		unsigned int op = data[pos] >> 6;
		uint16_t arg = (uint16_t)((data[pos] & 0x3f) << 8 | data[pos + 1]);
		uint16_t to = UINT16_MAX, from = UINT16_MAX, k, nxt = cur ^ 1;
		uint32_t b;

		if (op == 0) { /* add member number arg */
			arg %= MAX_NUMBER;
			if (m.n == MAXM || has(&m, arg))
				continue;
			m.dests[m.n] = arg;
			m.ids[m.n] = id_of(arg);
			m.up[m.n] = true;
			m.n++;
			to = arg;
		} else if (op == 1) { /* remove the member at position arg */
			if (m.n == 1)
				continue;
			k = arg % m.n;
			from = m.dests[k];
			memmove(&m.dests[k], &m.dests[k + 1], (m.n - k - 1) * sizeof(m.dests[0]));
			memmove(&m.ids[k], &m.ids[k + 1], (m.n - k - 1) * sizeof(m.ids[0]));
			memmove(&m.up[k], &m.up[k + 1], (m.n - k - 1) * sizeof(m.up[0]));
			m.n--;
		} else { /* down (2) or up (3) */
			k = arg % m.n;
			if (m.up[k] == (op == 3))
				continue;
			m.up[k] = op == 3;
			if (op == 3)
				to = m.dests[k];
			else
				from = m.dests[k];
		}
		n_up = uf_pool_fill(tables[nxt], rr, m.n, m.ids, m.up, m.dests);
		work += m.n;
		check_table(&m, tables[nxt], n_up);
		for (b = 0; b < UF_POOL_BUCKETS; b++) {
			uint16_t x = tables[cur][b] & UF_POOL_DEST,
				 y = tables[nxt][b] & UF_POOL_DEST;

			if (x != y && x != from && y != to)
				abort(); /* moved between members the change did not touch */
		}
		cur = nxt;
	}
	return 0;
}
