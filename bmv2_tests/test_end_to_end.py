# SPDX-License-Identifier: Apache-2.0
"""Real host agents (`p4reduce worker` processes in network namespaces) joining the
job at the switch and doing allreduces through the P4 program on simple_switch_grpc,
over each transport: UDP sockets, AF_PACKET rings (`--transport packet`: the worker
builds the frames itself, and the switch must see the same packets), and AF_XDP sockets
(`--transport xdp`, where p4reduce._xdp was built)."""

from __future__ import annotations

import contextlib
import shutil
import subprocess

import numpy as np
import pytest

from bmv2_tests.conftest import make_workers, worker_namespaces
from bmv2_tests.harness import Bmv2Switch, job_dict
from p4reduce.testbed.check import check_results
from p4reduce.testbed.netns import nft_drop_both_ways
from p4reduce.testbed.synthetic import worker_tensor
from p4reduce.testbed.veth import worker_command
from p4reduce.transport.xdp import available


@pytest.fixture
def hosts(tmp_path, pipeline):
    sw = Bmv2Switch(num_ports=3).start(tmp_path, pipeline)
    with contextlib.ExitStack() as stack:
        stack.callback(sw.stop)
        namespaces = stack.enter_context(worker_namespaces(workers := make_workers(sw, 3), "p4r-e2e"))
        stack.callback(sw.stop)  # first: BMv2 lets go of the veths before their namespaces go
        yield sw, workers, namespaces


TRANSPORTS = [
    "udp",
    "packet",
    pytest.param("xdp", marks=pytest.mark.skipif(available() is not None, reason=str(available()))),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("dtype, density, loss", [("int32", 0.3, 0.0), ("float32", 0.05, 0.0), ("int32", 0.3, 0.05)])
def test_host_agents_allreduce_through_bmv2(hosts, tmp_path, dtype, density, loss, transport):
    sw, workers, namespaces = hosts
    sw.install({"jobs": [job_dict(1, workers, slot_base=0, num_slots=8)]})
    if loss:
        if shutil.which("nft") is None:
            pytest.skip("packet loss on the worker links needs nftables (`nft`)")
        if transport == "xdp":
            pytest.skip(
                "nftables on a worker's interface cannot drop AF_XDP's frames (XDP runs before its ingress "
                "hook, AF_XDP sends past its egress hook): the xdp loss runs are tests/reliability/test_netns.py"
            )
        for w, ns in zip(workers, namespaces, strict=True):
            subprocess.run(
                ["ip", "netns", "exec", ns, "nft", "-f", "-"],
                check=True,
                text=True,
                input=nft_drop_both_ways(w.host_if, loss),
                capture_output=True,
            )
    elements = 5000
    procs = [
        worker_process(
            w,
            ns,
            len(workers),
            "--elements",
            str(elements),
            "--density",
            str(density),
            "--dtype",
            dtype,
            "--iterations",
            "2",
            "--output",
            str(tmp_path / f"r{w.worker_id}.npy"),
            transport=transport,
        )
        for w, ns in zip(workers, namespaces, strict=True)
    ]
    try:
        for p in procs:
            # A healthy run takes seconds; a stuck worker gives up after its
            # failure timeout (10 s) and exits non-zero.
            out, err = p.communicate(timeout=90)
            assert p.returncode == 0, err[-1500:]
    finally:
        for p in procs:  # never leave workers behind in a failed test
            if p.poll() is None:
                p.kill()
                p.wait()
    inputs = [worker_tensor(0, r, elements, 32, density, dtype) for r in range(len(workers))]
    check_results(inputs, [np.load(tmp_path / f"r{r}.npy") for r in range(len(workers))], 32)
    counters = sw.client.read_counters()
    assert counters["result_multicast"] > 0 and counters["unknown_worker"] == 0
    # Every worker joined (more than once only if a JOINED was lost or late); every
    # packet carried the session of its JOINED and belonged to the allreduce of its round.
    assert counters["joined"] >= 3
    assert counters["bad_session"] == counters["stale"] == counters["malformed"] == 0
    if loss:  # lost results were recovered by unicast re-sends or retransmitted data
        assert counters["result_unicast"] + counters["retransmit_dropped"] > 0


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_worker_configured_otherwise_fails_at_join(hosts, transport):
    """The switch answers JOIN with its own geometry: a worker started with another
    slot count stops before sending any DATA, naming the field."""
    sw, workers, namespaces = hosts
    sw.install({"jobs": [job_dict(1, workers, slot_base=0, num_slots=8)]})
    w, ns = workers[0], namespaces[0]
    proc = worker_process(w, ns, len(workers), "--slots", "4", "--elements", "100", transport=transport)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 2, err[-1500:]
    assert "has num_slots 8, this worker 4" in err
    counters = sw.client.read_counters()
    assert counters["joined"] >= 1 and counters["data_counted"] == counters["bad_session"] == 0


def worker_process(w, ns: str, num_workers: int, *args: str, transport: str = "udp") -> subprocess.Popen:
    """`p4reduce worker` for `w` in namespace `ns`, dense mode, B = 32, 8 slots from 0
    (a later `--slots` in `args` wins), over `transport`."""
    return subprocess.Popen(
        worker_command(w, ns, num_workers, "--transport", transport, *args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_nan_found_after_packets_left_fails_every_worker_through_the_switch(hosts, tmp_path):
    """Worker 0's NaN sits in its tensor's last block, past what its first streams need:
    its later rounds go up poisoned (docs/protocol.md 5), the switch's round flags MISMATCH
    or carries the poisoned fingerprint, and every worker fails by name, none with a sum."""
    sw, workers, namespaces = hosts
    sw.install({"jobs": [job_dict(1, workers, slot_base=0, num_slots=8)]})
    elements = 300_000  # past the 64 Ki elements scanned before the first packet
    inputs = []
    for r in range(len(workers)):
        x = worker_tensor(0, r, elements, 32, 0.3, "float32")
        if r == 0:
            x[-3] = np.nan
        np.save(tmp_path / f"in{r}.npy", x)
        inputs.append(x)
    procs = [
        worker_process(w, ns, len(workers), "--input", str(tmp_path / f"in{w.worker_id}.npy"))
        for w, ns in zip(workers, namespaces, strict=True)
    ]
    try:
        outcomes = [(p.returncode, err) for p in procs for _, err in [p.communicate(timeout=90)]]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    (rc0, err0), *others = outcomes
    assert rc0 != 0 and f"flat index {elements - 3}" in err0 and "found after the first packets" in err0, err0[-800:]
    for rc, err in others:
        assert rc != 0 and ("TENSOR" in err or "disagree" in err), err[-800:]
    assert sw.client.read_counters()["result_multicast"] > 0  # packets had gone through the switch
