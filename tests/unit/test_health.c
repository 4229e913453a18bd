/* SPDX-License-Identifier: BSD-3-Clause
 * What udpfan says about its own health: the loss summary of the stats line and the ledger
 * (uf_stats_losses, uf_stats_summary) on hand-made snapshots, the kernel interface's
 * link (operstate/carrier) on a fake sysfs, and the instance's state and degraded rule
 * (uf_health_eval, docs/deployment.md#health-and-drain).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uf_health.h"
#include "uf_stats.h"
#include "uf_xsk.h"
#include "uf_test.h"

/* a snapshot whose identities hold: 1000 datagrams to 3 destinations, all sent */
static void
clean_snap(struct uf_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->tot.rx = 1010;
	s->tot.forwarded = 1000;
	s->tot.control = 4;
	s->tot.drop[UF_DROP_NOT_FOR_US] = 6; /* filtering, not loss */
	s->tot.fanout = 3000;
	s->tot.copies_attempted = 3000;
	s->tot.tx_ok = 3000;
	s->n_ports = 2;
	snprintf(s->ports[0].name, sizeof(s->ports[0].name), "wan");
	snprintf(s->ports[1].name, sizeof(s->ports[1].name), "lan");
	s->ports[0].link_up = s->ports[1].link_up = true;
}

static void
test_summary_ok(void)
{
	struct uf_snap s;
	struct uf_loss l[8];
	char buf[1024];

	clean_snap(&s);
	CHECK_EQ(uf_stats_losses(&s, l, 8), 0);
	CHECK(uf_stats_summary(&s, buf, sizeof(buf)), "nothing lost: OK");
	CHECK_HAS(buf, "OK: ");
	/* filtering by design is not loss */
	s.tot.drop[UF_DROP_NOT_IPV4] = 5;
	s.tot.drop[UF_DROP_MALFORMED] = 1;
	s.tot.rx += 6;
	CHECK(uf_stats_summary(&s, buf, sizeof(buf)), "filtered frames are not lost: %s", buf);
	/* a gauge-like or event xstat is not loss; a basic stat under its xstat name is
	 * counted once (as the basic stat) */
	s.ports[1].n_xstats = 2;
	s.ports[1].xnames[0] = "wd_expired";
	s.ports[1].xvals[0] = 3;
	s.ports[1].xnames[1] = "rx_missed_errors";
	s.ports[1].xvals[1] = 9;
	s.ports[1].xvalid[0] = s.ports[1].xvalid[1] = true;
	CHECK(uf_stats_summary(&s, buf, sizeof(buf)), "%s", buf);
	/* a loss xstat whose reading is implausible (reported as null) is not counted */
	s.ports[1].n_xstats = 1;
	s.ports[1].xnames[0] = "pps_allowance_exceeded";
	s.ports[1].xvals[0] = 123456789;
	s.ports[1].xvalid[0] = false;
	CHECK(uf_stats_summary(&s, buf, sizeof(buf)), "a null reading is no loss: %s", buf);
	s.ports[1].xvalid[0] = true;
	CHECK(!uf_stats_summary(&s, buf, sizeof(buf)), "a valid one is");
	CHECK_HAS(buf, "lan xstats.pps_allowance_exceeded 123,456,789");
}

