# SPDX-License-Identifier: Apache-2.0
"""WorkerConfig(transport="xdp"): the AF_XDP socket and its XDP program (p4reduce/_xdp.c).

What the program redirects and passes (BPF_PROG_TEST_RUN, and real traffic on a veth
pair: ARP, other UDP and TCP still reach the kernel), the frames it sends against the
kernel's, cleanup (close, and a process killed), the errors, and an agent's allreduces;
in both attach modes where they run. The message when p4reduce was built without AF_XDP
is tested everywhere. The allreduce suite over xdp: tests/reliability/test_netns.py.

The veth tests need root and p4reduce._xdp (libxdp-dev and libbpf-dev at build time).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw
from test_packet_transport import DST_MAC, ME, PEER, SRC_MAC, _frame, _missing, _one_worker_aggregator, _veth_pair
from test_packet_transport import _in_netns as _in_netns_bare

from p4reduce.hostagent import WorkerConfig
from p4reduce.transport import xdp

# -- built without AF_XDP --------------------------------------------------------------


def test_the_message_of_a_build_without_af_xdp_says_how_to_get_it():
    message = xdp.unavailable(False)
    assert message == (
        "transport 'xdp': this p4reduce was built without AF_XDP (no libxdp/libbpf headers): "
        "apt-get install libxdp-dev libbpf-dev, then reinstall p4reduce (pip install -e . in a checkout)"
    )
    broken = xdp.unavailable(True, "libxdp.so.1: cannot open shared object file")
    assert broken.startswith("transport 'xdp': p4reduce._xdp does not load (libxdp.so.1: cannot open")
    assert "\n" not in message + broken


def test_without_the_extension_transport_xdp_is_refused_never_replaced(monkeypatch):
    monkeypatch.setattr(xdp.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match="built without AF_XDP") as info:
        xdp.load()
    assert str(info.value) == xdp.unavailable(False)
    assert xdp.available() == xdp.unavailable(False)
    with pytest.raises(ValueError) as config:
        WorkerConfig(1, 0, 2, transport="xdp")
    assert str(config.value) == xdp.unavailable(False)


def test_without_the_extension_the_torch_backend_refuses_transport_xdp(monkeypatch):
    pytest.importorskip("torch", reason="PyTorch is not installed (the torch extra)")
    from p4reduce.torch.options import Options

    monkeypatch.setattr(xdp.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ValueError, match="built without AF_XDP"):
        Options.from_env({"P4REDUCE_TRANSPORT": "xdp"})


def test_the_engine_and_options_of_transport_xdp():
    with pytest.raises(ValueError, match="transport 'xdp' needs engine 'native'"):
        WorkerConfig(1, 0, 2, transport="xdp", engine="python")
    if xdp.available() is None:
        cfg = WorkerConfig(1, 0, 2, transport="xdp", interface="eth0", gateway_mac="02-AB-00-00-00-01", spin_us=5)
        assert (cfg.interface, cfg.gateway_mac, cfg.spin_us) == ("eth0", "02:ab:00:00:00:01", 5)


# -- on a veth pair ----------------------------------------------------------------------


def _in_netns(ns: str, code: str, timeout: float = 60) -> str:
    """Run `code` (Python, json imported) in namespace `ns`; its stdout."""
    return _in_netns_bare(ns, "import json\n" + code, timeout)


def _why_not() -> str | None:
    return _missing() or xdp.available()


needs_xdp = pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))
MODES = ["native", "generic"]


def _open(mode: str) -> str:
    """Python that opens `x`, an XskSocket of the flow ME <-> PEER on va in `mode`."""
    return (
        "from p4reduce._xdp import XskSocket\n"
        f"x = XskSocket('va', bytes.fromhex('{SRC_MAC.replace(':', '')}'), "
        f"bytes.fromhex('{DST_MAC.replace(':', '')}'), {ME!r}, {PEER!r}, 1500, mode={mode!r})\n"
    )


PASSED = {
    "ARP": lambda: bytes(Ether(dst=SRC_MAC) / ARP(pdst=ME[0])),
    "IPv6": lambda: bytes(Ether(dst=SRC_MAC) / IPv6() / UDP(dport=ME[1]) / Raw(b"x")),
    "TCP to the port": lambda: bytes(Ether(dst=SRC_MAC) / IP(src=PEER[0], dst=ME[0]) / TCP(dport=ME[1])),
    "UDP to another port": lambda: _frame(dst=(ME[0], ME[1] + 1)),
    "UDP to another address": lambda: _frame(dst=("10.98.0.9", ME[1])),
    "more fragments": lambda: _frame(ip_layer=IP(src=PEER[0], dst=ME[0], flags="MF")),
    "fragment offset": lambda: _frame(ip_layer=IP(src=PEER[0], dst=ME[0], frag=10)),
    "IPv4 options": lambda: _frame(ip_layer=IP(src=PEER[0], dst=ME[0], options=b"\x01\x01\x01\x00")),
    "shorter than the headers": lambda: _frame()[:41],
}


@needs_xdp
@pytest.mark.parametrize("mode", MODES)
def test_the_program_redirects_the_flow_and_passes_everything_else(mode):
    """BPF_PROG_TEST_RUN of the attached program on frames: the flow's datagrams (also one
    with a bad checksum: the parser refuses those) go to the socket, all else to the kernel."""
    frames = {name: make().hex() for name, make in PASSED.items()}
    frames["the flow"] = _frame().hex()
    frames["the flow, without DF"] = _frame(ip_layer=IP(src=PEER[0], dst=ME[0])).hex()
    with _veth_pair() as (a, _):
        out = _in_netns(
            a,
            _open(mode)
            + f"print(json.dumps({{n: x.classify(bytes.fromhex(f)) for n, f in {frames!r}.items()}}), x.mode, x.bind)",
            timeout=60,
        )
    verdicts_text, attached, bind = out.rsplit(" ", 2)
    verdicts = json.loads(verdicts_text)
    assert verdicts.pop("the flow") == verdicts.pop("the flow, without DF") == "redirect"
    assert verdicts == dict.fromkeys(PASSED, "pass")
    assert (attached, bind.strip()) == (mode, "copy")  # veth: both modes attach, no zero-copy


@needs_xdp
@pytest.mark.parametrize("mode", MODES)
def test_on_the_wire_the_flow_reaches_the_socket_and_the_rest_the_kernel(mode):
    """Traffic from the far end of the veth: the flow's datagrams reach the XskSocket (and not
    the UDP socket that keeps the port), while ARP, a UDP socket on another port and a TCP
    connection still work through the kernel; our frames next to the kernel's for the flow."""
    with _veth_pair(peer_neigh=False) as (a, b):
        listener = subprocess.Popen(
            ["ip", "netns", "exec", a, sys.executable, "-c", _LISTENER % {"mode": mode}],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert listener.stdout.readline().strip() == "up", listener.stderr.read()
            far = _in_netns(b, _FAR_END, timeout=60)
            listener.stdin.write("go\n")
            listener.stdin.flush()
            report = json.loads(listener.stdout.readline())
        finally:
            listener.kill()
            listener.wait()
    seen = json.loads(far)
    assert seen["tcp"] == "tcp answered" and seen["udp"] == "udp answered"  # (and ARP, to reach them)
    assert report["xsk"] == ["to the flow 0", "to the flow 1", "to the flow 2"]
    assert report["heard"] is None and report["counters"]["rx_frames"] == 3
    assert report["mode"] == mode
    kernels, ours = sorted((Ether(bytes.fromhex(f)) for f in seen["frames"]), key=lambda e: bytes(e[UDP].payload))
    assert bytes(ours[UDP].payload) == b"from the socket" and bytes(kernels[UDP].payload) == b"from the kernel"
    assert (ours.dst, ours.src, ours.type) == (kernels.dst, kernels.src, kernels.type) == (DST_MAC, SRC_MAC, 0x0800)
    for field in ("version", "ihl", "tos", "flags", "frag", "ttl", "proto", "src", "dst", "options"):
        assert getattr(ours[IP], field) == getattr(kernels[IP], field), field
    assert ours[UDP].dport == kernels[UDP].dport == PEER[1] and ours[UDP].sport == ME[1]


_LISTENER = f"""
import json, select, socket, sys, threading, time
from p4reduce._native_worker import drop_all
from p4reduce.transport.xdp import open_xsk
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); sock.bind({ME!r}); sock.connect({PEER!r})
x, route = open_xsk(sock, gateway_mac="{DST_MAC}", mode="%(mode)s")
other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); other.bind(("{ME[0]}", {ME[1] + 1}))
tcp = socket.socket(); tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("{ME[0]}", {ME[1]})); tcp.listen()
def serve():
    c, _ = tcp.accept(); c.recv(100); c.sendall(b"tcp answered"); c.close()
    d, src = other.recvfrom(100); other.sendto(b"udp answered", src)
threading.Thread(target=serve, daemon=True).start()
print("up", flush=True)
got = []
deadline = time.monotonic() + 20
while len(got) < 3 and time.monotonic() < deadline:
    select.select([x], [], [], 0.5)
    while (d := x.recv()) is not None:
        got.append(d[0].decode())
x.send(b"from the socket")
k = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); k.bind(("{ME[0]}", {ME[1] + 2}))
k.sendto(b"from the kernel", {PEER!r})
sys.stdin.readline()
sock.setblocking(False)
try:
    heard = sock.recv(100).hex()
except BlockingIOError:
    heard = None
print(json.dumps({{"xsk": got, "heard": heard, "counters": x.counters(), "mode": x.mode}}), flush=True)
time.sleep(30)
"""

_FAR_END = f"""
import json, select, socket, time
raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)); raw.bind(("vb", 3))
tcp = socket.create_connection(("{ME[0]}", {ME[1]}), timeout=10); tcp.sendall(b"hi"); answer = tcp.recv(100).decode()
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind({PEER!r}); udp.settimeout(10)
for i in range(3):
    udp.sendto(b"to the flow %%d" %% i, {ME!r})
o = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); o.settimeout(10)
o.sendto(b"x", ("{ME[0]}", {ME[1] + 1}))
other = o.recv(100).decode()
frames = []
deadline = time.monotonic() + 20
while len(frames) < 2 and time.monotonic() < deadline:
    if select.select([raw], [], [], 0.2)[0]:
        data, addr = raw.recvfrom(4096)
        if addr[2] != socket.PACKET_OUTGOING and data[12:14] == b"\\x08\\x00" and data[23] == 17 and data[36:38] == (
            {PEER[1]}).to_bytes(2, "big") and b"from the" in data:
            frames.append(data.hex())
print(json.dumps({{"tcp": answer, "udp": other, "frames": frames}}))
""".replace("%%", "%")


@needs_xdp
def test_the_program_goes_with_close_and_with_the_process_and_one_socket_per_queue():
    with _veth_pair() as (a, _):
        out = _in_netns(
            a,
            _open("auto")
            + f"""
import subprocess
def attached():
    return "prog/xdp" in subprocess.run(["ip", "-d", "link", "show", "va"], capture_output=True, text=True).stdout
print(attached())
try:
    XskSocket('va', bytes(6), bytes(6), ('{ME[0]}', {ME[1] + 1}), {PEER!r}, 1500)
except OSError as e:
    print(e)
try:
    XskSocket('va', bytes(6), bytes(6), {ME!r}, {PEER!r}, 9000)
except ValueError as e:
    print(e)
x.close()
print(attached())
try:
    x.recv()
except ValueError as e:
    print(e)
""",
        )
        lines = out.splitlines()
        assert lines[0] == "True"
        assert lines[1] == (
            "transport 'xdp': xsk_socket__create on va: Device or resource busy (another XDP program or AF_XDP "
            "socket holds the interface's queue 0: one xdp endpoint per interface)"
        )
        assert lines[2].startswith("MTU 9000: transport 'xdp' takes 68..3826")
        assert lines[3] == "False" and lines[4] == "the xdp socket is closed"
        # killed: the BPF link's last descriptor goes with the process, and the program with it
        proc = subprocess.run(
            [
                "ip",
                "netns",
                "exec",
                a,
                sys.executable,
                "-c",
                _open("auto") + "import os\nos.kill(os.getpid(), 9)",
            ],
            capture_output=True,
        )
        assert proc.returncode == -9
        link = subprocess.run(["ip", "-n", a, "-d", "link", "show", "va"], capture_output=True, text=True).stdout
        assert "prog/xdp" not in link


@needs_xdp
@pytest.mark.parametrize("mode", ["native", "generic"])
def test_an_agent_allreduces_over_the_socket(mode):
    """A HostAgent with transport "xdp" to a software aggregator across the veth pair: exact
    sums over several allreduces; the JOIN announced one frame's worth."""
    with _veth_pair() as (a, b), _one_worker_aggregator(b):
        out = _in_netns(
            a,
            f"""
import functools
import numpy as np
from p4reduce.transport import xdp
from p4reduce.hostagent import HostAgent, WorkerConfig
xdp_open = xdp.open_xsk
xdp.open_xsk = functools.partial(xdp_open, mode="{mode}")
cfg = WorkerConfig(1, 0, 1, aggregator={PEER!r}, block_size=64, num_slots=16, transport="xdp")
x = np.zeros(50_000, dtype=np.int32)
x[::7] = np.arange(x[::7].size)
with HostAgent(cfg) as agent:
    ok = all((agent.allreduce(x) == x).all() for _ in range(3))
    s = agent._endpoints[0].ring
    c = s.counters()
    print(ok, agent._endpoints[0].pack_up_to, c["rx_refused"], s.rx_oversize, c["rx_frames"] > 0, s.mode)
""",
        )
    assert out.split() == ["True", "1472", "0", "0", "True", mode]
