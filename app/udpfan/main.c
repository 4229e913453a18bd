/* SPDX-License-Identifier: BSD-3-Clause
 * udpfan: every datagram that arrives on one UDP port leaves, payload unchanged, for each of
 * N destinations. Wiring only: the forwarder lives in lib/.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_pdump.h>
#include <rte_version.h>

#include "uf_app.h"
#include "uf_config.h"
#include "uf_env.h"
#include "uf_own.h"
#include "uf_stats.h"
#include "uf_quirks.h"
#include "uf_version.h"

static struct uf_app app;
static struct uf_own own;
/* Signals that came before the control loop could take them (EAL init, port setup):
 * uf_app_init clears app, so they are applied again once it returns. */
static volatile sig_atomic_t early_stop, early_reload;

/*
 * A virtio_user port with server=1 makes EAL's probe wait in accept() until its vhost-user
 * backend connects (docs/pmd-quirks.md, "vhost-user and memif"): that wait is bounded, and a
 * stop signal ends it (SA_RESTART would resume the accept).
 */
#define PEER_WAIT_S 60
static volatile sig_atomic_t in_peer_wait;

static void
say(const char *m)
{
	ssize_t r = write(STDERR_FILENO, m, strlen(m));

	(void)r;
}

static void
on_alarm(int sig)
{
	(void)sig;
	say("udpfan: error: no vhost-user backend connected within " RTE_STR(
			PEER_WAIT_S) " s to a virtio_user server=1 port (EAL's probe waits for each, in port order): "
				     "start the backend (net_vhost with client=1, QEMU, OVS) on that socket, or give "
				     "the port server=0 with the backend as the server\n");
	_exit(UF_EXIT_ENV);
}

static void
on_signal(int sig)
{
	if (in_peer_wait && sig != SIGHUP) {
		say("udpfan: stopped while EAL waited for a vhost-user backend to connect\n");
		_exit(UF_EXIT_ENV);
	}
	if (sig == SIGHUP) {
		early_reload = 1;
		uf_app_request_reload(&app);
		return;
	}
	early_stop = 1;
	/* SIGTERM may start a drain; SIGINT stops at once (docs/deployment.md#signals) */
	if (sig == SIGTERM)
		uf_app_request_term(&app);
	else
		uf_app_request_stop(&app);
}

/*
 * Before EAL: SIGTERM/SIGINT ask for a clean stop whenever they come (SIGTERM with a drain
 * first once udpfan is ready and control.drain_s > 0), SIGHUP never kills
 * (docs/deployment.md, "Signals"). EAL's own threads inherit this disposition; the handler
 * only stores flags. SA_RESTART keeps EAL's syscalls from seeing EINTR.
 */
static void
install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* a virtio_user port in server mode: EAL's probe blocks until the backend connects */
static bool
probe_waits_for_peer(const struct uf_config *cfg)
{
	char v[8];
	int i;

	for (i = 0; i < cfg->n_ports; i++) {
		const char *dev = cfg->ports[i].device;

		if (!cfg->ports[i].is_pci && uf_quirk_lookup_vdev(dev)->single_file_segs &&
		    uf_devarg(dev, "server", v, sizeof(v)) && strcmp(v, "1") == 0)
			return true;
	}
	return false;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: udpfan -c FILE [--check] [--duration SECONDS] [--stats-json PATH]\n"
		"       udpfan --list-quirks [--json] | --list-counters [--json] | --version | --help\n"
		"\n"
		"  -c, --config FILE     run the forwarder from a YAML config\n"
		"      --check           validate the config (and what of the environment can be\n"
		"                        checked without devices) and exit: 0 valid, 2 invalid\n"
		"      --duration S      stop cleanly after S seconds\n"
		"      --stats-json PATH append one JSON object per stats interval, and a final\n"
		"                        one with \"final\": true (overrides stats.json)\n"
		"      --list-quirks     print what udpfan believes about each PMD (--json)\n"
		"      --list-counters   print every counter of the stats, with its help (--json)\n"
		"      --version         print the version and the DPDK it was built with\n"
		"\n"
		"Exit codes: 0 clean stop, 2 config error, 3 environment error, 1 other.\n"
		"Docs: docs/configuration.md, docs/loss-accounting.md, docs/deployment.md\n");
}

