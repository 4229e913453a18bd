/* SPDX-License-Identifier: BSD-3-Clause
 * A port's faults as udpfan decides on them, fed faked rows, return codes, dev_info, xstats
 * names and readings: which resets are tried again (docs/pmd-quirks.md, reset_event).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "uf_port.h"
#include "uf_quirks.h"
#include "uf_test.h"
#include "uf_xwatch.h"

/* rte_eth_dev_reset's answers (ethdev passes the PMD's return through eth_err): which are
 * tried again, on which row, and whether a reset event came first */
static void
test_reset_again(void)
{
	const struct uf_quirk *vf = uf_quirk_lookup("net_ixgbe_vf");
	const struct uf_quirk *iavf = uf_quirk_lookup("net_iavf");
	const struct uf_quirk *ena = uf_quirk_lookup("net_ena");
	const struct uf_quirk *def = uf_quirk_lookup("net_bnxt");

	/* ixgbevf has its own row: its reset event is registered; its "retry later" retried */
	CHECK(vf != def && strcmp(vf->driver, "net_ixgbe_vf") == 0, "ixgbevf row: got %s",
	      vf->driver);
	CHECK(vf->reset_event, "ixgbevf raises RTE_ETH_EVENT_INTR_RESET (PF reset)");
	CHECK(uf_quirk_lookup("net_ixgbe") != vf, "the PF keeps its own row");
	CHECK(uf_quirk_reset_again(vf, -EAGAIN, true), "ixgbevf -EAGAIN after the event");
	CHECK(uf_quirk_reset_again(vf, -EAGAIN, false), "ixgbevf -EAGAIN on request");
	CHECK(!uf_quirk_reset_again(vf, -EPERM, true), "ixgbevf -EPERM: fatal");
	/* iavf: -1 from iavf_check_vf_reset_done is -EPERM; after a reset event the VF is
	 * still resetting, so it is tried again; on a request it is a real failure */
	CHECK(iavf->reset_event && iavf->reset_busy_eperm, "iavf row");
	CHECK_EQ(-1, -EPERM);
	CHECK(uf_quirk_reset_again(iavf, -1, true), "iavf -1 after the event");
	CHECK(!uf_quirk_reset_again(iavf, -1, false), "iavf -1 on request: fatal");
	CHECK(uf_quirk_reset_again(iavf, -EAGAIN, false), "-EAGAIN anywhere");
	CHECK(!uf_quirk_reset_again(iavf, -EIO, true), "iavf -EIO: fatal");
	CHECK(!uf_quirk_reset_again(iavf, -ENOTSUP, true), "-ENOTSUP is not a retry");
	/* no other row retries -EPERM */
	CHECK(!ena->reset_busy_eperm && !def->reset_busy_eperm, "ENA and default rows");
	CHECK(!uf_quirk_reset_again(ena, -EPERM, true), "ENA -EPERM: fatal");
	CHECK(!uf_quirk_reset_again(def, -EPERM, true), "default row -EPERM: fatal");
}

/* the retries a still-resetting VF gets: bounded, backing off, about 4.7 s in all */
static void
test_reset_retry_sequence(void)
{
	const struct uf_quirk *iavf = uf_quirk_lookup("net_iavf");
	/* a faked rte_eth_dev_reset: -1 four times (the VF still resetting), then 0 */
	const int answers[] = { -1, -1, -1, -1, 0 };
	unsigned int attempt = 0, waited = 0;
	int ret = answers[0];

	/* the loop uf_port_reset runs */
	while (ret != 0 && attempt < UF_RESET_RETRIES && uf_quirk_reset_again(iavf, ret, true)) {
		waited += uf_reset_backoff_ms(attempt);
		ret = answers[++attempt];
	}
	CHECK_EQ(ret, 0);
	CHECK_EQ(attempt, 4);
	CHECK_EQ(waited, 100 + 200 + 400 + 800);
	/* a VF that never finishes: UF_RESET_RETRIES tries after the first, then fatal */
	attempt = waited = 0;
	ret = -1;
	while (ret != 0 && attempt < UF_RESET_RETRIES && uf_quirk_reset_again(iavf, ret, true)) {
		waited += uf_reset_backoff_ms(attempt);
		attempt++;
	}
	CHECK_EQ(attempt, UF_RESET_RETRIES);
	CHECK(waited >= 2000 && waited <= 10000, "%u ms", waited);
}

int
main(void)
{
	RUN(test_reset_again);
	RUN(test_reset_retry_sequence);
	return uf_t_summary();
}