/* each place a loss can show, alone: never OK, and the summary names where and what */
static void
test_summary_each_loss(void)
{
	static const struct {
		const char *where, *what;
	} want[] = {
		{ "lan", "xsk.rx_ring_full" },
		{ "lan", "xsk.fill_ring_empty" },
		{ "wan", "pkt_socket.drops" },
		{ "wan", "imissed" },
		{ "wan", "ierrors" },
		{ "wan", "rx_nombuf" },
		{ "lan", "oerrors" },
		{ "lan", "xstats.rx_out_of_buffer" },
		{ "udpfan", "tx_drop.ring_full" },
		{ "udpfan", "tx_drop.link_down" },
		{ "udpfan", "drop.nombuf" },
		{ "udpfan", "ctl_tx_drop" },
	};
	unsigned int k;

	for (k = 0; k < RTE_DIM(want); k++) {
		struct uf_snap s;
		struct uf_loss l[8];
		char buf[1024], exp[128];
		int n;

		clean_snap(&s);
		switch (k) {
		case 0:
			s.ports[1].has_xsk = true;
			s.ports[1].xsk.rx_ring_full = 1580000;
			break;
		case 1:
			s.ports[1].has_xsk = true;
			s.ports[1].xsk.fill_ring_empty = 7;
			break;
		case 2:
			s.ports[0].has_pktsock = true;
			s.ports[0].pktsock_drops = 2780000;
			break;
		case 3:
			s.ports[0].st.imissed = 5;
			break;
		case 4:
			s.ports[0].st.ierrors = 5;
			break;
		case 5:
			s.ports[0].st.rx_nombuf = 5;
			break;
		case 6:
			s.ports[1].st.oerrors = 5;
			break;
		case 7:
			s.ports[1].n_xstats = 1;
			s.ports[1].xnames[0] = "rx_out_of_buffer";
			s.ports[1].xvals[0] = 5;
			s.ports[1].xvalid[0] = true;
			break;
		case 8:
			s.tot.tx_ok -= 5;
			s.tot.tx_drop[UF_TXDROP_RING_FULL] = 5;
			break;
		case 9:
			s.tot.tx_ok -= 5;
			s.tot.tx_drop[UF_TXDROP_LINK_DOWN] = 5;
			break;
		case 10:
			s.tot.forwarded -= 5;
			s.tot.fanout -= 15;
			s.tot.copies_attempted -= 15;
			s.tot.tx_ok -= 15;
			s.tot.drop[UF_DROP_NOMBUF] = 5;
			break;
		case 11:
			s.tot.ctl_tx_drop = 5;
			break;
		}
		n = uf_stats_losses(&s, l, 8);
		CHECK_EQ(n, 1);
		if (n == 1) {
			CHECK_STR(l[0].where, want[k].where);
			CHECK_STR(l[0].what, want[k].what);
		}
		CHECK(!uf_stats_summary(&s, buf, sizeof(buf)), "case %u: not OK: %s", k, buf);
		CHECK_HAS(buf, "LOSS");
		snprintf(exp, sizeof(exp), "%s %s", want[k].where, want[k].what);
		CHECK_HAS(buf, exp);
		/* and the stats line says it too */
		uf_stats_line(buf, sizeof(buf), &s, NULL);
		CHECK_HAS(buf, exp);
	}
}

static void
test_summary_mismatch_and_line(void)
{
	struct uf_snap s;
	char buf[1024];

	clean_snap(&s);
	s.tot.tx_ok -= 1; /* a copy nobody accounts for */
	CHECK(!uf_stats_summary(&s, buf, sizeof(buf)), "mismatch");
	CHECK_HAS(buf, "MISMATCH: copies_attempted");
	/* the line: the total and the largest items; a dead port stands out */
	clean_snap(&s);
	s.ports[1].has_xsk = true;
	s.ports[1].xsk.rx_ring_full = 1000;
	s.ports[0].st.imissed = 10;
	s.ports[1].link_up = false;
	uf_stats_line(buf, sizeof(buf), &s, NULL);
	CHECK_HAS(buf, "lost 1,010 (lan xsk.rx_ring_full 1,000, wan imissed 10)");
	CHECK_HAS(buf, "lan LINK DOWN");
	clean_snap(&s);
	uf_stats_line(buf, sizeof(buf), &s, NULL);
	CHECK_HAS(buf, "lost 0 |");
	CHECK(strstr(buf, "draining") == NULL && strstr(buf, "DEGRADED") == NULL, "%s", buf);
	/* a drain and a degraded verdict stand out too */
	s.health.state = UF_HEALTH_DRAINING;
	s.health.drain_left_s = 2.46;
	s.health.degraded = true;
	uf_stats_line(buf, sizeof(buf), &s, NULL);
	CHECK_HAS(buf, "| draining, 2.5 s left | DEGRADED");
}