static int
fail(const struct uf_err *err)
{
	fprintf(stderr, "udpfan: error: %s\n", err->msg);
	return err->code != 0 ? err->code : UF_EXIT_OTHER;
}

static void
note(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "udpfan: note: %s\n", msg);
}

/*
 * DPDK's capture framework (docs/deployment.md#capture): dpdk-dumpcap and dpdk-pdump, secondary
 * processes on udpfan's file_prefix, ask it to copy a port's RX and TX to them. Until one
 * does, nothing runs on the datapath: pdump installs its RX/TX callbacks when a capture
 * starts and removes them when it ends. A secondary process maps the primary's hugepage
 * files through its shared config: under eal.in_memory or eal.no_huge there are none, and
 * it cannot start ("Cannot open '/var/run/dpdk/<prefix>/config'", "Failed to open shared
 * memory"). True when it is on.
 */
static bool
capture_init(const struct uf_config *cfg)
{
	if (!cfg->eal.capture)
		return false;
	if (cfg->eal.in_memory || cfg->eal.no_huge) {
		UF_LOG(NOTICE,
		       "eal.capture: dpdk-dumpcap and dpdk-pdump cannot attach under eal.%s "
		       "(no shared hugepage files)",
		       cfg->eal.in_memory ? "in_memory" : "no_huge");
		return false;
	}
	if (rte_pdump_init() != 0) {
		UF_LOG(NOTICE, "eal.capture: rte_pdump_init failed (%s): no capture",
		       rte_strerror(rte_errno));
		return false;
	}
	return true;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "stats-json", required_argument, NULL, 's' },
		{ "list-quirks", no_argument, NULL, 'q' },
		{ "list-counters", no_argument, NULL, 'L' },
		{ "json", no_argument, NULL, 'j' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct uf_app_opts ao = { .human = stderr };
	const char *cfg_path = NULL;
	bool check = false, list_quirks = false, list_counters = false, json = false,
	     capture = false;
	struct uf_eal_argv eal;
	struct uf_config *cfg;
	struct uf_err err = { 0 };
	char line[2048], *end;
	int c, rc;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cfg_path = optarg;
			break;
		case 'C':
			check = true;
			break;
		case 'd':
			errno = 0;
			ao.duration_s = strtod(optarg, &end);
			if (errno != 0 || *end != '\0' || !(ao.duration_s > 0)) {
				fprintf(stderr,
					"udpfan: error: --duration: \"%s\" is not a number of "
					"seconds > 0\n",
					optarg);
				return UF_EXIT_CONFIG;
			}
			break;
		case 's':
			ao.stats_json = optarg;
			break;
		case 'q':
			list_quirks = true;
			break;
		case 'L':
			list_counters = true;
			break;
		case 'j':
			json = true;
			break;
		case 'V':
			printf("udpfan %s (built with %s, running %s)\n", UF_VERSION,
			       RTE_VER_PREFIX " " RTE_STR(RTE_VER_YEAR) "." RTE_STR(RTE_VER_MONTH),
			       rte_version());
			return UF_EXIT_OK;
		case 'h':
			usage(stdout);
			return UF_EXIT_OK;
		default:
			usage(stderr);
			return UF_EXIT_CONFIG;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"udpfan: error: unexpected argument \"%s\" (EAL options go in "
			"eal.extra_args)\n",
			argv[optind]);
		return UF_EXIT_CONFIG;
	}
	if (list_quirks) {
		uf_quirk_print(stdout, json);
		return UF_EXIT_OK;
	}
	if (list_counters) {
		uf_stats_schema(stdout, json);
		return UF_EXIT_OK;
	}
	if (cfg_path == NULL) {
		fprintf(stderr, "udpfan: error: no config given: udpfan -c FILE (examples in "
				"config/)\n");
		return UF_EXIT_CONFIG;
	}

	/* from here on no signal kills without its final stats object, SIGHUP none at all */
	if (!check)
		install_signals();
	cfg = uf_config_load(cfg_path, &err);
	if (cfg == NULL)
		return fail(&err);
	if (uf_eal_argv_build(cfg, argv[0], &eal, &err) != 0) {
		uf_config_free(cfg);
		return fail(&err);
	}
	if (check) {
		int problems = uf_env_check(cfg, false, NULL, note, NULL);

		uf_eal_argv_str(&eal, line, sizeof(line));
		char pools[64] = "";

		if (cfg->n_pools > 0)
			snprintf(pools, sizeof(pools), " (%d pool%s, %d member%s)", cfg->n_pools,
				 cfg->n_pools == 1 ? "" : "s", cfg->n_dests - cfg->n_listed,
				 cfg->n_dests - cfg->n_listed == 1 ? "" : "s");
		printf("udpfan: %s: valid: %d port%s, %d listener%s, %d destination%s%s, %d rule%s; "
		       "EAL: %s%s\n",
		       cfg_path, cfg->n_ports, cfg->n_ports == 1 ? "" : "s", cfg->n_listeners,
		       cfg->n_listeners == 1 ? "" : "s", cfg->n_listed,
		       cfg->n_listed == 1 ? "" : "s", pools, cfg->n_rules,
		       cfg->n_rules == 1 ? "" : "s", line,
		       problems > 0 ? " (environment notes above)" : "");
		uf_config_free(cfg);
		return UF_EXIT_OK;
	}
	/* strict: a problem stops the start; a note (IPv6 on a kernel interface) is printed */
	if (uf_env_check(cfg, true, &err, note, NULL) < 0) {
		uf_config_free(cfg);
		return fail(&err);
	}
	/* one owner per interface, proved before EAL probes anything: a refused instance must
	 * not touch the running one's XDP program or sockets (docs/deployment.md) */
	if (uf_own_acquire(cfg, &own, &err, note, NULL) != 0) {
		uf_config_free(cfg);
		return fail(&err);
	}
	uf_own_reclaim_prefix(cfg, note, NULL);

	if (probe_waits_for_peer(cfg)) {
		signal(SIGALRM, on_alarm);
		in_peer_wait = 1;
		alarm(PEER_WAIT_S);
	}
	rc = rte_eal_init(eal.argc, eal.argv);
	alarm(0);
	in_peer_wait = 0;
	if (rc < 0) {
		uf_err_set(&err, UF_EXIT_ENV,
			   "EAL initialisation failed (%s); the EAL log above says "
			   "why (hugepages, permissions, a device string)",
			   rte_strerror(rte_errno));
		uf_config_free(cfg);
		return fail(&err);
	}
	if (cfg->eal.mlockall) {
		/* memory that PMDs map later (memif, vhost-user) populated when they map it, not
		 * page by page by a worker (docs/configuration.md#eal) */
		rc = uf_env_lock_memory();
		if (rc != 0 && rc != -ENOTSUP) {
			char m[320];

			snprintf(m, sizeof(m),
				 "eal.mlockall: mlockall() failed (%s): memory stays unlocked, and a "
				 "PMD's later mappings (memif, vhost-user) fault in the workers page by "
				 "page; grant CAP_IPC_LOCK or LimitMEMLOCK=infinity "
				 "(docs/deployment.md), or set eal.mlockall: false",
				 strerror(-rc));
			note(NULL, m);
		}
	}
	capture = capture_init(cfg);
	rc = UF_EXIT_OK;
	if (uf_app_init(&app, cfg, &ao, &err) != 0) {
		rc = fail(&err);
	} else {
		uf_own_record(&own);
		/* a signal during start-up: the run starts, stops at once, writes the final stats */
		if (early_stop)
			uf_app_request_stop(&app);
		if (early_reload)
			uf_app_request_reload(&app);
		if (uf_app_run(&app, &err) != 0)
			rc = fail(&err);
	}
	uf_app_fini(&app);
	if (capture)
		rte_pdump_uninit();
	/* EAL's cleanup unmaps; what it leaves on disk goes too (docs/deployment.md, "What a
	 * clean stop leaves") */
	if (rte_eal_cleanup() == 0)
		uf_own_cleanup_prefix(cfg);
	uf_config_free(cfg);
	return rc;
}
