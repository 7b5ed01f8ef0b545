# SPDX-License-Identifier: Apache-2.0
"""The Wireshark dissector (p4reduce/wireshark/p4reduce.lua), run by tshark, against the Python
codec: every field of every golden packet, of every message type and error code, the value
tables and bit masks, malformed and random datagrams; `p4reduce wireshark-plugin`; and
`p4reduce worker --pcap` end to end (read back with p4reduce.testbed.pcap, decoded by tshark).

What the dissector must show is always derived from p4reduce.protocol's decoding of the same
bytes, never from the Lua file's own tables.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import pathlib
import random
import shutil
import socket
import struct
import subprocess
import sys

import numpy as np
import pytest
from conftest import GOLDEN_PATH, cli_aggregator

from p4reduce.cli.main import main
from p4reduce.protocol import (
    ALL_WORKERS,
    HEADER_LEN,
    MAC_LEN,
    MAX_SLOTS,
    NONE,
    OWNER_SHIFT,
    PROTOCOL_VERSION,
    VERSION_AUTH,
    AggHeader,
    ErrorCode,
    Flags,
    GeometryField,
    KeyMismatch,
    MalformedPacket,
    Mode,
    MsgType,
    decode_values,
    encode,
    is_repeat,
    scatter_flags,
)
from p4reduce.protocol.auth import JobKey
from p4reduce.protocol.framing import split_datagram
from p4reduce.testbed.capture import PACKET_OUTGOING, Reassembly, _bpf_program, frame_datagrams
from p4reduce.testbed.pcap import IPV4_HEADER, PcapWriter, ipv4_udp, read_udp
from p4reduce.testbed.synthetic import worker_tensor
from p4reduce.wireshark import PLUGIN_NAME, dissector_source

LUA = pathlib.Path(__file__).resolve().parents[1] / "p4reduce" / "wireshark" / PLUGIN_NAME
TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (Debian: apt-get install tshark)")
WORKER = ("10.0.0.1", 40000)
AGGREGATOR = ("10.0.0.2", 48864)  # the port the dissector registers: no Decode As needed
BYTES_FIELDS = {"values", "mac"}


# -- what the codec says a datagram holds --------------------------------------------------
def pieces(datagram: bytes) -> list[bytes]:
    """The datagram cut as receivers cut it: its whole packets, then what is left, if anything."""
    packets, tail = split_datagram(memoryview(datagram))
    return [bytes(p) for p in packets] + ([datagram[len(datagram) - tail :]] if tail else [])


def _meanings(h: AggHeader, packet: bytes) -> dict[str, int]:
    """What header fields stand for in JOIN/JOINED, ERROR and PENDING (docs/protocol.md 6.1, 6.2)."""
    if h.msg_type in (MsgType.JOIN, MsgType.JOINED, MsgType.CHALLENGE):
        meaning = {
            "incarnation": h.epoch,
            "block_size": h.block,
            "num_slots": h.next_block,
            "mode": h.exp,
            "num_workers": h.next_exp,
            "message_size": h.blocks,
        }
        if h.msg_type == MsgType.JOINED:
            meaning |= {"shard_index": h.fingerprint >> 16, "shard_count": h.fingerprint & 0xFFFF}
            if h.count == 1:  # as the host agent reads the group session
                meaning["group_session"] = int.from_bytes(packet[HEADER_LEN : HEADER_LEN + 4], "big")
        elif h.msg_type == MsgType.CHALLENGE or h.fingerprint:  # 6.3: the nonce, and a JOIN's answer to it
            meaning["nonce"] = h.fingerprint
        return meaning
    if h.msg_type == MsgType.ERROR:
        meaning = {"error_code": h.block, "detail": h.next_block}
        if h.block == ErrorCode.GEOMETRY:
            meaning["geometry_field"] = h.next_block
        elif h.block == ErrorCode.UPSTREAM:
            meaning["parent_error_code"] = h.next_block
        elif h.block == ErrorCode.KEY:
            meaning["key_mismatch"] = h.next_block
        return meaning
    if h.msg_type == MsgType.PENDING:
        return {"missing_workers": h.next_block}
    return {}


def codec_fields(piece: bytes) -> dict[str, list[object]]:
    """Every p4reduce field (name without `p4reduce.`) the dissector must show for one piece,
    with its values, or only the codec's MalformedPacket text for a piece that is no packet."""
    try:
        h = AggHeader.unpack(piece)
    except MalformedPacket as exc:
        return {"malformed": [str(exc)]}
    fields: dict[str, object] = dict(h._asdict())
    fields |= {
        "pool": h.pool,
        "auth": int(h.sealed),
        "owner": h.flags >> OWNER_SHIFT,
        # bit 0: OPENING on a DATA, OVERFLOW on the other types (docs/protocol.md 2)
        "flags.opening" if h.msg_type == MsgType.DATA else "flags.overflow": int(bool(h.flags & Flags.OPENING)),
        "flags.mismatch": int(bool(h.flags & Flags.MISMATCH)),
        "flags.scatter": int(bool(h.flags & Flags.SCATTER)),
    }
    if h.count:
        fields["values"] = piece[HEADER_LEN : HEADER_LEN + 4 * h.count]
        fields["value"] = decode_values(piece, h.count).tolist()
    if h.sealed:
        fields["mac"] = piece[-MAC_LEN:]
    fields |= _meanings(h, piece)
    return {name: value if isinstance(value, list) else [value] for name, value in fields.items()}