static void
test_kernel_link(void)
{
	char root[] = "/tmp/uf_health_XXXXXX", path[512];
	FILE *f;

	CHECK_EQ(uf_kernel_link_parse("up\n", "1\n"), 1);
	CHECK_EQ(uf_kernel_link_parse("up", NULL), 1);
	CHECK_EQ(uf_kernel_link_parse("down\n", "0\n"), 0);
	CHECK_EQ(uf_kernel_link_parse("down\n", NULL), 0);
	CHECK_EQ(uf_kernel_link_parse("lowerlayerdown\n", "0\n"), 0);
	CHECK_EQ(uf_kernel_link_parse("dormant\n", "1\n"), 0);
	CHECK_EQ(uf_kernel_link_parse("unknown\n", "1\n"), 1);
	CHECK_EQ(uf_kernel_link_parse("unknown\n", "0\n"), 0);
	CHECK_EQ(uf_kernel_link_parse("upper\n", "1\n"), 0);
	CHECK_EQ(uf_kernel_link_parse(NULL, "1\n"), 0);

	if (mkdtemp(root) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/class", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/class/net", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/class/net/veth9", root);
	mkdir(path, 0700);
	CHECK(uf_kernel_link_read(root, "veth9") < 0, "no operstate: an error");
	CHECK(uf_kernel_link_read(root, "nosuch") < 0, "no interface: an error");
	snprintf(path, sizeof(path), "%s/class/net/veth9/operstate", root);
	f = fopen(path, "w");
	fputs("up\n", f);
	fclose(f);
	CHECK_EQ(uf_kernel_link_read(root, "veth9"), 1);
	f = fopen(path, "w");
	fputs("down\n", f);
	fclose(f);
	CHECK_EQ(uf_kernel_link_read(root, "veth9"), 0);
	f = fopen(path, "w");
	fputs("unknown\n", f);
	fclose(f);
	CHECK_EQ(uf_kernel_link_read(root, "veth9"), 0); /* no carrier file: down */
	snprintf(path, sizeof(path), "%s/class/net/veth9/carrier", root);
	f = fopen(path, "w");
	fputs("1\n", f);
	fclose(f);
	CHECK_EQ(uf_kernel_link_read(root, "veth9"), 1);
	unlink(path);
	snprintf(path, sizeof(path), "%s/class/net/veth9/operstate", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/class/net/veth9", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/class/net", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/class", root);
	rmdir(path);
	rmdir(root);
}

/* two ports, two listeners: "a" on wan with 3 destinations, "b" on lan with 2 */
static void
health_in(struct uf_health_in *in, struct uf_health_port *ports, struct uf_health_lis *lis)
{
	ports[0] = (struct uf_health_port){ .name = "wan", .up = true };
	ports[1] = (struct uf_health_port){ .name = "lan", .up = true };
	lis[0] = (struct uf_health_lis){ .name = "a", .port = 0, .n_dests = 3, .n_reachable = 3 };
	lis[1] = (struct uf_health_lis){ .name = "b", .port = 1, .n_dests = 2, .n_reachable = 2 };
	*in = (struct uf_health_in){
		.state = UF_HEALTH_READY, .n_ports = 2, .ports = ports, .n_listeners = 2, .lis = lis
	};
}

static void
test_health_states(void)
{
	struct uf_health_port ports[2];
	struct uf_health_lis lis[2];
	struct uf_health_in in;
	struct uf_health h;
	int s;

	CHECK_STR(uf_health_state_name(UF_HEALTH_STARTING), "starting");
	CHECK_STR(uf_health_state_name(UF_HEALTH_READY), "ready");
	CHECK_STR(uf_health_state_name(UF_HEALTH_DRAINING), "draining");
	CHECK_STR(uf_health_state_name(UF_HEALTH_STOPPING), "stopping");
	CHECK_STR(uf_health_state_name(UF_HEALTH_N_STATES), "unknown");
	/* all well: no state is degraded; drain_s and drain_left_s are the caller's */
	health_in(&in, ports, lis);
	for (s = 0; s < UF_HEALTH_N_STATES; s++) {
		memset(&h, 0, sizeof(h));
		h.drain_s = 7;
		h.drain_left_s = 1.5;
		in.state = (enum uf_health_state)s;
		uf_health_eval(&in, &h);
		CHECK_EQ(h.state, s);
		CHECK(!h.degraded && h.n_reasons == 0, "state %s: degraded with all well",
		      uf_health_state_name(h.state));
		CHECK(h.drain_s == 7 && h.drain_left_s == 1.5, "drain fields touched");
	}
	/* a listening port down: degraded while ready or draining, never starting/stopping */
	ports[0].up = false;
	for (s = 0; s < UF_HEALTH_N_STATES; s++) {
		bool fwd = s == UF_HEALTH_READY || s == UF_HEALTH_DRAINING;

		in.state = (enum uf_health_state)s;
		uf_health_eval(&in, &h);
		CHECK(h.degraded == fwd, "state %s: degraded %d", uf_health_state_name(h.state),
		      h.degraded);
		CHECK_EQ(h.n_reasons, fwd ? 1 : 0);
	}
}

static void
test_health_degraded_rule(void)
{
	struct uf_health_port ports[3];
	struct uf_health_lis lis[UF_HEALTH_MAX_REASONS + 4];
	struct uf_health_in in;
	struct uf_health h;
	int i;

	health_in(&in, ports, lis);
	/* some destinations unreachable: not degraded (the others still get every copy) */
	lis[0].n_reachable = 1;
	lis[1].n_reachable = 1;
	uf_health_eval(&in, &h);
	CHECK(!h.degraded, "degraded with a destination left per listener");
	/* every destination of one listener unreachable */
	lis[1].n_reachable = 0;
	uf_health_eval(&in, &h);
	CHECK(h.degraded, "listener b has no destination: not degraded");
	CHECK_EQ(h.n_reasons, 1);
	CHECK_STR(h.reasons[0], "listener b: none of its 2 destinations reachable");
	/* its port down too: the port first, then the listener */
	ports[1].up = false;
	uf_health_eval(&in, &h);
	CHECK_EQ(h.n_reasons, 2);
	CHECK_STR(h.reasons[0], "port lan: link down");
	CHECK_STR(h.reasons[1], "listener b: none of its 2 destinations reachable");
	/* a port no listener receives on (only destinations leave there) is not a reason by
	 * itself: its destinations count in their listeners' reachable */
	health_in(&in, ports, lis);
	ports[2] = (struct uf_health_port){ .name = "out", .up = false };
	in.n_ports = 3;
	uf_health_eval(&in, &h);
	CHECK(!h.degraded, "an egress-only port down degraded the instance");
	/* two listeners on one port that is down: the port is named once */
	lis[1].port = 0;
	ports[0].up = false;
	uf_health_eval(&in, &h);
	CHECK_EQ(h.n_reasons, 1);
	CHECK_STR(h.reasons[0], "port wan: link down");
	/* one destination: singular */
	health_in(&in, ports, lis);
	lis[0].n_dests = 1;
	lis[0].n_reachable = 0;
	uf_health_eval(&in, &h);
	CHECK_STR(h.reasons[0], "listener a: none of its 1 destination reachable");
	/* more reasons than kept: the first UF_HEALTH_MAX_REASONS, still degraded */
	for (i = 0; i < UF_HEALTH_MAX_REASONS + 4; i++)
		lis[i] = (struct uf_health_lis){ .name = "x", .port = 0, .n_dests = 1 };
	in.n_listeners = UF_HEALTH_MAX_REASONS + 4;
	ports[0].up = true;
	uf_health_eval(&in, &h);
	CHECK(h.degraded, "not degraded");
	CHECK_EQ(h.n_reasons, UF_HEALTH_MAX_REASONS);
}

int
main(void)
{
	RUN(test_summary_ok);
	RUN(test_summary_each_loss);
	RUN(test_summary_mismatch_and_line);
	RUN(test_kernel_link);
	RUN(test_health_states);
	RUN(test_health_degraded_rule);
	return uf_t_summary();
}
