# SPDX-License-Identifier: Apache-2.0
"""A parser of STF test files as p4testgen's BMv2 and Tofino STF backends write them.

One file is one test: table entries (and default actions), one packet on an ingress
port, and the packet expected on an egress port (none: the switch drops it). What
p4testgen's template writes (p4c backends/p4tools/modules/testgen/targets/*/test_backend/stf.cpp):

    # p4testgen seed: 1234                      (or 'none', possibly quoted)
    # Date generated: ...
    # Current node coverage: 0.42               (older releases: statement coverage)
    # Traces
    # ...
    # Table P4ReduceIngress.forwarding.l2
    add "<table>" [<priority>] "<key field>":<value> ... "<action>"("<param>":<value>,...)
    setdefault "<table>" "<action>"("<param>":<value>,...)
    packet 1 0200000000020200000000010800...
    expect 2 020000000002****0000000108$

Names may be quoted or not; values are decimal, 0x hex, 0b binary or 0o octal. A
ternary key is `0b01**1` or `0x1*` (p4testgen: `*` for a masked-off digit) or BMv2
STF's `value&&&mask`; an LPM key `value/prefix_len`; a table with a ternary key puts
a priority before the keys. `expect` data is hex nibbles, `*` for any nibble, and a
final `$` when the frame must end there (else it may be longer, as p4c's bmv2stf.py
compares); `expect <port>` without data accepts any packets on that port. Spaces
inside packet data are ignored, and so is everything after a `#`.

Beyond what p4testgen writes, the hand-written cases of BMv2's STF runner are taken
too: several `packet` lines (processed in order; expectations are matched per port,
in order), `wait` (nothing to wait for in a model), `mirroring_add <session> <port>`,
`register_write <register> <index> <value>`, and the multicast commands of BMv2's CLI
(`mc_mgrp_create <mgid>`, `mc_node_create <rid> <port>...` whose handles count from
0, `mc_node_associate <mgid> <handle>`), which p4testgen's v1model STF does not write
but a program that multicasts needs. Any other command is refused with StfError,
naming the line.
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

_SEED = re.compile(r"p4testgen seed:\s*'?\"?(\w+)")
# the coverage line of p4testgen's tests (STF comments, PTF docstrings and comments)
COVERAGE_LINE = re.compile(r"Current (?:statement |node )?coverage:\s*([0-9.eE+-]+)")
_ACTION = re.compile(r"(?P<head>.*?)\s*(?P<action>\"[^\"]+\"|[^\s\"(]+)\s*\((?P<args>.*)\)\s*$")


class StfError(ValueError):
    """An STF file that cannot be parsed, or a command this parser does not know."""

    def __init__(self, message: str, line: int | None = None, text: str = "") -> None:
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}{message}" + (f" ({text.strip()!r})" if text else ""))
        self.line = line


@dataclass(frozen=True)
class KeyMatch:
    """A key field's value in an entry: exact (`mask` None, `prefix_len` None), ternary
    (`mask`: the bits that must match) or LPM (`prefix_len`)."""

    value: int
    mask: int | None = None
    prefix_len: int | None = None

    @property
    def kind(self) -> str:
        if self.mask is not None:
            return "ternary"
        return "exact" if self.prefix_len is None else "lpm"


@dataclass(frozen=True)
class StfEntry:
    table: str
    match: tuple[tuple[str, KeyMatch], ...]  # in the file's order
    action: str
    params: tuple[tuple[str, int], ...]
    priority: int | None = None
    line: int = 0


@dataclass(frozen=True)
class StfDefault:
    table: str
    action: str
    params: tuple[tuple[str, int], ...]
    line: int = 0


@dataclass(frozen=True)
class StfRegisterWrite:
    register: str
    index: int
    value: int
    line: int = 0


@dataclass(frozen=True)
class StfPacket:
    port: int
    data: bytes
    line: int = 0


@dataclass(frozen=True)
class StfExpect:
    """A packet expected on `port`: `pattern` is upper-case hex nibbles with `*` for any
    nibble (None: any packets on the port); `exact_length`: the frame ends with it."""

    port: int
    pattern: str | None
    exact_length: bool = False
    line: int = 0

    def first_difference(self, frame: bytes) -> int | None:
        """The first nibble of `frame` that breaks the pattern (len(pattern) when the
        frame is too short, its length when it is too long), or None when it matches."""
        if self.pattern is None:
            return None
        got = frame.hex().upper()
        for i, want in enumerate(self.pattern):
            if i >= len(got):
                return i
            if want != "*" and want != got[i]:
                return i
        if self.exact_length and len(got) != len(self.pattern):
            return len(self.pattern)
        return None

    def matches(self, frame: bytes) -> bool:
        return self.first_difference(frame) is None


@dataclass(frozen=True)
class StfTest:
    """One STF file. `packet` and `expected` are the single packet and expectation of a
    p4testgen test; `packets`/`expects` hold all of them (hand-written files may have
    several)."""

    name: str
    entries: tuple[StfEntry, ...] = ()
    defaults: tuple[StfDefault, ...] = ()
    registers: tuple[StfRegisterWrite, ...] = ()
    multicast_groups: tuple[tuple[int, tuple[tuple[int, int], ...]], ...] = ()  # (mgid, ((port, rid), ...))
    mirroring: tuple[tuple[int, int], ...] = ()  # (session, port)
    packets: tuple[StfPacket, ...] = ()
    expects: tuple[StfExpect, ...] = ()
    seed: int | None = None
    coverage: float | None = None
    comments: tuple[str, ...] = field(default=(), repr=False)

    @property
    def packet(self) -> StfPacket:
        if len(self.packets) != 1:
            raise StfError(f"{self.name}: {len(self.packets)} packets, not one")
        return self.packets[0]

    @property
    def expected(self) -> StfExpect | None:
        """The one expected packet, or None when the packet is to be dropped."""
        if len(self.expects) > 1:
            raise StfError(f"{self.name}: {len(self.expects)} expected packets, not at most one")
        return self.expects[0] if self.expects else None


def load_stf(path: str | pathlib.Path) -> StfTest:
    path = pathlib.Path(path)
    return parse_stf(path.read_text(), name=path.name)


def parse_stf(text: str, name: str = "<stf>") -> StfTest:
    return _Parser(name).parse(text)


def parse_int(text: str) -> int:
    """A decimal, 0x, 0b or 0o integer (p4testgen pads hex to the field's width)."""
    try:
        return int(text.replace("_", ""), 0) if text[:2].lower() in ("0x", "0b", "0o") else int(text, 10)
    except ValueError:
        raise ValueError(f"not an integer: {text!r}") from None


_DIGIT_BITS = {"0x": 4, "0b": 1, "0o": 3}


def parse_key(text: str) -> KeyMatch:
    """An entry's key value: exact, ternary (`*` digits or `value&&&mask`) or LPM (`value/len`)."""
    if "&&&" in text:
        value_text, mask_text = text.split("&&&", 1)
        return KeyMatch(parse_int(value_text), mask=parse_int(mask_text))
    if "/" in text:
        value_text, prefix_text = text.split("/", 1)
        return KeyMatch(parse_int(value_text), prefix_len=parse_int(prefix_text))
    if "*" not in text:
        return KeyMatch(parse_int(text))
    base = _DIGIT_BITS.get(text[:2].lower())
    if base is None:
        raise ValueError(f"a wildcard needs a 0x, 0b or 0o value: {text!r}")
    digits = text[2:].replace("_", "")
    value = mask = 0
    for d in digits:
        value <<= base
        mask <<= base
        if d != "*":
            value |= int(d, 1 << base)
            mask |= (1 << base) - 1
    return KeyMatch(value, mask=mask)


def _unquote(text: str) -> str:
    text = text.strip()
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def _pairs(text: str) -> list[tuple[str, str]]:
    """`"a":1, b:0x2` -> [("a", "1"), ("b", "0x2")]."""
    out = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.rpartition(":")
        if not sep:
            raise ValueError(f"expected name:value, got {item!r}")
        out.append((_unquote(name), value.strip()))
    return out


class _Parser:
    def __init__(self, name: str) -> None:
        self.name = name
        self.entries: list[StfEntry] = []
        self.defaults: list[StfDefault] = []
        self.registers: list[StfRegisterWrite] = []
        self.groups: dict[int, list[tuple[int, int]]] = {}
        self.nodes: list[tuple[int, tuple[int, ...]]] = []  # BMv2 multicast nodes: (rid, ports) by handle
        self.mirroring: list[tuple[int, int]] = []
        self.packets: list[StfPacket] = []
        self.expects: list[StfExpect] = []
        self.comments: list[str] = []
        self.seed: int | None = None
        self.coverage: float | None = None

    def parse(self, text: str) -> StfTest:
        for number, raw in enumerate(text.splitlines(), start=1):
            command, hashmark, comment = raw.partition("#")
            if hashmark:
                self._comment(comment.strip())
            command = command.strip()
            if not command:
                continue
            verb, _, rest = command.partition(" ")
            handler = self._COMMANDS.get(verb)
            if handler is None:
                raise StfError(f"{self.name}: unknown STF command {verb!r}", number, raw)
            try:
                handler(self, rest.strip(), number)
            except (ValueError, IndexError, KeyError) as exc:
                if isinstance(exc, StfError):
                    raise
                raise StfError(f"{self.name}: bad {verb} command: {exc}", number, raw) from None
        return StfTest(
            name=self.name,
            entries=tuple(self.entries),
            defaults=tuple(self.defaults),
            registers=tuple(self.registers),
            multicast_groups=tuple((mgid, tuple(reps)) for mgid, reps in self.groups.items()),
            mirroring=tuple(self.mirroring),
            packets=tuple(self.packets),
            expects=tuple(self.expects),
            seed=self.seed,
            coverage=self.coverage,
            comments=tuple(self.comments),
        )

    def _comment(self, comment: str) -> None:
        self.comments.append(comment)
        seed = _SEED.search(comment)
        if seed and seed.group(1) != "none":
            self.seed = int(seed.group(1))
        coverage = COVERAGE_LINE.search(comment)
        if coverage:
            self.coverage = float(coverage.group(1))

    @staticmethod
    def _action(rest: str) -> tuple[str, str, tuple[tuple[str, int], ...]]:
        """(what comes before the action, action name, parameters) of `... action(p:v, ...)`."""
        m = _ACTION.match(rest)
        if m is None:
            raise ValueError("no action(...) at the end")
        params = tuple((k, parse_int(v)) for k, v in _pairs(m["args"]))
        return m["head"], _unquote(m["action"]), params

    def _add(self, rest: str, line: int) -> None:
        head, action, params = self._action(rest)
        words = head.split()
        if not words:
            raise ValueError("no table name")
        table, words = _unquote(words[0]), words[1:]
        priority = None
        if words and words[0].isdigit():
            priority, words = int(words[0]), words[1:]
        match = []
        for word in words:
            key, sep, value = word.rpartition(":")
            if not sep:
                raise ValueError(f"key {word!r} is not field:value")
            match.append((_unquote(key), parse_key(value)))
        self.entries.append(StfEntry(table, tuple(match), action, params, priority, line))

    def _setdefault(self, rest: str, line: int) -> None:
        head, action, params = self._action(rest)
        if len(head.split()) != 1:
            raise ValueError("setdefault <table> <action>(...)")
        self.defaults.append(StfDefault(_unquote(head), action, params, line))

    def _packet(self, rest: str, line: int) -> None:
        port, _, data = rest.partition(" ")
        hexdata = "".join(data.split())
        if len(hexdata) % 2:
            raise ValueError(f"odd number of hex digits ({len(hexdata)})")
        self.packets.append(StfPacket(parse_int(port), bytes.fromhex(hexdata), line))

    def _expect(self, rest: str, line: int) -> None:
        port, _, data = rest.partition(" ")
        pattern = "".join(data.split()).upper()
        exact = pattern.endswith("$")
        pattern = pattern.rstrip("$")
        if re.fullmatch(r"[0-9A-F*]*", pattern) is None:
            raise ValueError(f"expected hex digits and '*', got {pattern!r}")
        self.expects.append(StfExpect(parse_int(port), pattern or None, exact and bool(pattern), line))

    def _register_write(self, rest: str, line: int) -> None:
        register, index, value = rest.split()
        self.registers.append(StfRegisterWrite(_unquote(register), parse_int(index), parse_int(value), line))

    def _mirroring_add(self, rest: str, line: int) -> None:
        session, port = rest.split()
        self.mirroring.append((parse_int(session), parse_int(port)))

    def _mc_mgrp_create(self, rest: str, line: int) -> None:
        self.groups.setdefault(parse_int(rest), [])

    def _mc_node_create(self, rest: str, line: int) -> None:
        rid, *ports = rest.split()
        if not ports:
            raise ValueError("mc_node_create <rid> <port> [<port> ...]")
        self.nodes.append((parse_int(rid), tuple(parse_int(p) for p in ports)))

    def _mc_node_associate(self, rest: str, line: int) -> None:
        mgid, handle = (parse_int(w) for w in rest.split())
        if mgid not in self.groups:
            raise ValueError(f"multicast group {mgid} was not created (mc_mgrp_create)")
        rid, ports = self.nodes[handle]
        self.groups[mgid].extend((port, rid) for port in ports)

    def _wait(self, rest: str, line: int) -> None:
        pass  # a model has nothing in flight

    _COMMANDS: dict[str, Callable[[_Parser, str, int], None]] = {
        "add": _add,
        "setdefault": _setdefault,
        "packet": _packet,
        "expect": _expect,
        "register_write": _register_write,
        "mirroring_add": _mirroring_add,
        "mc_mgrp_create": _mc_mgrp_create,
        "mc_node_create": _mc_node_create,
        "mc_node_associate": _mc_node_associate,
        "wait": _wait,
    }