def fails_allreduce(piece: bytes) -> bool:
    """An ERROR, or a RESULT flagged MISMATCH or OVERFLOW (docs/protocol.md 5, 7)."""
    h = AggHeader.unpack(piece)
    return h.msg_type == MsgType.ERROR or (
        h.msg_type == MsgType.RESULT and bool(h.flags & (Flags.MISMATCH | Flags.OVERFLOW))
    )


# -- what tshark shows ---------------------------------------------------------------------
def tshark(*args: str, env: dict[str, str] | None = None, lua: bool = True) -> str:
    """tshark's stdout, with the dissector loaded (-G, which must come first, stays first);
    fails on any Lua error, at load time or while dissecting."""
    assert TSHARK is not None
    first = list(args[:2]) if args[0] == "-G" else []
    script = ["-X", f"lua_script:{LUA}"] if lua else []
    run = subprocess.run(
        [TSHARK, *first, *script, *args[len(first) :]], capture_output=True, text=True, timeout=300, env=env
    )
    assert run.returncode == 0, run.stderr
    # (-G fields lists the field Wireshark shows Lua errors in, so only dissections count.)
    for text in (run.stderr,) if first else (run.stdout, run.stderr):
        assert "Lua Error" not in text and "_ws.lua.error" not in text, text[-3000:]
    assert not [line for line in run.stderr.splitlines() if "Lua" in line], run.stderr
    return run.stdout


def _flatten(tree: dict[str, object], out: dict[str, list[str]]) -> dict[str, list[str]]:
    """Every field of a `tshark -T json` subtree, by name, in order ("_tree" items included)."""
    for name, value in tree.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                _flatten(item, out)
            else:
                out.setdefault(name, []).append(item)
    return out


@functools.cache
def _check_dissector_loads() -> None:
    protocols = {line.split("\t")[-1] for line in tshark("-G", "protocols").splitlines()}
    assert "p4reduce" in protocols, (
        f"tshark did not load {LUA}: built without Lua, or its init.lua keeps Lua plugins from "
        "running as root (run_user_scripts_when_superuser)"
    )


def dissect(pcap: pathlib.Path, *options: str) -> list[list[dict[str, list[str]]]]:
    """Per frame, the p4reduce trees tshark shows (one per piece of the datagram), flattened."""
    _check_dissector_loads()
    frames = json.loads(tshark("-r", str(pcap), "-T", "json", "--no-duplicate-keys", *options))
    shown = []
    for frame in frames:
        trees = frame["_source"]["layers"].get("p4reduce", [])
        shown.append([_flatten(t, {}) for t in (trees if isinstance(trees, list) else [trees])])
    return shown


def _value(name: str, text: str) -> object:
    if name in BYTES_FIELDS:
        return bytes.fromhex(text.replace(":", ""))
    try:
        return int(text, 0)
    except ValueError:
        return text


def assert_dissected(shown: list[dict[str, list[str]]], datagram: bytes, where: str) -> None:
    """tshark's trees for `datagram` show exactly what the codec decodes, piece by piece."""
    expected = pieces(datagram)
    assert len(shown) == len(expected), f"{where}: {len(shown)} trees for {len(expected)} pieces"
    for i, (tree, piece) in enumerate(zip(shown, expected, strict=True)):
        want = codec_fields(piece)
        experts = {name for name in tree if name.startswith("p4reduce.expert.")}
        if "malformed" in want:
            assert tree.get("p4reduce.malformed") == want["malformed"], f"{where} piece {i}"
            assert experts == {"p4reduce.expert.malformed"}, f"{where} piece {i}"
            continue
        got = {
            name.removeprefix("p4reduce."): [_value(name.removeprefix("p4reduce."), v) for v in values]
            for name, values in tree.items()
            if name.startswith("p4reduce.") and name not in experts
        }
        assert got == want, f"{where} piece {i}"
        assert experts == ({"p4reduce.expert.failed"} if fails_allreduce(piece) else set()), f"{where} piece {i}"


