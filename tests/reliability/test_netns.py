# SPDX-License-Identifier: Apache-2.0
"""Real worker and aggregator processes in network namespaces, with lossy links, over
each worker transport: UDP sockets, AF_PACKET rings (transport "packet": the worker
builds and parses the Ethernet/IPv4/UDP frames itself; same guarantees), and AF_XDP
sockets (transport "xdp", where p4reduce._xdp was built; skipped with the reason where not).

Uses tc netem when the kernel has it, nftables random drop/duplication otherwise
(delay/reorder scenarios need netem and skip with the reason when it is absent; frames
from AF_PACKET rings bypass the qdisc, so their loss and duplication is always nftables').
"""

from __future__ import annotations

import pytest

from p4reduce.testbed.experiment import NetnsRun, run
from p4reduce.testbed.impairment import Impairment
from p4reduce.testbed.netns import TestbedUnavailable, missing_requirements, netem_supported
from p4reduce.transport.xdp import available

pytestmark = pytest.mark.skipif(missing_requirements() is not None, reason=f"netns tests: {missing_requirements()}")

SCENARIOS = {
    "clean": None,
    "loss1": Impairment(loss=0.01),
    "loss5": Impairment(loss=0.05),
    "loss10": Impairment(loss=0.10),
    "dup10": Impairment(duplicate=0.10),
    "loss5+dup5": Impairment(loss=0.05, duplicate=0.05),
    "delay2ms+jitter": Impairment(delay_ms=2, jitter_ms=1),
    "reorder+loss5": Impairment(delay_ms=1, jitter_ms=1, loss=0.05),
}
TRANSPORTS = [
    "udp",
    "packet",
    pytest.param("xdp", marks=pytest.mark.skipif(available() is not None, reason=str(available()))),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("name", list(SCENARIOS))
@pytest.mark.parametrize("mode, dtype", [("sparse", "int32"), ("dense", "float32")])
def test_allreduce_exact_over_impaired_links(name, mode, dtype, transport):
    imp = SCENARIOS[name]
    if imp is not None and imp.needs_netem() and (transport != "udp" or not netem_supported()):
        pytest.skip(
            "delay/reorder need sch_netem; this kernel is built without it"
            if transport == "udp"
            else "delay/reorder need sch_netem, which frames sent past the qdisc (AF_PACKET rings, AF_XDP) skip"
        )
    try:
        res = run(NetnsRun(workers=3, mode=mode, dtype=dtype, elements=12_000, iterations=2, transport=transport), imp)
    except TestbedUnavailable as exc:
        pytest.skip(str(exc))
    assert res.exact, res
    if imp is not None and imp.loss >= 0.05:
        assert res.retransmissions + res.queries > 0
        assert res.aggregator.get("resent", 0) + res.aggregator.get("drop_duplicate", 0) > 0
    if imp is not None and imp.duplicate:
        # A copy that arrives while its round is open is dropped; one that arrives after the
        # round completed (its original was the round's last) is answered with the stored
        # result, like a retransmission. Which of the two depends on the timing, never both none.
        assert res.aggregator.get("drop_duplicate", 0) + res.aggregator.get("resent", 0) > 0, res.aggregator


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_tensors_that_differ_fail_the_job(transport):
    """A worker whose tensor has another length fails the job on every worker, with the
    aggregator's reason (JobFailed), whatever carries the packets."""
    cfg = NetnsRun(workers=2, elements=4_000, iterations=1, transport=transport, elements_by_rank=((1, 4_096),))
    with pytest.raises(RuntimeError, match="worker 0 failed: .*the workers disagree about allreduce 0"):
        run(cfg, time_limit=60)


def test_nft_tables_replace_a_stale_one():
    """A netdev table outlives its device and binds again to the next device of that name
    (a Mininet run's switch ports): the documents replace a table of the same name, so
    rules never stack up run after run, and removing an absent table is no error."""
    import shutil
    import subprocess
    import uuid

    from p4reduce.testbed.netns import egress_table_name, nft_egress, nft_remove_table

    if shutil.which("nft") is None:
        pytest.skip("needs nftables (`nft`)")
    ns = f"p4r-nft-{uuid.uuid4().hex[:6]}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:

        def sh(*argv: str, input_: str | None = None) -> str:
            return subprocess.run(
                ["ip", "netns", "exec", ns, *argv], input=input_, text=True, capture_output=True, check=True
            ).stdout

        for _ in range(3):  # the device comes and goes, as a topology's would
            sh("ip", "link", "add", "sw-eth1", "type", "veth", "peer", "name", "sw-peer")
            sh("nft", "-f", "-", input_=nft_egress("sw-eth1", Impairment(loss=0.05)))
            sh("ip", "link", "del", "sw-eth1")
        table = egress_table_name("sw-eth1")
        assert sh("nft", "list", "table", "netdev", table).count(" drop") == 1
        sh("nft", "-f", "-", input_=nft_remove_table(table))
        sh("nft", "-f", "-", input_=nft_remove_table(table))  # already gone
        assert table not in sh("nft", "list", "tables")
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
