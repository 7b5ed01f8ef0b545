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
        assert res.aggregator.get("drop_duplicate", 0) > 0, res.aggregator


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_tensors_that_differ_fail_the_job(transport):
    """A worker whose tensor has another length fails the job on every worker, with the
    aggregator's reason (JobFailed), whatever carries the packets."""
    cfg = NetnsRun(workers=2, elements=4_000, iterations=1, transport=transport, elements_by_rank=((1, 4_096),))
    with pytest.raises(RuntimeError, match="worker 0 failed: .*the workers disagree about allreduce 0"):
        run(cfg, time_limit=60)
