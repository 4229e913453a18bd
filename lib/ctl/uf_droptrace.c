/* SPDX-License-Identifier: BSD-3-Clause
 * The drop trace's control side (docs/loss-accounting.md#drop-trace): /udpfan/droptrace,N
 * arms the workers; each control pass writes what they handed over to a pcapng file, one
 * interface per port, each frame's drop reason in its comment. The workers only copy and
 * enqueue (uf_dtrace_take); the file is the control lcore's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "uf_app.h"

#define DT_POOL 1023 /* copies in flight at most */
#define DT_RING 1024
#define DT_DIR "/run/udpfan"

static void
put(struct uf_dtrace *t, const void *p, size_t n)
{
	if (t->f != NULL && fwrite(p, 1, n, t->f) != n)
		t->werr = true;
}

static void
put32(struct uf_dtrace *t, uint32_t v)
{
	put(t, &v, 4);
}

/* one pcapng option: code, length, the value padded to 4 */
static void
opt(struct uf_dtrace *t, uint16_t code, const void *v, uint16_t len)
{
	static const uint8_t zero[4];
	uint16_t h[2] = { code, len };

	put(t, h, 4);
	put(t, v, len);
	put(t, zero, (4 - len % 4) % 4);
}

static uint32_t
opt_len(size_t len)
{
	return 4 + (uint32_t)((len + 3) & ~(size_t)3);
}

/* the section header, then one Ethernet interface per port (its name; nanoseconds) */
static void
write_header(struct uf_app *app)
{
	struct uf_dtrace *t = &app->dt;
	const char *appl = "udpfan";
	const uint8_t tsresol = 9;
	uint32_t len;
	int i;

	len = 28 + opt_len(strlen(appl)) + 4;
	put32(t, 0x0A0D0D0A);
	put32(t, len);
	put32(t, 0x1A2B3C4D);
	put32(t, 0x00000001); /* version 1.0 */
	put32(t, 0xFFFFFFFF);
	put32(t, 0xFFFFFFFF);                    /* section length: not given */
	opt(t, 4, appl, (uint16_t)strlen(appl)); /* shb_userappl */
	put32(t, 0);
	put32(t, len);
	for (i = 0; i < app->cfg->n_ports; i++) {
		const char *name = app->cfg->ports[i].name;

		len = 16 + opt_len(strlen(name)) + opt_len(1) + 4 + 4;
		put32(t, 1);
		put32(t, len);
		put32(t, 1);                             /* LINKTYPE_ETHERNET, reserved 0 */
		put32(t, 0);                             /* snaplen: none */
		opt(t, 2, name, (uint16_t)strlen(name)); /* if_name */
		opt(t, 9, &tsresol, 1);                  /* if_tsresol: 10^-9 */
		put32(t, 0);
		put32(t, len);
	}
}

/* the port index a trace copy came in on (the fan-out's drops: the device's first port) */
static uint32_t
port_of(const struct uf_app *app, const struct rte_mbuf *c, const struct uf_dtrace_meta *m)
{
	int i;

	if (m->pi < app->cfg->n_ports)
		return m->pi;
	for (i = 0; i < app->cfg->n_ports; i++)
		if (app->ports[i].port_id == c->port)
			return (uint32_t)i;
	return 0;
}

