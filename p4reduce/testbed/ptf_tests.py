# SPDX-License-Identifier: Apache-2.0
"""The tests p4testgen's Tofino target writes with its PTF backend, read as data.

p4testgen's STF backend configures no register, so every register of a Tofino program
reads as tainted there, and a path that emits a header whose validity depends on one is
abandoned (this program's value headers: no test at all). Its PTF backend writes each
register cell a path reads (`setRegisterValue`). This module reads such a file without
running it: the Python is parsed (`ast`), never executed, and each `TestN` class becomes a
`PtfCase` with the same parts as an STF test (`p4reduce.testbed.stf`), so that
`p4reduce.testbed.stf_replay` compares what a model sends with what p4testgen expects.

What p4testgen's template writes per test (p4c backends/p4tools/modules/testgen/targets/
tofino/test_backend/ptf.cpp):

    class Test3(AbstractTest):
        # Current statement coverage: 0.42
        def setupCtrlPlane(self):
            self.setRegisterValue('<register>', [('<register>.<field>', <value>), ...], <index>)
            self.insertTableEntry('<table>', [gc.KeyTuple('<field>', <value>), ...],
                                  '<action>', [gc.DataTuple('<param>', <value>), ...])
            self.overrideDefaultEntry('<table>', '<action>', [gc.DataTuple(...), ...])
        def sendPacket(self):
            ig_port = <port>
            pkt = b'...'
        def verifyPackets(self):            (or `pass`: the packet is dropped)
            eg_port = <port>
            exp_pkt = b'...'
            exp_pkt = Mask(exp_pkt)
            exp_pkt.set_do_not_care(<first bit>, <bits>)
            verify_packet(self, exp_pkt, eg_port)

and every test ends with verify_no_other_packets: nothing else leaves. Anything else in a
test's methods is refused with PtfError, naming the test and the line.
"""

from __future__ import annotations

import ast
import pathlib
import re
from dataclasses import dataclass
from typing import Any

from p4reduce.testbed.stf import COVERAGE_LINE, KeyMatch, StfDefault, StfEntry, StfExpect, StfPacket, StfTest

_TM_PORT = re.compile(r"\*eg_intr_md\.egress_port = (\d+);")


class PtfError(ValueError):
    """A PTF file this reader does not take (a construct p4testgen's template does not write)."""


@dataclass(frozen=True)
class RegisterCell:
    """One `setRegisterValue`: cell `index` of `register`, its fields' values by name."""

    register: str
    index: int
    fields: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class PtfCase:
    """One generated test: `test` carries its entries, defaults, packet and expectation
    (a nibble is `*` where set_do_not_care covers any of its bits); `registers` the cells
    it sets first. From the path's trace (the test's docstring): whether p4testgen took the
    packet through egress, and the port its traffic manager chose (None: dropped in
    ingress, or no port set)."""

    test: StfTest
    registers: tuple[RegisterCell, ...]
    reaches_egress: bool = False
    tm_port: int | None = None


def load_ptf(path: str | pathlib.Path) -> list[PtfCase]:
    path = pathlib.Path(path)
    return parse_ptf(path.read_text(), path.name)


def parse_ptf(text: str, name: str = "<ptf>") -> list[PtfCase]:
    """Every `TestN` class of `text`, in N's order."""
    lines = text.splitlines()
    cases = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef) and re.fullmatch(r"Test\d+", node.name):
            cases.append((int(node.name[4:]), _case(node, lines, f"{name}:{node.name}")))
    return [case for _, case in sorted(cases)]


def _case(cls: ast.ClassDef, lines: list[str], name: str) -> PtfCase:
    methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
    coverage = None
    for line in lines[cls.lineno - 1 : cls.end_lineno]:
        m = COVERAGE_LINE.search(line)
        if m:
            coverage = float(m.group(1))
            break
    entries: list[StfEntry] = []
    defaults: list[StfDefault] = []
    registers: list[RegisterCell] = []
    for call in _calls(methods.get("setupCtrlPlane"), name):
        method, args = call.func.attr, call.args  # type: ignore[attr-defined]
        where = f"{name} line {call.lineno}"
        if method == "setRegisterValue" and len(args) == 3:
            register, index = _literal(args[0], where), _literal(args[2], where)
            fields = _literal(args[1], where)
            if isinstance(fields, int):
                fields = [("f1", fields)]
            registers.append(RegisterCell(register, index, tuple((str(f), int(v)) for f, v in fields)))
        elif method == "insertTableEntry" and len(args) == 4:
            table, action = _literal(args[0], where), _literal(args[2], where)
            if action is None:
                raise PtfError(f"{where}: an action profile member for {table}: the program has no action profile")
            keys = tuple((k, _key(kw, vals, where)) for k, vals, kw in _tuples(args[1], "KeyTuple", where))
            params = tuple((k, int(vals[0])) for k, vals, _ in _tuples(args[3], "DataTuple", where))
            entries.append(StfEntry(table, keys, action, params, None, call.lineno))
        elif method == "overrideDefaultEntry" and len(args) == 3:
            params = tuple((k, int(vals[0])) for k, vals, _ in _tuples(args[2], "DataTuple", where))
            defaults.append(StfDefault(_literal(args[0], where), _literal(args[1], where), params, call.lineno))
        else:
            raise PtfError(f"{where}: self.{method}(...) with {len(args)} arguments is not what p4testgen writes")
    send = _assignments(methods.get("sendPacket"), name)
    if not {"ig_port", "pkt"} <= send.keys():
        raise PtfError(f"{name}: sendPacket sends nothing")
    packets = (StfPacket(int(send["ig_port"]), bytes(send["pkt"]), methods["sendPacket"].lineno),)
    expects: tuple[StfExpect, ...] = ()
    verify = _assignments(methods.get("verifyPackets"), name)
    if verify:
        frame, ignore = bytes(verify["exp_pkt"]), verify.get("ignore", [])
        expects = (StfExpect(int(verify["eg_port"]), _pattern(frame, ignore), True, methods["verifyPackets"].lineno),)
    test = StfTest(name, tuple(entries), tuple(defaults), (), (), (), packets, expects, None, coverage)
    trace = ast.get_docstring(cls) or ""
    port = _TM_PORT.search(trace)
    return PtfCase(test, tuple(registers), "*.StartEgress();" in trace, int(port.group(1)) if port else None)