def write_pcap(path: pathlib.Path, datagrams: list[tuple[bytes, bool]]) -> pathlib.Path:
    """(payload, to the aggregator?) as datagrams between WORKER and AGGREGATOR."""
    with PcapWriter.create(path) as pcap:
        for i, (payload, request) in enumerate(datagrams):
            source, dest = (WORKER, AGGREGATOR) if request else (AGGREGATOR, WORKER)
            pcap.write_udp(source, dest, payload, 1_700_000_000 + i)
    return path


# -- the packets -------------------------------------------------------------------------
def golden_datagrams() -> list[tuple[bytes, bool]]:
    """Every golden payload (plain, reduce-scatter, authenticated), requests and answers."""
    golden = json.loads(GOLDEN_PATH.read_text())
    out = []
    for steps in (golden["steps"], golden["scatter"]["steps"], golden["authenticated"]["steps"]):
        for step in steps:
            out.append((bytes.fromhex(step["payload"]), True))
            out += [(bytes.fromhex(e["payload"]), False) for e in step["expect"]]
    return out


def other_datagrams() -> list[tuple[bytes, bool]]:
    """What the golden packets do not show: every message type and error code, a JOINED with
    a group session and a shard, a copy to a multicast group, OVERFLOW, a sealed PENDING."""
    base = AggHeader(
        MsgType.DATA, 1, 1, 3, 1, 7, 35, 67, 129, 130, session=0x5E551015, blocks=100, fingerprint=0x5FE15D87
    )
    values = np.arange(-3, 5, dtype=np.int32)
    out = [
        (encode(base._replace(msg_type=MsgType.QUERY, next_block=NONE)), True),
        (encode(base._replace(msg_type=MsgType.PENDING, next_block=0b1010_0101)), False),
        (encode(base._replace(msg_type=MsgType.RESET, slot=0, block=NONE)), True),
        (encode(base._replace(msg_type=MsgType.RESULT, worker_id=ALL_WORKERS, count=8), values), False),
        (encode(base._replace(msg_type=MsgType.RESULT, flags=Flags.OVERFLOW, count=8), values), False),
        (encode(base._replace(flags=scatter_flags(31), count=8), values), True),
        (JobKey(bytes(range(16))).seal(encode(base._replace(msg_type=MsgType.PENDING, next_block=1))), False),
    ]
    joined = AggHeader(
        MsgType.JOINED,
        job_id=1,
        worker_id=0,
        slot=0,
        shadow=0,
        epoch=0xA0A0A0A,
        block=32,
        next_block=32,
        exp=Mode.DENSE.code,
        next_exp=2,
        count=1,
        session=0x5E551015,
        blocks=65000,
        fingerprint=1 << 16 | 3,
    )
    out.append((encode(joined, np.array([-0x2000_0000], dtype=np.int32)), False))
    challenge = joined._replace(msg_type=MsgType.CHALLENGE, count=0, session=0, blocks=0, fingerprint=0xC4A11E96)
    out.append((JobKey(bytes(range(16))).seal(encode(challenge)), False))
    for code in ErrorCode:
        detail = {
            ErrorCode.GEOMETRY: GeometryField.MODE,
            ErrorCode.UPSTREAM: ErrorCode.TENSOR,
            ErrorCode.KEY: KeyMismatch.BAD_MAC,
        }.get(code, 1)
        out.append((encode(base._replace(msg_type=MsgType.ERROR, block=code, next_block=detail)), False))
    return out


_GOOD = encode(AggHeader(MsgType.DATA, 1, 0, 2, 0, 0, 2, NONE, count=2), np.array([1, -1], dtype=np.int32))
_SEALED = JobKey(bytes(16)).seal(_GOOD)


def malformed_datagrams() -> list[bytes]:
    """Datagrams that are no packets, or end with what is no packet."""
    good, sealed = _GOOD, _SEALED
    truncated = [good[:1], good[: HEADER_LEN - 1]]
    bad_length = [good[:HEADER_LEN], good[:-1], good + b"\x00", good[:22] + b"\xff\xff" + good[24:]]
    no_mac = [sealed[:-1], sealed[:-MAC_LEN], bytes([VERSION_AUTH | PROTOCOL_VERSION]) + good[1:]]
    tails = [good + good[:10], good + sealed + good[:HEADER_LEN] + b"\x00" * 4]
    bad_type = [good[:1] + bytes([t]) + good[2:] for t in (0, len(MsgType) + 1, 255)]
    # version 2 (the bootstrap round's), plain and sealed, among others
    bad_version = [bytes([v]) + good[1:] for v in (1, 2, 4, VERSION_AUTH | 1, VERSION_AUTH | 2, 0xFF)]
    return truncated + bad_length + no_mac + tails + bad_type + bad_version


