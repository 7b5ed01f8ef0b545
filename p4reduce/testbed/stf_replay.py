# SPDX-License-Identifier: Apache-2.0
"""Replaying an STF test (`p4reduce.testbed.stf`) against the switch model.

`replay(test)` loads the test's entries, defaults, multicast groups and register writes
into a fresh `SwitchModel`, sends its packets in order and compares what leaves with
the test's expectations as p4c's BMv2 STF runner does: per port, the expected packets
in order, `*` nibbles match anything, a pattern without a final `$` may be followed by
more bytes, `expect <port>` alone accepts any packets there, and a port without any
`expect` must stay silent (no `expect` at all: the packet is dropped). The outcome
names every difference readably (port, packet, the first differing nibble and the
header field it falls in).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

from p4reduce.protocol.codec import AGG_UDP_PORT, HEADER_LEN
from p4reduce.testbed.ptf_tests import PtfCase
from p4reduce.testbed.stf import KeyMatch, StfError, StfExpect, StfPacket, StfTest
from p4reduce.testbed.switch_model import SwitchModel
from p4reduce.testbed.tna_model import TnaSwitchModel, is_recirculation_port

# Where the fields of an aggregation frame lie (Ethernet, IPv4 without options, UDP,
# aggregation header, values): (first byte, name), in order.
_ETH_IP_UDP = (
    (0, "ethernet.dst_addr"),
    (6, "ethernet.src_addr"),
    (12, "ethernet.ether_type"),
    (14, "ipv4.version/ihl"),
    (15, "ipv4.diffserv"),
    (16, "ipv4.total_len"),
    (18, "ipv4.identification"),
    (20, "ipv4.flags/frag_offset"),
    (22, "ipv4.ttl"),
    (23, "ipv4.protocol"),
    (24, "ipv4.hdr_checksum"),
    (26, "ipv4.src_addr"),
    (30, "ipv4.dst_addr"),
    (34, "udp.src_port"),
    (36, "udp.dst_port"),
    (38, "udp.length"),
    (40, "udp.checksum"),
)
_AGG = tuple(
    (42 + offset, f"agg.{name}")
    for offset, name in (
        (0, "version"),
        (1, "msg_type"),
        (2, "job_id"),
        (4, "worker_id"),
        (5, "flags"),
        (6, "pool (shadow, slot)"),
        (8, "epoch"),
        (12, "block"),
        (16, "next_block"),
        (20, "exp"),
        (21, "next_exp"),
        (22, "count"),
        (24, "session"),
        (28, "blocks"),
        (32, "fingerprint"),
    )
)
_VALUES_START = 42 + HEADER_LEN


class ReplayError(StfError):
    """A test the model cannot be set up with (an unknown table, action or register, a
    value too wide, a key the table does not match that way)."""


@dataclass(frozen=True)
class Outcome:
    """What the model did with a test: every frame that left, and the differences from
    the test's expectations (none: passed). `model` holds the state afterwards."""

    test: StfTest
    outputs: tuple[tuple[int, bytes], ...]
    differences: tuple[str, ...]
    model: StfModel = field(repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return not self.differences

    def report(self) -> str:
        if self.passed:
            return f"{self.test.name}: as expected ({len(self.outputs)} packet(s) out)"
        lines = [f"{self.test.name}: {len(self.differences)} difference(s)"]
        lines += [f"  {d}" for d in self.differences]
        lines += [f"  out on port {port}: {frame.hex().upper()}" for port, frame in self.outputs]
        return "\n".join(lines)


class StfModel(Protocol):
    """What a replay needs of a switch model (SwitchModel, TnaSwitchModel)."""

    def add_entry(
        self, table: str, key: Mapping[str, int], action: str, params: Mapping[str, int] | None = None
    ) -> None: ...

    def process(self, ingress_port: int, frame: bytes) -> list[tuple[int, bytes]]: ...


def replay(test: StfTest, model_factory: Callable[[], StfModel] = SwitchModel) -> Outcome:
    """`test` against a fresh model from `model_factory`: the v1model program's model by
    default, `TnaSwitchModel` for the TNA program's tests."""
    model = model_factory()
    load_test(model, test)
    return _run(test, model, lambda packet: model.process(packet.port, packet.data))


def replay_ptf(case: PtfCase) -> Outcome:
    """A test of p4testgen's Tofino PTF backend on a fresh TNA model: its register cells,
    then as `replay`. p4testgen sends a harvest pass straight into a recirculation port."""
    model = TnaSwitchModel()
    for cell in case.registers:
        with _setting_up(f"setRegisterValue {cell.register}[{cell.index}]", None):
            model.register_write(cell.register, cell.index, dict(cell.fields))
    load_test(model, case.test)
    return _run(
        case.test,
        model,
        lambda packet: model.process(packet.port, packet.data, harvest=is_recirculation_port(packet.port)),
    )


def _run(test: StfTest, model: StfModel, send: Callable[[StfPacket], list[tuple[int, bytes]]]) -> Outcome:
    """The test's packets through `send`, in order, compared with its expectations."""
    outputs = [out for packet in test.packets for out in send(packet)]
    return Outcome(test, tuple(outputs), tuple(compare(test.expects, outputs)), model)


def load_test(model: StfModel, test: StfTest) -> None:
    """The test's control-plane state into `model`. Mirroring sessions are ignored: the
    program clones nothing, so no packet can reach one. What only the v1model program's
    model takes (BMv2's multicast groups and scalar register cells, default actions: the
    TNA program's are const) is a ReplayError for another model."""
    v1model = isinstance(model, SwitchModel)
    for group, replicas in test.multicast_groups:
        with _setting_up(f"multicast group {group}", None):
            _v1model_only(v1model, "a BMv2 multicast group (mc_mgrp_create)")
            model.add_multicast_group(group, replicas)  # type: ignore[attr-defined]
    for d in test.defaults:
        with _setting_up("setdefault", d.line):
            _v1model_only(v1model, f"a default action for {d.table}")
            model.set_default(d.table, d.action, dict(d.params))  # type: ignore[attr-defined]
    for e in test.entries:
        with _setting_up("add", e.line):
            model.add_entry(e.table, {name: _exact(key, name) for name, key in e.match}, e.action, dict(e.params))
    for r in test.registers:
        with _setting_up("register_write", r.line):
            _v1model_only(v1model, f"a scalar cell of {r.register}")
            model.register_write(r.register, r.index, r.value)  # type: ignore[attr-defined]


def _v1model_only(v1model: bool, what: str) -> None:
    if not v1model:
        raise ValueError(f"{what}: only the v1model program's model takes it")


@contextmanager
def _setting_up(what: str, line: int | None) -> Iterator[None]:
    try:
        yield
    except (KeyError, ValueError, IndexError) as exc:
        raise ReplayError(f"{what}: {exc.args[0] if exc.args else exc}", line) from None


def _exact(key: KeyMatch, name: str) -> int:
    if key.kind != "exact":
        raise ValueError(f"key {name} is {key.kind}; the program's tables all match exactly")
    return key.value


def compare(expects: Sequence[StfExpect], outputs: Sequence[tuple[int, bytes]]) -> list[str]:
    """The differences between `outputs` and `expects` (per port, in order), readable."""
    got: dict[int, list[bytes]] = defaultdict(list)
    for port, frame in outputs:
        got[port].append(frame)
    want: dict[int, list[StfExpect]] = defaultdict(list)
    for e in expects:
        want[e.port].append(e)
    differences = []
    for port in sorted(set(got) | set(want)):
        patterns = [e for e in want[port] if e.pattern is not None]
        if len(patterns) < len(want[port]):
            continue  # `expect <port>` alone: any packets there
        frames = got[port]
        if len(frames) != len(patterns):
            differences.append(_count_difference(port, patterns, frames))
        for n, (e, frame) in enumerate(zip(patterns, frames, strict=False)):
            nibble = e.first_difference(frame)
            if nibble is not None:
                differences.append(_frame_difference(port, n, e, frame, nibble))
    return differences


def _count_difference(port: int, patterns: list[StfExpect], frames: list[bytes]) -> str:
    lines = ", ".join(str(e.line) for e in patterns)
    expected = f"{len(patterns)} packet(s) (expect on line {lines})" if patterns else "no packet"
    got = f"{len(frames)}" if frames else "none: dropped"
    return f"port {port}: expected {expected}, got {got}"


def _frame_difference(port: int, n: int, e: StfExpect, frame: bytes, nibble: int) -> str:
    assert e.pattern is not None
    got = frame.hex().upper()
    where = f"port {port}, packet {n} (expect on line {e.line})"
    if nibble >= len(got):
        return f"{where}: {len(frame)} bytes, shorter than the expected {len(e.pattern) // 2}"
    if nibble >= len(e.pattern):
        return f"{where}: {len(frame)} bytes, longer than the expected {len(e.pattern) // 2} ($)"
    byte = nibble // 2
    window = slice(nibble - nibble % 8, nibble - nibble % 8 + 8)
    return (
        f"{where}: byte {byte} ({field_at(frame, byte)}) differs at nibble {nibble}: "
        f"expected {e.pattern[window]}, got {got[window]}"
    )


def field_at(frame: bytes, byte: int) -> str:
    """The header field that byte `byte` of a frame falls in, as far as the frame is
    Ethernet, IPv4 without options, UDP, and an aggregation packet (to or from 48864)."""
    layout = list(_ETH_IP_UDP[:3])
    if frame[12:14] == b"\x08\x00" and frame[14:15] == b"\x45":
        layout = list(_ETH_IP_UDP[:13])
        if frame[23:24] == b"\x11":
            layout = list(_ETH_IP_UDP)
            if AGG_UDP_PORT in (_u16(frame, 34), _u16(frame, 36)):
                if byte >= _VALUES_START:
                    return f"value {(byte - _VALUES_START) // 4}"
                layout += _AGG
    end = layout[-1][0] + {"udp.checksum": 2, "ipv4.dst_addr": 4, "ethernet.ether_type": 2}.get(layout[-1][1], 4)
    if byte >= end:
        return "payload"
    return next(name for start, name in reversed(layout) if byte >= start)


def _u16(frame: bytes, at: int) -> int:
    return int.from_bytes(frame[at : at + 2], "big")