def _calls(method: ast.FunctionDef | None, name: str) -> list[ast.Call]:
    """The `self.x(...)` calls of a method body (nothing else may be there)."""
    if method is None:
        return []
    calls = []
    for stmt in method.body:
        if isinstance(stmt, ast.Pass):
            continue
        if not (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and isinstance(stmt.value.func.value, ast.Name)
            and stmt.value.func.value.id == "self"
        ):
            raise PtfError(f"{name} line {stmt.lineno}: {ast.unparse(stmt)!r} is not a control-plane call")
        calls.append(stmt.value)
    return calls


def _assignments(method: ast.FunctionDef | None, name: str) -> dict[str, Any]:
    """sendPacket's and verifyPackets' variables (ig_port, pkt; eg_port, exp_pkt and the
    set_do_not_care ranges as `ignore`); the calls that send and verify are checked."""
    if method is None:
        return {}
    values: dict[str, Any] = {}
    for stmt in method.body:
        where = f"{name} line {stmt.lineno}"
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            if isinstance(stmt.value, ast.Call) and ast.unparse(stmt.value) == "Mask(exp_pkt)":
                continue
            values[target] = _literal(stmt.value, where)
            continue
        call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
        text = ast.unparse(call) if call is not None else ""
        if call is not None and text.startswith("exp_pkt.set_do_not_care("):
            values.setdefault("ignore", []).append(tuple(_literal(a, where) for a in call.args))
        elif text not in ("send_packet(self, ig_port, pkt)", "verify_packet(self, exp_pkt, eg_port)"):
            raise PtfError(f"{where}: {ast.unparse(stmt)!r} is not what p4testgen writes")
    return values


def _tuples(node: ast.expr, kind: str, where: str) -> list[tuple[str, list[Any], dict[str, Any]]]:
    """`[gc.KeyTuple('name', v, ...), ...]` as (name, positional values, keyword values)."""
    if not isinstance(node, ast.List):
        raise PtfError(f"{where}: expected a list of gc.{kind}")
    out = []
    for item in node.elts:
        if not (isinstance(item, ast.Call) and ast.unparse(item.func) == f"gc.{kind}" and item.args):
            raise PtfError(f"{where}: {ast.unparse(item)!r} is not a gc.{kind}")
        name = _literal(item.args[0], where)
        out.append(
            (
                name,
                [_literal(a, where) for a in item.args[1:]],
                {str(k.arg): _literal(k.value, where) for k in item.keywords},
            )
        )
    return out


def _key(keywords: dict[str, Any], values: list[Any], where: str) -> KeyMatch:
    if "low" in keywords:
        raise PtfError(f"{where}: a range key: the program has no range match")
    if "prefix_len" in keywords:
        return KeyMatch(int(values[0]), None, int(keywords["prefix_len"]))
    if len(values) == 2:
        return KeyMatch(int(values[0]), int(values[1]))
    return KeyMatch(int(values[0]))


def _literal(node: ast.expr, where: str) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise PtfError(f"{where}: {ast.unparse(node)!r} is not a literal") from None


def _pattern(frame: bytes, ignore: list[tuple[int, int]]) -> str:
    """The frame's hex nibbles, `*` for a nibble with any bit in an ignored (first bit,
    bits) range, as p4testgen's STF backend writes its masks."""
    nibbles = list(frame.hex().upper())
    for first, bits in ignore:
        for nibble in range(first // 4, min(len(nibbles), -(-(first + bits) // 4))):
            nibbles[nibble] = "*"
    return "".join(nibbles)