def random_datagrams(seed: int = 20) -> list[bytes]:
    """Garbage, and packets with a few random bytes changed."""
    rng = random.Random(seed)
    out = [rng.randbytes(rng.randint(1, 300)) for _ in range(150)]
    for _ in range(150):
        corrupt = bytearray(rng.choice([_GOOD, _SEALED, _GOOD + _SEALED]))
        for _ in range(rng.randint(1, 3)):
            corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
        out.append(bytes(corrupt))
    return out


# -- the dissector ---------------------------------------------------------------------------
@needs_tshark
def test_every_golden_packet_and_message_type_decodes_as_the_codec_does(tmp_path):
    datagrams = golden_datagrams() + other_datagrams()
    headers = [AggHeader.unpack(payload) for payload, _ in datagrams]
    assert {h.msg_type for h in headers} == set(MsgType)
    assert {h.block for h in headers if h.msg_type == MsgType.ERROR} >= set(ErrorCode)
    assert any(h.sealed for h in headers) and any(h.count == 1 and h.msg_type == MsgType.JOINED for h in headers)
    shown = dissect(write_pcap(tmp_path / "golden.pcap", datagrams))
    assert len(shown) == len(datagrams)
    for i, (trees, (payload, _)) in enumerate(zip(shown, datagrams, strict=True)):
        assert_dissected(trees, payload, f"datagram {i} ({payload.hex()})")


@needs_tshark
def test_several_packets_in_one_datagram(tmp_path):
    golden = [payload for payload, _ in golden_datagrams()]
    datagram = b"".join(golden[:6]) + b"".join(p for p in golden if p[0] & VERSION_AUTH)
    (trees,) = dissect(write_pcap(tmp_path / "packed.pcap", [(datagram, True)]))
    assert len(trees) > 6
    assert_dissected(trees, datagram, "packed datagram")


@needs_tshark
def test_malformed_datagrams_are_marked_malformed_not_lua_errors(tmp_path):
    assert all(any("malformed" in codec_fields(p) for p in pieces(d)) for d in malformed_datagrams())
    datagrams = malformed_datagrams() + random_datagrams()
    shown = dissect(write_pcap(tmp_path / "malformed.pcap", [(d, True) for d in datagrams]))
    for i, (trees, datagram) in enumerate(zip(shown, datagrams, strict=True)):
        assert_dissected(trees, datagram, f"datagram {i} ({datagram.hex()})")


@needs_tshark
def test_any_port_by_heuristic_but_not_garbage(tmp_path):
    packet = next(payload for payload, _ in golden_datagrams() if AggHeader.unpack(payload).count)
    path = tmp_path / "ports.pcap"
    with PcapWriter.create(path) as pcap:
        pcap.write_udp(("10.0.0.1", 50123), ("10.0.0.2", 50124), packet)
        pcap.write_udp(("10.0.0.1", 50123), ("10.0.0.2", 50124), packet[:-1])
    decoded, garbage = dissect(path)
    assert_dissected(decoded, packet, "datagram on other ports")
    assert garbage == []


def info_column(pcap: pathlib.Path) -> list[str]:
    """The Info column of every frame."""
    _check_dissector_loads()
    return tshark("-r", str(pcap), "-T", "fields", "-e", "_ws.col.Info").splitlines()


@needs_tshark
def test_info_column_names_opening_rounds_repeats_and_old_versions(tmp_path):
    """An opening DATA says `opening`, a REPEAT says `REPEAT`, OVERFLOW only on what is not a
    DATA; a version 2 packet is malformed, naming its version and this one (as the codec does)."""
    golden = golden_datagrams()
    headers = [AggHeader.unpack(payload) for payload, _ in golden]
    opening = next(i for i, h in enumerate(headers) if h.msg_type == MsgType.DATA and h.flags & Flags.OPENING)
    data = next(i for i, h in enumerate(headers) if h.msg_type == MsgType.DATA and not h.flags & Flags.OPENING)
    repeat = next(i for i, h in enumerate(headers) if h.msg_type == MsgType.RESULT and is_repeat(h))
    result = next(i for i, h in enumerate(headers) if h.msg_type == MsgType.RESULT and not is_repeat(h))
    values = np.arange(8, dtype=np.int32)
    overflow = AggHeader(MsgType.RESULT, 1, 0, 3, 0, 7, 35, 67, 129, 130, flags=Flags.OVERFLOW, count=8)
    old = bytes([2]) + golden[opening][0][1:]
    old_sealed = bytes([VERSION_AUTH | 2]) + golden[opening][0][1:]
    datagrams = [golden[i] for i in (opening, data, repeat, result)]
    datagrams += [(encode(overflow, values), False), (old, True), (old_sealed, True)]
    info = info_column(write_pcap(tmp_path / "info.pcap", datagrams))
    assert len(info) == len(datagrams)
    h = headers[opening]
    assert info[0] == (
        f"DATA job {h.job_id} worker {h.worker_id} slot {h.slot} block {h.block} next {h.next_block} opening "
        f"count {h.count}"
    )
    assert "opening" not in info[1] and "REPEAT" not in info[1] and info[1].startswith("DATA ")
    h = headers[repeat]
    assert info[2] == f"RESULT job {h.job_id} worker {h.worker_id} slot {h.slot} block {h.block} next {h.block} REPEAT"
    assert "REPEAT" not in info[3] and "opening" not in info[3] and info[3].startswith("RESULT ")
    assert info[4] == "RESULT job 1 worker 0 slot 3 block 35 next 67 OVERFLOW count 8"
    with pytest.raises(MalformedPacket) as exc:
        AggHeader.unpack(old)
    assert str(exc.value) == f"bad_version: protocol version 2, this side speaks version {PROTOCOL_VERSION}"
    assert info[5] == info[6] == f"malformed: {exc.value}"