/* one Enhanced Packet Block: the frame, its drop reason as the comment, inbound */
static void
write_frame(struct uf_app *app, const struct rte_mbuf *c)
{
	struct uf_dtrace *t = &app->dt;
	const struct uf_dtrace_meta *m = rte_mbuf_to_priv((struct rte_mbuf *)(uintptr_t)c);
	const uint32_t cap = rte_pktmbuf_data_len(c), pad = (4 - cap % 4) % 4, inbound = 1;
	const uint32_t pi = port_of(app, c, m);
	uint64_t ns;
	char comment[96];
	uint32_t len;
	int cl;

	ns = t->ns0 + (uint64_t)((double)(m->tsc - t->tsc0) * 1e9 / (double)rte_get_tsc_hz());
	cl = snprintf(comment, sizeof(comment), "udpfan drop: %s (port %s)",
		      m->why < UF_DROP_MAX ? uf_drop_names[m->why] : "?", app->cfg->ports[pi].name);
	len = 28 + cap + pad + opt_len((size_t)cl) + opt_len(4) + 4 + 4;
	put32(t, 6);
	put32(t, len);
	put32(t, pi);
	put32(t, (uint32_t)(ns >> 32));
	put32(t, (uint32_t)ns);
	put32(t, cap);
	put32(t, m->orig_len);
	put(t, rte_pktmbuf_mtod(c, const void *), cap);
	put(t, "\0\0\0", pad);
	opt(t, 1, comment, (uint16_t)cl); /* opt_comment */
	opt(t, 2, &inbound, 4);           /* epb_flags: inbound */
	put32(t, 0);
	put32(t, len);
	t->written++;
}

static uint64_t
missed_now(const struct uf_app *app)
{
	uint64_t n = 0;
	uint16_t k;

	for (k = 0; k < app->n_workers; k++)
		n += __atomic_load_n(&app->w[k]->dtrace_missed, __ATOMIC_RELAXED);
	return n;
}

static void
publish(struct uf_app *app)
{
	struct uf_dtrace *t = &app->dt;

	pthread_mutex_lock(&t->lock);
	t->pub.armed = t->state != UF_DTRACE_IDLE ||
		       __atomic_load_n(&t->req, __ATOMIC_ACQUIRE) != 0;
	snprintf(t->pub.path, sizeof(t->pub.path), "%s", t->path);
	t->pub.want = t->want;
	t->pub.written = t->written;
	t->pub.missed = missed_now(app);
	pthread_mutex_unlock(&t->lock);
}

