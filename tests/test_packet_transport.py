# SPDX-License-Identifier: Apache-2.0
"""WorkerConfig(transport="packet"): the frames the AF_PACKET ring builds and takes
(p4reduce/_packet_ring.c) against scapy's dissection, its classic BPF filter on a veth
pair, the route and neighbour it sends to, and the errors of its configuration.

The allreduce itself over the ring: tests/reliability/test_netns.py (netns, loss,
duplication, mismatch) and bmv2_tests/test_end_to_end.py (through the P4 switch).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

from p4reduce._native_worker import build_frame, drop_all, parse_frame
from p4reduce.hostagent import WorkerConfig

SRC_MAC, DST_MAC = "02:00:00:00:aa:01", "02:00:00:00:aa:02"
ME, PEER = ("10.98.0.1", 40001), ("10.98.0.2", 48864)


def _mac(text: str) -> bytes:
    return bytes.fromhex(text.replace(":", ""))


# -- frames ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 36, 1472])
def test_built_frames_are_what_scapy_dissects(size):
    payload = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    frame = build_frame(_mac(DST_MAC), _mac(SRC_MAC), ME, PEER, payload, ip_id=0xBEEF)
    eth = Ether(frame)
    assert (eth.dst, eth.src, eth.type) == (DST_MAC, SRC_MAC, 0x0800)
    ip = eth[IP]
    assert (ip.version, ip.ihl, ip.tos, ip.len, ip.id) == (4, 5, 0, 28 + size, 0xBEEF)
    assert (ip.flags, ip.frag, ip.ttl, ip.proto) == ("DF", 0, 64, 17)
    assert (ip.src, ip.dst) == (ME[0], PEER[0])
    rebuilt = IP(bytes(ip))
    del rebuilt.chksum
    assert IP(bytes(rebuilt)).chksum == ip.chksum  # scapy's own checksum of the header
    udp = eth[UDP]
    assert (udp.sport, udp.dport, udp.len, udp.chksum) == (ME[1], PEER[1], 8 + size, 0)
    assert bytes(udp.payload) == payload
    assert len(frame) == 42 + size


def _frame(ip_layer=None, udp_layer=None, payload=b"p4reduce", dst=ME):
    ip_layer = ip_layer if ip_layer is not None else IP(src=PEER[0], dst=dst[0], flags="DF")
    udp_layer = udp_layer if udp_layer is not None else UDP(sport=PEER[1], dport=dst[1])
    return bytes(Ether(src=DST_MAC, dst=SRC_MAC) / ip_layer / udp_layer / Raw(payload))


def test_a_kernel_like_frame_is_taken_with_its_source():
    assert parse_frame(_frame(), ME) == (b"p4reduce", PEER)
    # the UDP checksum the kernel would set is not looked at; Ethernet padding is cut off
    padded = _frame(payload=b"x") + bytes(20)
    assert parse_frame(padded, ME) == (b"x", PEER)
    with_options = _frame(ip_layer=IP(src=PEER[0], dst=ME[0], options=b"\x01\x01\x01\x00"))
    assert Ether(with_options)[IP].ihl == 6
    assert parse_frame(with_options, ME) == (b"p4reduce", PEER)


def _corrupt_checksum(frame: bytes) -> bytes:
    b = bytearray(frame)
    b[24] ^= 0xFF
    return bytes(b)


def _udp_length(frame: bytes, value: int) -> bytes:
    b = bytearray(frame)
    b[38:40] = value.to_bytes(2, "big")
    return bytes(b)


REFUSED = {
    "short": lambda: _frame()[:30],
    "cut IPv4 packet": lambda: _frame()[:-1],
    "IPv6": lambda: bytes(Ether(dst=SRC_MAC) / IPv6() / UDP(dport=ME[1]) / Raw(b"x")),
    "ARP": lambda: bytes(Ether(dst=SRC_MAC) / ARP(pdst=ME[0])),
    "checksum": lambda: _corrupt_checksum(_frame()),
    "TCP": lambda: bytes(Ether(dst=SRC_MAC) / IP(src=PEER[0], dst=ME[0]) / TCP(dport=ME[1])),
    "more fragments": lambda: _frame(ip_layer=IP(src=PEER[0], dst=ME[0], flags="MF")),
    "fragment offset": lambda: _frame(ip_layer=IP(src=PEER[0], dst=ME[0], frag=10)),
    "another address": lambda: _frame(dst=("10.98.0.9", ME[1])),
    "another port": lambda: _frame(dst=(ME[0], ME[1] + 1)),
    "UDP length beyond the packet": lambda: _udp_length(_frame(), 100),
    "UDP length below its header": lambda: _udp_length(_frame(), 7),
}
REASONS = {
    "short": "short",
    "cut IPv4 packet": "short",
    "IPv6": "not IPv4",
    "ARP": "not IPv4",
    "checksum": "IPv4 checksum",
    "TCP": "not UDP",
    "more fragments": "fragment",
    "fragment offset": "fragment",
    "another address": "not to this address and port",
    "another port": "not to this address and port",
    "UDP length beyond the packet": "UDP length",
    "UDP length below its header": "UDP length",
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_frames_that_are_not_the_flows_datagram_are_refused(name):
    assert parse_frame(REFUSED[name](), ME) == REASONS[name]


def test_a_bad_ihl_is_refused():
    b = bytearray(_frame())
    b[14] = 0x44  # IHL 4: 16 bytes
    assert parse_frame(bytes(b), ME) == "bad IHL"


# -- configuration ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"transport": "tcp"}, "transport 'tcp': use one of udp, packet, xdp"),
        ({"transport": "xdp", "engine": "python"}, "transport 'xdp' needs engine 'native'"),
        ({"transport": "packet", "engine": "python"}, "transport 'packet' needs engine 'native'"),
        ({"interface": "eth0"}, "interface and gateway_mac are options of transports 'packet' and 'xdp'"),
        ({"gateway_mac": "02:00:00:00:00:01"}, "interface and gateway_mac are options of transports 'packet'"),
        ({"transport": "packet", "gateway_mac": "02:00:00:00:01"}, "gateway_mac: '02:00:00:00:01' is not a MAC"),
        ({"transport": "packet", "interface": "x" * 16}, "an interface name is 1 to 15 characters"),
        ({"transport": "packet", "spin_us": -1}, "spin_us -1: 0..10000 microseconds"),
        ({"spin_us": 10, "engine": "python"}, "spin_us needs engine 'native'"),
    ],
)
def test_configuration_errors_say_what_is_wrong_in_one_line(kwargs, message):
    with pytest.raises(ValueError) as info:
        WorkerConfig(1, 0, 2, **kwargs)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_gateway_mac_is_normalized():
    cfg = WorkerConfig(1, 0, 2, transport="packet", gateway_mac="02-AB-00-00-00-01")
    assert cfg.gateway_mac == "02:ab:00:00:00:01"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--interface", "eth0"], "interface and gateway_mac are options of transports 'packet' and 'xdp'"),
        (["--transport", "packet", "--gateway-mac", "nope"], "gateway_mac: 'nope' is not a MAC address"),
        (["--spin-us", "20000"], "argument --spin-us: 20000 outside 0..10000"),
    ],
)
def test_worker_cli_errors(args, message):
    proc = subprocess.run(
        [sys.executable, "-m", "p4reduce", "worker", "--aggregator", "127.0.0.1:48864", "--job", "1"]
        + ["--rank", "0", "--workers", "2", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_worker_cli_documents_the_transports():
    out = subprocess.run(
        [sys.executable, "-m", "p4reduce", "worker", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "--transport {udp,packet,xdp}" in out and "--gateway-mac MAC" in out and "--interface IF" in out


# -- on a veth pair ----------------------------------------------------------------------


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "AF_PACKET rings and network namespaces need root"
    if shutil.which("ip") is None:
        return "iproute2 (`ip`) is not installed"
    return None


needs_veth = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextlib.contextmanager
def _veth_pair(peer_neigh: bool = True, peer_ip: bool = True):
    """Namespaces `a` (10.98.0.1, SRC_MAC) and `b` (10.98.0.2, DST_MAC) joined by a veth pair;
    yields their names and interfaces."""
    tag = uuid.uuid4().hex[:6]
    a, b = f"p4r-pa-{tag}", f"p4r-pb-{tag}"
    _ip("netns", "add", a)
    _ip("netns", "add", b)
    try:
        _ip("-n", a, "link", "add", "va", "type", "veth", "peer", "name", "vb", "netns", b)
        _ip("-n", a, "link", "set", "va", "address", SRC_MAC)
        _ip("-n", b, "link", "set", "vb", "address", DST_MAC)
        _ip("-n", a, "addr", "add", f"{ME[0]}/24", "dev", "va")
        if peer_ip:
            _ip("-n", b, "addr", "add", f"{PEER[0]}/24", "dev", "vb")
        for ns, dev in ((a, "va"), (b, "vb")):
            _ip("-n", ns, "link", "set", dev, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        if peer_neigh:
            _ip("-n", b, "neigh", "replace", ME[0], "lladdr", SRC_MAC, "dev", "vb")
        yield a, b
    finally:
        _ip("netns", "del", a)
        _ip("netns", "del", b)


def _in_netns(ns: str, code: str, timeout: float = 60) -> str:
    """Run `code` (Python) in namespace `ns`; its stdout."""
    proc = subprocess.run(
        ["ip", "netns", "exec", ns, sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@needs_veth
def test_the_filter_passes_only_the_flows_frames_and_sent_frames_look_like_the_kernels():
    """Frames injected at the far end of a veth: what the classic BPF filter lets into the
    ring (and what the parser then refuses), what our own frames look like on the wire next
    to the kernel's for the same flow, and a UDP socket with drop_all that hears nothing."""
    with _veth_pair() as (a, b):
        wanted = {name: REFUSED[name]().hex() for name in REFUSED}
        # b listens on the wire (a raw socket), a opens the ring
        code = f"""
import json, os, select, socket, subprocess, sys, time
from p4reduce._native_worker import PacketRing, drop_all
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind({ME!r}); drop_all(udp)
ring = PacketRing(socket.if_nametoindex("va"), bytes.fromhex("{SRC_MAC.replace(":", "")}"),
                  bytes.fromhex("{DST_MAC.replace(":", "")}"), {ME!r}, {PEER!r}, 1500)
print(json.dumps({{"ready": True}}), flush=True)
sys.stdin.readline()  # b has injected its frames
time.sleep(0.2)
got = []
while (d := ring.recv()) is not None:
    got.append([d[0].hex(), list(d[1])])
assert ring.send(b"from the ring")
kernel = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); kernel.bind(("{ME[0]}", {ME[1] + 1}))
kernel.sendto(b"from the kernel", {PEER!r})
udp.setblocking(False)
try:
    heard = udp.recv(100).hex()
except BlockingIOError:
    heard = None
print(json.dumps({{"got": got, "counters": ring.counters(), "heard": heard}}), flush=True)
"""
        proc = subprocess.Popen(
            ["ip", "netns", "exec", a, sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert '"ready"' in proc.stdout.readline()
            inject = f"""
import socket, select, time, json
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)); s.bind(("vb", 3))
frames = {wanted!r}
good = {_frame(payload=b"good").hex()!r}
for f in [good, *frames.values(), good]:
    s.send(bytes.fromhex(f))
print("sent", flush=True)
seen = []
deadline = time.monotonic() + 5
while len(seen) < 2 and time.monotonic() < deadline:
    if select.select([s], [], [], 0.2)[0]:
        data, addr = s.recvfrom(4096)
        if addr[2] != socket.PACKET_OUTGOING and data[12:14] == b"\\x08\\x00" and data[23] == 17:
            seen.append(data.hex())
print(json.dumps(seen), flush=True)
"""
            injector = subprocess.Popen(
                ["ip", "netns", "exec", b, sys.executable, "-c", inject],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert injector.stdout.readline().strip() == "sent", injector.stderr.read()
            proc.stdin.write("go\n")
            proc.stdin.flush()
            report = json.loads(proc.stdout.readline())
            seen = json.loads(injector.stdout.readline())
        finally:
            for p in (proc,):
                with contextlib.suppress(Exception):
                    p.kill()
    # Only the two good frames were taken. Of the others the filter passed those addressed to the
    # flow whose headers are wrong in what it does not look at (the checksum, the lengths: a cut
    # IPv4 packet, both bad UDP lengths), and the parser refused them; the rest never reached the ring.
    assert report["got"] == [[b"good".hex(), list(PEER)], [b"good".hex(), list(PEER)]]
    assert report["counters"]["rx_frames"] == 2
    assert report["counters"]["rx_refused"] == len(
        ["checksum", "cut IPv4 packet", "UDP length beyond the packet", "UDP length below its header"]
    )
    assert report["heard"] is None  # the UDP socket keeps the port and hears nothing
    # Our frame next to the kernel's for the same flow (another source port): the same
    # headers but for the identification, the source port and the UDP checksum.
    kernels, ours = sorted((Ether(bytes.fromhex(f)) for f in seen), key=lambda e: bytes(e[UDP].payload))
    assert bytes(ours[UDP].payload) == b"from the ring" and bytes(kernels[UDP].payload) == b"from the kernel"
    assert (ours.dst, ours.src, ours.type) == (kernels.dst, kernels.src, kernels.type) == (DST_MAC, SRC_MAC, 0x0800)
    for field in ("version", "ihl", "tos", "flags", "frag", "ttl", "proto", "src", "dst", "options"):
        assert getattr(ours[IP], field) == getattr(kernels[IP], field), field
    assert ours[UDP].dport == kernels[UDP].dport == PEER[1] and ours[UDP].sport == ME[1]
    assert ours[IP].len - len(b"from the ring") == kernels[IP].len - len(b"from the kernel") == 28


@needs_veth
def test_the_route_and_next_hop_come_from_the_kernel_or_arp():
    """The interface and MTU from the route, the next hop's MAC from an ARP request when the
    neighbour table has none, and a clear error naming what to set when nobody answers."""
    with _veth_pair() as (a, _):
        out = _in_netns(
            a,
            f"""
from p4reduce.transport.packet import resolve_route
r = resolve_route("{ME[0]}", "{PEER[0]}")
print(r.interface, r.mtu, r.mac.hex(), r.next_hop, r.next_hop_mac.hex())
""",
        )
        assert out.split() == ["va", "1500", SRC_MAC.replace(":", ""), PEER[0], DST_MAC.replace(":", "")]
    with _veth_pair(peer_ip=False) as (a, _):  # nobody answers for the peer's address
        code = f"""
from p4reduce.transport.packet import resolve_route
try:
    resolve_route("{ME[0]}", "{PEER[0]}")
except OSError as e:
    print(e)
r = resolve_route("{ME[0]}", "{PEER[0]}", gateway_mac="{DST_MAC}")
print(r.next_hop_mac.hex())
try:
    resolve_route("127.0.0.1", "127.0.0.1")
except OSError as e:
    print(e)
"""
        lines = _in_netns(a, code).splitlines()
        assert lines[0] == (
            f"transport 'packet': no MAC for the next hop {PEER[0]} on va (the neighbour table has none and it "
            f"did not answer ARP): add a static entry (ip neigh replace {PEER[0]} lladdr MAC dev va) or set "
            "gateway_mac (--gateway-mac, P4REDUCE_GATEWAY_MAC)"
        )
        assert lines[1] == DST_MAC.replace(":", "")
        assert "the route to 127.0.0.1 is local" in lines[2]


@needs_veth
def test_a_packet_that_does_not_fit_a_frame_is_refused_before_anything_is_sent():
    with _veth_pair() as (a, _):
        out = _in_netns(
            a,
            f"""
from p4reduce.hostagent import HostAgent, WorkerConfig
cfg = WorkerConfig(1, 0, 2, aggregator=("{PEER[0]}", {PEER[1]}), block_size=512, transport="packet",
                   gateway_mac="{DST_MAC}")
try:
    HostAgent(cfg)
except ValueError as e:
    print(e)
agent = HostAgent(WorkerConfig(1, 0, 2, aggregator=("{PEER[0]}", {PEER[1]}), transport="packet",
                               gateway_mac="{DST_MAC}"))
print(agent._message_size, agent._endpoints[0].max_datagram, agent.udp_offload.gso)
agent.close()
""",
        )
        lines = out.splitlines()
        assert lines[0] == (
            "block_size 512: a 2084-byte packet exceeds the 1472 bytes one frame carries on va (MTU 1500); "
            "transport 'packet' sends a datagram per frame"
        )
        assert lines[1] == "1472 1472 False"  # the JOIN's message size: one frame


@needs_veth
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) drops the capability")
def test_without_cap_net_raw_the_error_says_so():
    code = (
        "import socket\nfrom p4reduce._native_worker import PacketRing\n"
        "try:\n    PacketRing(1, bytes(6), bytes(6), ('10.0.0.1', 1), ('10.0.0.2', 2), 1500)\n"
        "except PermissionError as e:\n    print(e)\n"
    )
    proc = subprocess.run(
        ["setpriv", "--inh-caps=-net_raw", "--bounding-set=-net_raw", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(
        "transport 'packet' needs CAP_NET_RAW (run as root or grant the capability): socket(AF_PACKET, SOCK_RAW):"
    )


@needs_veth
def test_a_ring_carries_a_flow_both_ways_and_counts_what_it_drops():
    """A UDP echo at the far end: datagrams out of the ring come back into it, in order;
    a datagram beyond the MTU is refused; a closed ring says so."""
    with _veth_pair() as (a, b):
        echo = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                b,
                sys.executable,
                "-c",
                "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                f"s.bind({PEER!r})\nprint('up', flush=True)\n"
                "while True:\n    d, src = s.recvfrom(65535)\n    s.sendto(d, src)\n",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert echo.stdout.readline().strip() == "up"
            out = _in_netns(
                a,
                f"""
import select, socket
from p4reduce._native_worker import PacketRing
from p4reduce.transport.packet import open_ring
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("0.0.0.0", 0)); sock.connect({PEER!r})
ring, route = open_ring(sock)
back = []
for i in range(300):
    assert ring.send(b"%d" % i + bytes(1400))
    while (got := ring.recv()) is None:
        select.select([ring], [], [], 1)
    back.append(int(got[0][:-1400]))
print(back == list(range(300)), ring.counters()["tx_frames"], ring.counters()["rx_frames"])
try:
    ring.send(bytes(1473))
except ValueError as e:
    print(e)
ring.close()
try:
    ring.recv()
except ValueError as e:
    print(e)
""",
            )
        finally:
            echo.kill()
            echo.wait()
    lines = out.splitlines()
    assert lines[0] == "True 300 300"
    assert lines[1] == "a 1473-byte datagram exceeds the 1472 bytes a 1500-byte MTU carries"
    assert lines[2] == "the packet ring is closed"


def test_drop_all_needs_a_socket():
    with pytest.raises(TypeError):
        drop_all("not a socket")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        drop_all(s)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as t:
            t.sendto(b"x", s.getsockname())
        assert select.select([s], [], [], 0.2)[0] == []


@contextlib.contextmanager
def _one_worker_aggregator(ns: str) -> Iterator[None]:
    """`p4reduce aggregator` at PEER in namespace `ns` serving job 1 (one worker, 64-value
    blocks, 16 slots), bound when this yields; its interface segments its GSO buffers, as
    a NIC does (a veth would carry one frame larger than the MTU, which a ring drops)."""
    _ip("-n", ns, "link", "set", "dev", "vb", "gso_max_segs", "1")
    agg = subprocess.Popen(
        ["ip", "netns", "exec", ns, sys.executable, "-m", "p4reduce", "aggregator"]
        + ["--bind", f"{PEER[0]}:{PEER[1]}", "--job", "1:1:block_size=64,num_slots=16"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        agg.stdout.readline()  # bound
        yield
    finally:
        agg.terminate()
        agg.wait()


@needs_veth
@pytest.mark.parametrize("spin_us", [0, 50])
def test_an_agent_allreduces_over_the_ring(spin_us):
    """A HostAgent with transport "packet" to a software aggregator across the veth pair:
    exact sums over several allreduces, the engine spinning on the ring or not; the JOIN
    announced one frame's worth (the aggregator's interface segments its GSO buffers, as a
    NIC does)."""
    with _veth_pair() as (a, b), _one_worker_aggregator(b):
        out = _in_netns(
            a,
            f"""
import numpy as np
from p4reduce.hostagent import HostAgent, WorkerConfig
cfg = WorkerConfig(1, 0, 1, aggregator={PEER!r}, block_size=64, num_slots=16, transport="packet",
                   spin_us={spin_us})
x = np.zeros(50_000, dtype=np.int32)
x[::7] = np.arange(x[::7].size)
with HostAgent(cfg) as agent:
    ok = all((agent.allreduce(x) == x).all() for _ in range(3))
    ring = agent._endpoints[0].ring.counters()
    print(ok, agent._endpoints[0].pack_up_to, ring["rx_refused"], ring["rx_oversize"], ring["rx_frames"] > 0)
""",
        )
    assert out.split() == ["True", "1472", "0", "0", "True"]


ROUTES = """Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
eth1\t00000000\tFE0062C0\t0003\t0\t0\t50\t00000000\t0\t0\t0
eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
eth1\t000062C0\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0
eth2\t000962C0\t00000000\t0000\t0\t0\t0\t00FFFFFF\t0\t0\t0
"""


@pytest.mark.parametrize(
    "peer, expected",
    [
        ("192.0.2.7", ("eth0", "192.0.2.7")),  # connected: the peer is the next hop
        ("192.98.3.4", ("eth1", "192.98.3.4")),  # the longest prefix
        ("192.98.9.4", ("eth1", "192.98.9.4")),  # (eth2's /24 is down)
        ("198.51.100.1", ("eth1", "192.98.0.254")),  # the default route of the lower metric
    ],
)
def test_the_route_is_the_main_tables_longest_match(monkeypatch, tmp_path, peer, expected):
    from p4reduce.transport import packet

    (tmp_path / "route").write_text(ROUTES)
    real_open = open
    monkeypatch.setattr(packet, "local_ip_towards", lambda address: "10.0.0.1")
    monkeypatch.setattr(
        "builtins.open", lambda path, *a, **k: real_open(tmp_path / "route" if path == "/proc/net/route" else path)
    )
    assert packet.kernel_route(peer) == expected


def test_a_local_route_is_refused():
    from p4reduce.transport.packet import kernel_route

    with pytest.raises(OSError, match="the route to 127.0.0.1 is local"):
        kernel_route("127.0.0.1")