@needs_tshark
def test_value_tables_and_bit_masks_are_the_codecs():
    names: dict[str, dict[int, str]] = {}
    for line in tshark("-G", "values").splitlines():
        columns = line.split("\t")
        if columns[0] == "V" and columns[1].startswith("p4reduce."):
            names.setdefault(columns[1].removeprefix("p4reduce."), {})[int(columns[2])] = columns[3]
    assert names["msg_type"] == {t.value: t.name for t in MsgType}
    assert names["error_code"] == names["parent_error_code"] == {c.value: c.name for c in ErrorCode}
    assert names["geometry_field"] == {g.value: g.name for g in GeometryField}
    assert names["key_mismatch"] == {k.value: k.name for k in KeyMismatch}
    assert names["mode"] == {m.code: m.value for m in Mode}

    masks = {}
    for line in tshark("-G", "fields").splitlines():
        columns = line.split("\t")
        if columns[0] == "F" and columns[2].startswith("p4reduce."):
            masks[columns[2].removeprefix("p4reduce.")] = int(columns[6], 16)
    assert masks["auth"] == VERSION_AUTH
    assert masks["flags.overflow"] == Flags.OVERFLOW and masks["flags.mismatch"] == Flags.MISMATCH
    assert masks["flags.opening"] == Flags.OPENING
    assert masks["flags.scatter"] == Flags.SCATTER and masks["owner"] == 0xFF >> OWNER_SHIFT << OWNER_SHIFT
    pool = AggHeader(MsgType.DATA, 0, 0, 0, 0, 0, 0)
    assert masks["shadow"] == pool._replace(shadow=1).pool and masks["slot"] == pool._replace(slot=MAX_SLOTS - 1).pool
    # One name per concept: the codec's header fields and the scapy layer's are the dissector's.
    scapy_layer = pytest.importorskip("p4reduce.protocol.scapy_layer")
    scapy_names = {f.name for f in scapy_layer.P4Reduce.fields_desc} | {"value"}
    assert set(AggHeader._fields) | {"pool"} | scapy_names <= set(masks)


def test_scapy_layer_names_bit_0_and_repeats_as_the_dissector_does():
    """OPENING on a DATA, OVERFLOW on a RESULT, `opening` and `REPEAT` in the summary."""
    scapy_layer = pytest.importorskip("p4reduce.protocol.scapy_layer")
    seen = set()
    for payload, _ in golden_datagrams():
        h, pkt = AggHeader.unpack(payload), scapy_layer.P4Reduce(payload)
        opening = h.msg_type == MsgType.DATA and bool(h.flags & Flags.OPENING)
        assert ("OPENING" in pkt.flags, "OVERFLOW" in pkt.flags) == (opening, False)
        assert pkt.is_repeat() == (h.msg_type == MsgType.RESULT and is_repeat(h))
        assert ("opening" in pkt.summary(), "REPEAT" in pkt.summary()) == (opening, pkt.is_repeat())
        seen |= {name for name, shown in (("opening", opening), ("REPEAT", pkt.is_repeat())) if shown}
    assert seen == {"opening", "REPEAT"}
    overflow = scapy_layer.P4Reduce(msg_type=MsgType.RESULT, flags="OVERFLOW+SCATTER", owner=2)
    assert bytes(overflow)[5] == scatter_flags(2) | Flags.OVERFLOW
    assert scapy_layer.P4Reduce(bytes(overflow)).flags == overflow.flags
    opening = scapy_layer.P4Reduce(msg_type=MsgType.DATA, flags="OPENING")
    assert bytes(opening)[5] == Flags.OPENING and "OVERFLOW" not in scapy_layer.P4Reduce(bytes(opening)).flags