/* the pool and the ring, at the first trace */
static int
make(struct uf_app *app)
{
	char name[RTE_RING_NAMESIZE];

	if (app->sh.dtrace_pool == NULL) {
		snprintf(name, sizeof(name), "uf_dtp_%d", (int)getpid() % 100000);
		app->sh.dtrace_pool = rte_pktmbuf_pool_create(
				name, DT_POOL, 0, (uint16_t)sizeof(struct uf_dtrace_meta),
				RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	}
	if (app->sh.dtrace_ring == NULL)
		app->sh.dtrace_ring = rte_ring_create("uf_dtrace", DT_RING, (int)rte_socket_id(),
						      RING_F_SC_DEQ);
	return app->sh.dtrace_pool != NULL && app->sh.dtrace_ring != NULL ? 0 : -ENOMEM;
}

static void
arm(struct uf_app *app, uint8_t on)
{
	uint16_t k;

	for (k = 0; k < app->n_workers; k++)
		__atomic_store_n(&app->w[k]->dtrace_armed, on, __ATOMIC_RELEASE);
}

static void
start(struct uf_app *app, uint32_t n)
{
	struct uf_dtrace *t = &app->dt;
	struct timespec ts;

	if (make(app) != 0) {
		UF_LOG(WARNING, "drop trace: no memory for its pool and ring: %s",
		       rte_strerror(rte_errno));
		return;
	}
	(void)mkdir(DT_DIR, 0750);
	t->f = fopen(t->path, "w");
	if (t->f == NULL) {
		UF_LOG(WARNING, "drop trace: cannot write %s: %s", t->path, strerror(errno));
		return;
	}
	t->werr = false;
	t->want = n;
	t->written = 0;
	t->missed0 = missed_now(app);
	clock_gettime(CLOCK_REALTIME, &ts);
	t->tsc0 = rte_rdtsc();
	t->ns0 = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	write_header(app);
	__atomic_store_n(&app->sh.dtrace_left, n, __ATOMIC_RELEASE);
	arm(app, 1);
	t->state = UF_DTRACE_ARMED;
	UF_LOG(NOTICE, "drop trace: the next %u dropped frames to %s", n, t->path);
}

static void
drain(struct uf_app *app)
{
	struct rte_mbuf *c[32];
	unsigned int n, i;

	if (app->sh.dtrace_ring == NULL)
		return;
	while ((n = rte_ring_sc_dequeue_burst(app->sh.dtrace_ring, (void **)c, RTE_DIM(c), NULL)) >
	       0) {
		for (i = 0; i < n; i++) {
			if (app->dt.f != NULL)
				write_frame(app, c[i]);
			rte_pktmbuf_free(c[i]);
		}
		/* readable as it grows (tshark on a trace still armed) */
		if (app->dt.f != NULL && fflush(app->dt.f) != 0)
			app->dt.werr = true;
	}
}

static void
finish(struct uf_app *app)
{
	struct uf_dtrace *t = &app->dt;

	drain(app);
	if (t->f != NULL && fclose(t->f) != 0)
		t->werr = true;
	t->f = NULL;
	t->state = UF_DTRACE_IDLE;
	UF_LOG(NOTICE, "drop trace: %" PRIu64 " frames written to %s, %" PRIu64 " missed%s",
	       t->written, t->path, missed_now(app) - t->missed0,
	       t->werr ? " (a write failed)" : "");
}

void
uf_app_dtrace_init(struct uf_app *app)
{
	pthread_mutex_init(&app->dt.lock, NULL);
	snprintf(app->dt.path, sizeof(app->dt.path), DT_DIR "/droptrace-%s.pcapng",
		 app->cfg->eal.file_prefix);
}

void
uf_app_dtrace_tick(struct uf_app *app)
{
	struct uf_dtrace *t = &app->dt;
	uint32_t req;

	req = __atomic_exchange_n(&t->req, 0, __ATOMIC_ACQ_REL);
	if (req != 0 && t->state == UF_DTRACE_IDLE)
		start(app, req);
	if (t->state == UF_DTRACE_IDLE)
		goto out;
	drain(app);
	if (t->state == UF_DTRACE_ARMED &&
	    __atomic_load_n(&app->sh.dtrace_left, __ATOMIC_ACQUIRE) == 0) {
		/* every frame taken: disarm, and once every worker has finished the pass it was
		 * in (an RCU grace period) nothing more comes */
		arm(app, 0);
		t->token = rte_rcu_qsbr_start(app->sh.qsbr);
		t->state = UF_DTRACE_CLOSING;
	}
	if (t->state == UF_DTRACE_CLOSING && rte_rcu_qsbr_check(app->sh.qsbr, t->token, false))
		finish(app);
out:
	publish(app);
}

bool
uf_app_dtrace_busy(const struct uf_app *app)
{
	return app->dt.state != UF_DTRACE_IDLE ||
	       __atomic_load_n(&app->dt.req, __ATOMIC_RELAXED) != 0;
}

void
uf_app_dtrace_stop(struct uf_app *app)
{
	if (app->dt.state != UF_DTRACE_IDLE) {
		arm(app, 0);
		finish(app);
		publish(app);
	}
	drain(app);
}

void
uf_app_dtrace_fini(struct uf_app *app)
{
	rte_ring_free(app->sh.dtrace_ring);
	app->sh.dtrace_ring = NULL;
	rte_mempool_free(app->sh.dtrace_pool);
	app->sh.dtrace_pool = NULL;
}

int
uf_app_dtrace_request(struct uf_app *app, uint32_t n, struct uf_tel_dtrace *out)
{
	struct uf_dtrace *t = &app->dt;
	int ret = 0;

	pthread_mutex_lock(&t->lock);
	if (n != 0) {
		uint32_t zero = 0;

		if (t->pub.armed ||
		    !__atomic_compare_exchange_n(&t->req, &zero, n, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			ret = -EBUSY;
		else
			t->pub.armed = true; /* until the control lcore publishes */
	}
	*out = t->pub;
	if (n != 0 && ret == 0) {
		snprintf(out->path, sizeof(out->path), "%s", t->path);
		out->want = n;
		out->written = 0;
	}
	pthread_mutex_unlock(&t->lock);
	if (ret == 0 && n != 0)
		uf_shared_wake_ctl(&app->sh);
	return ret;
}