# -- p4reduce wireshark-plugin ---------------------------------------------------------------
def test_plugin_command_prints_the_shipped_dissector(capsys):
    assert main(["wireshark-plugin"]) == 0
    assert capsys.readouterr().out == LUA.read_text() == dissector_source()


def test_plugin_install_into_a_folder(tmp_path, capsys):
    assert main(["wireshark-plugin", "--install", "--dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{tmp_path / PLUGIN_NAME}\n"
    assert (tmp_path / PLUGIN_NAME).read_text() == LUA.read_text()
    assert [p.name for p in tmp_path.iterdir()] == [PLUGIN_NAME]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--install", "--dir", "/nonexistent/plugins"], "plugin folder /nonexistent/plugins does not exist"),
        (["--dir", "/tmp"], "--dir is only used with --install"),
    ],
)
def test_plugin_command_errors_are_one_line(argv, message, capsys):
    assert main(["wireshark-plugin", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_plugin_install_default_is_where_wireshark_looks(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["wireshark-plugin", "--install"]) == 0
    installed = pathlib.Path(capsys.readouterr().out.strip())
    assert installed == tmp_path / ".local" / "lib" / "wireshark" / "plugins" / PLUGIN_NAME
    assert installed.read_text() == LUA.read_text()
    if TSHARK is None:
        pytest.skip("tshark is not installed: where it looks for plugins is not checked")
    env = {**os.environ, "HOME": str(tmp_path)}
    folders = dict(line.split(":", 1) for line in tshark("-G", "folders", env=env, lua=False).splitlines())
    assert pathlib.Path(folders["Personal Lua Plugins"].strip()) == installed.parent
    protocols = {line.split("\t")[-1] for line in tshark("-G", "protocols", env=env, lua=False).splitlines()}
    assert "p4reduce" in protocols  # loaded from the folder it was installed into


# -- p4reduce worker --pcap --------------------------------------------------------------------
def test_worker_pcap_without_a_packet_socket_fails_before_sending(tmp_path, monkeypatch, capsys):
    """What a user without root sees (a packet socket is refused), on any machine."""
    real_socket = socket.socket

    def refuse_packet_sockets(family: int = -1, *args: object, **kwargs: object) -> socket.socket:
        if family == socket.AF_PACKET:
            raise PermissionError(1, "Operation not permitted")
        return real_socket(family, *args, **kwargs)  # type: ignore[arg-type]

    with real_socket(socket.AF_INET, socket.SOCK_DGRAM) as aggregator:
        aggregator.bind(("127.0.0.1", 0))
        monkeypatch.setattr(socket, "socket", refuse_packet_sockets)
        pcap = tmp_path / "run.pcap"
        argv = [
            "worker",
            "--aggregator",
            f"127.0.0.1:{aggregator.getsockname()[1]}",
            "--job",
            "1",
            "--rank",
            "0",
            "--workers",
            "2",
            "--elements",
            "100",
            "--pcap",
            str(pcap),
        ]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"--pcap {pcap}: capturing needs root" in err and len(err.strip().splitlines()) == 1, err
        assert not pcap.exists()
        aggregator.setblocking(False)
        with pytest.raises(BlockingIOError):  # no JOIN: nothing was sent
            aggregator.recv(1)


JOB, BLOCK, SLOTS, ELEMENTS, DENSITY, ITERATIONS = 5, 16, 8, 4000, 0.2, 2


@pytest.fixture(scope="module")
def worker_run(tmp_path_factory) -> dict[str, object]:
    """Two `p4reduce worker --pcap` processes and a local aggregator, int32 tensors (summed
    exactly), several packets per datagram; what each recorded and printed."""
    if os.geteuid() != 0:
        pytest.skip("p4reduce worker --pcap needs root (a packet socket)")
    out = tmp_path_factory.mktemp("pcap")
    with cli_aggregator("--job", f"{JOB}:2:block_size={BLOCK},num_slots={SLOTS}") as (_, endpoint):
        workers = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "p4reduce",
                    "worker",
                    "--aggregator",
                    endpoint,
                    "--job",
                    str(JOB),
                    "--rank",
                    str(r),
                    "--workers",
                    "2",
                    "--elements",
                    str(ELEMENTS),
                    "--density",
                    str(DENSITY),
                    "--dtype",
                    "int32",
                    "--block-size",
                    str(BLOCK),
                    "--slots",
                    str(SLOTS),
                    "--iterations",
                    str(ITERATIONS),
                    "--pcap",
                    str(out / f"r{r}.pcap"),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for r in range(2)
        ]
        printed = [w.communicate(timeout=120) for w in workers]
    for w, (_, err) in zip(workers, printed, strict=True):
        assert w.returncode == 0, err
    host, port = endpoint.rsplit(":", 1)
    return {"aggregator": (host, int(port)), "pcaps": [out / f"r{r}.pcap" for r in range(2)], "printed": printed}


def _blocks(tensor: np.ndarray) -> np.ndarray:
    padded = np.zeros(-(-len(tensor) // BLOCK) * BLOCK, dtype=np.int32)
    padded[: len(tensor)] = tensor
    return padded.reshape(-1, BLOCK)


TENSORS = [_blocks(worker_tensor(0, r, ELEMENTS, BLOCK, DENSITY, "int32")) for r in range(2)]
SUM = TENSORS[0] + TENSORS[1]


def test_worker_pcap_records_what_the_run_sent_and_received(worker_run):
    aggregator = worker_run["aggregator"]
    for rank, (pcap, (stdout, stderr)) in enumerate(zip(worker_run["pcaps"], worker_run["printed"], strict=True)):
        records = list(read_udp(pcap))
        assert f"{len(records)} datagrams recorded" in stderr and "incomplete" not in stderr, stderr
        ends = {r.dest if r.source == aggregator else r.source for r in records}
        assert len(ends) == 1 and all(aggregator in (r.source, r.dest) for r in records), ends
        sent, received = [], []
        for record in records:
            packets, tail = split_datagram(memoryview(record.payload))
            assert tail == 0 and packets
            side = sent if record.source != aggregator else received
            side += [(AggHeader.unpack(p), bytes(p)) for p in packets]
        # Everything the worker says it sent (its JOIN included), nothing else.
        stats = [json.loads(line) for line in stdout.splitlines()]
        assert len(sent) == sum(s["packets_sent"] for s in stats)
        # (QUERY and PENDING only where a round timed out on a loaded machine.)
        assert (
            {MsgType.JOIN, MsgType.DATA} <= {h.msg_type for h, _ in sent} <= {MsgType.JOIN, MsgType.DATA, MsgType.QUERY}
        )
        assert (
            {MsgType.JOINED, MsgType.RESULT}
            <= {h.msg_type for h, _ in received}
            <= {MsgType.JOINED, MsgType.RESULT, MsgType.PENDING}
        )
        for h, packet in sent:
            if h.msg_type == MsgType.DATA and h.count:
                assert (decode_values(packet, h.count) == TENSORS[rank][h.block]).all()
        # Every allreduce's sum of every block some worker holds, and only those, came back.
        nonzero = set(np.flatnonzero(TENSORS[0].any(axis=1) | TENSORS[1].any(axis=1)))
        for epoch in range(ITERATIONS):
            results = [(h, p) for h, p in received if h.msg_type == MsgType.RESULT and h.epoch == epoch and h.count]
            assert {h.block for h, _ in results} == nonzero
            for h, packet in results:
                assert (decode_values(packet, h.count) == SUM[h.block]).all()


@needs_tshark
def test_tshark_decodes_a_worker_capture_and_its_result_sums(worker_run):
    port = worker_run["aggregator"][1]
    for pcap in worker_run["pcaps"]:
        records = list(read_udp(pcap))
        # The aggregator's port is an ephemeral one: Decode As, and the heuristic before any
        # dissector registered for the worker's ephemeral port.
        shown = dissect(pcap, "-d", f"udp.port=={port},p4reduce", "-o", "udp.try_heuristic_first:TRUE")
        assert len(shown) == len(records)
        sums = 0
        for i, (trees, record) in enumerate(zip(shown, records, strict=True)):
            assert_dissected(trees, record.payload, f"{pcap.name} frame {i + 1}")
            for tree in trees:
                if int(tree["p4reduce.msg_type"][0]) == MsgType.RESULT and int(tree["p4reduce.count"][0]):
                    block = int(tree["p4reduce.block"][0])
                    assert [int(v) for v in tree["p4reduce.value"]] == SUM[block].tolist()
                    sums += 1
        assert sums >= ITERATIONS


# -- the pcap files and the capture's pieces, without root or tshark ------------------------
def test_pcap_round_trip(tmp_path):
    datagrams = [
        (("10.0.0.1", 40000), ("10.0.0.2", 48864), b"", 1.5),
        (("192.168.7.3", 1), ("239.1.2.3", 65535), bytes(range(256)) * 4, 1_700_000_000.000001),
        (("127.0.0.1", 5), ("127.0.0.1", 6), b"\xff" * 65507, 2**31 + 0.25),
    ]
    with PcapWriter.create(tmp_path / "a.pcap") as pcap:
        for source, dest, payload, stamp in datagrams:
            pcap.write_udp(source, dest, payload, stamp)
    records = list(read_udp(tmp_path / "a.pcap"))
    assert [(r.source, r.dest, r.payload) for r in records] == [d[:3] for d in datagrams]
    assert [round(r.timestamp, 6) for r in records] == [d[3] for d in datagrams]
    header = ipv4_udp(*datagrams[1][:3])[: IPV4_HEADER.size]
    words = sum(struct.unpack("!10H", header))
    assert (words & 0xFFFF) + (words >> 16) == 0xFFFF  # a valid IPv4 header checksum
    with pytest.raises(ValueError, match="does not fit"):
        ipv4_udp(datagrams[0][0], datagrams[0][1], bytes(65508))


def test_pcap_reader_names_what_is_wrong(tmp_path):
    with PcapWriter.create(tmp_path / "good.pcap") as pcap:
        pcap.write_udp(WORKER, AGGREGATOR, b"payload")
    good = (tmp_path / "good.pcap").read_bytes()
    cases = {
        "short": (good[:10], "not a pcap file"),
        "pcapng": (b"\x0a\x0d\x0d\x0a" + good[4:], "not a classic"),
        "ethernet": (good[:20] + (1).to_bytes(4, "little") + good[24:], "link type 1"),
        "cut": (good[:-1], "record 0 is cut short"),
        "header": (good + b"\x00" * 5, "inside the header"),
    }
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError, match=message) as exc:
            list(read_udp(tmp_path / name))
        assert str(tmp_path / name) in str(exc.value)


def _frame(ip: bytes, gso_size: int = 0) -> bytes:
    """What a packet socket with PACKET_VNET_HDR reads from an Ethernet interface."""
    vnet = struct.pack("=BBHHHH", 0, 5 if gso_size else 0, 0, gso_size, 0, 0)
    return vnet + bytes(12) + b"\x08\x00" + ip


def test_capture_splits_gso_batches_and_joins_fragments():
    incoming, outgoing_lo = ("eth0", 0x0800, 0, 1, b""), ("lo", 0x0800, PACKET_OUTGOING, 772, b"")
    payloads = [bytes([i]) * 100 for i in range(3)]
    batch = _frame(ipv4_udp(WORKER, AGGREGATOR, b"".join(payloads) + b"\x09" * 40), gso_size=100)
    got = list(frame_datagrams(batch, incoming, Reassembly()))
    assert got == [(WORKER, AGGREGATOR, p) for p in [*payloads, b"\x09" * 40]]
    assert list(frame_datagrams(batch, outgoing_lo, Reassembly())) == []  # its arrival is kept
    whole = ipv4_udp(WORKER, AGGREGATOR, bytes(range(100)), ident=7)
    head = bytearray(whole[:20])

    def fragment(offset: int, more: bool, body: bytes) -> bytes:
        struct.pack_into("!H", head, 2, 20 + len(body))  # total length
        struct.pack_into("!H", head, 6, (0x2000 if more else 0) | offset // 8)  # MF, offset in 8 bytes
        return _frame(bytes(head) + body)

    fragments = Reassembly()
    assert list(frame_datagrams(fragment(48, False, whole[68:]), incoming, fragments)) == []
    assert list(frame_datagrams(fragment(0, True, whole[20:68]), incoming, fragments)) == [
        (WORKER, AGGREGATOR, bytes(range(100)))
    ]


def test_capture_filter_passes_only_the_ports_named():
    """The kernel runs the capture's BPF program on any socket: here a UDP socket's."""

    def received(ports: list[int]) -> list[bytes]:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx:
            rx.bind(("127.0.0.1", 0))
            program = _bpf_program([rx.getsockname()[1] if p == 0 else p for p in ports])
            code = ctypes.create_string_buffer(program)
            rx.setsockopt(socket.SOL_SOCKET, 26, struct.pack("HL", len(program) // 8, ctypes.addressof(code)))
            for sender in senders:
                sender.sendto(b"from %d" % sender.getsockname()[1], rx.getsockname())
            rx.settimeout(0.2)
            out = []
            with contextlib.suppress(TimeoutError):
                while True:
                    out.append(rx.recv(100))
            return out

    senders = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
    try:
        for s in senders:
            s.bind(("127.0.0.1", 0))
        first, second = (b"from %d" % s.getsockname()[1] for s in senders)
        assert received([senders[0].getsockname()[1]]) == [first]  # a source port
        assert received([0]) == [first, second]  # the destination port
        assert received([]) == []
    finally:
        for s in senders:
            s.close()
