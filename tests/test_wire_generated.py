# SPDX-License-Identifier: Apache-2.0
"""The wire is described once (p4reduce/protocol/wire.toml) and tools/wire.py writes every side's
copy of it: the generated files are what the script writes now, the P4 constants are rewritten
in place and nothing else, the description is the codec's layout, and the C header's
hdr_parse/hdr_emit read and write what the codec packs."""

from __future__ import annotations

import ctypes
import importlib.util
import pathlib
import shutil
import subprocess
import sys

import pytest
from conftest import codec_header_fields

from p4reduce.protocol import (
    HEADER_LEN,
    MAX_SLOTS,
    AggHeader,
    ErrorCode,
    Flags,
    GeometryField,
    KeyMismatch,
    Mode,
    MsgType,
    codec,
    switch,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load_tool():
    spec = importlib.util.spec_from_file_location("wire_tool", ROOT / "tools" / "wire.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


wire = _load_tool()
DESCRIBED = wire.load()


def test_generated_files_are_what_tools_wire_writes_now():
    drift = wire.check()
    assert not drift, "run `python3 tools/wire.py`:\n" + "\n".join(drift)


def _tree(tmp_path: pathlib.Path) -> pathlib.Path:
    """A copy of what the script reads and writes."""
    names = {wire.DESCRIPTION, wire.PYTHON, wire.C_HEADER, wire.LUA}
    names |= {t.program for t in DESCRIBED.targets} | {t.header_file for t in DESCRIBED.targets}
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def test_check_names_each_file_that_differs(tmp_path):
    root = _tree(tmp_path)
    assert wire.check(root) == []
    for name in (wire.PYTHON, wire.C_HEADER, wire.LUA):
        path = root / name
        path.write_text(path.read_text().replace("48864", "48865", 1))
    lua = root / wire.LUA
    lua.write_text(lua.read_text().replace(wire.LUA_END, "local extra = 1\n" + wire.LUA_END))
    types = root / "p4src" / "types.p4"
    types.write_text(types.read_text().replace("const bit<8>  MSG_JOINED = 7;", "const bit<8>  MSG_JOINED = 9;"))
    drift = wire.check(root)
    assert sorted(line.split(":")[0] for line in drift) == sorted(
        [wire.PYTHON, wire.C_HEADER, wire.LUA, "p4src/types.p4"]
    )
    assert all("differs from what tools/wire.py writes" in line for line in drift)
    assert wire.main(["--check"]) == 0  # the checkout itself is current


def test_p4_constants_are_rewritten_in_place_and_nothing_else(tmp_path):
    root = _tree(tmp_path)
    programs = {t.program: (root / t.program).read_text() for t in DESCRIBED.targets}
    description = root / wire.DESCRIPTION
    text = description.read_text()
    description.write_text(text.replace("value = 48864", "value = 48865").replace("code = 6\n", "code = 10\n", 1))
    written, problems = wire.write(root)
    assert problems == []
    assert set(written) == {wire.PYTHON, wire.C_HEADER, wire.LUA, *programs}
    for name, before in programs.items():
        old, new = before.split("\n"), (root / name).read_text().split("\n")
        assert len(old) == len(new)  # p4src/build records line numbers
        changed = {(a, b) for a, b in zip(old, new, strict=True) if a != b}
        assert {b for _, b in changed} == {
            line.replace("48864", "48865").replace("MSG_JOIN = 6;", "MSG_JOIN = 10;") for line, _ in changed
        }
        assert len(changed) == 2  # AGG_UDP_PORT and MSG_JOIN, their comments and spacing kept
    assert wire.check(root) == []
    # A constant written as a hexadecimal literal stays one.
    description.write_text(description.read_text().replace("max_blocks = 0xFFFFFF", "max_blocks = 0xFFFFFE"))
    assert wire.write(root) == ([wire.PYTHON, "p4src/tna/types.p4"], [])
    assert "const bit<32> MAX_BLOCKS = 0xFFFFFE;    // 2^24 - 1 blocks" in (root / "p4src/tna/types.p4").read_text()


def test_a_description_that_contradicts_itself_is_refused(tmp_path):
    root = _tree(tmp_path)
    description = root / wire.DESCRIPTION
    text = description.read_text()
    for old, new, what in (
        ("value = 0x05\n", "value = 0x07\n", "OPENING_MASK is not OPENING | SCATTER"),
        ('name = "count"\noffset = 22', 'name = "count"\noffset = 23', "field count at offset 23"),
        ("value = 16367", "value = 16368", "MAX_BLOCK_SIZE"),
        ('"MAX_BLOCKS",', '"MAX_BLOCKS", "CPU_PORT",', "tna: P4 constant CPU_PORT is not described"),
    ):
        assert old in text
        description.write_text(text.replace(old, new, 1))
        with pytest.raises(wire.DescriptionError, match=what):
            wire.check(root)


def test_p4_problems_that_no_writing_fixes_are_reported(tmp_path):
    root = _tree(tmp_path)
    types = root / "p4src" / "tna" / "types.p4"
    types.write_text(types.read_text().replace("const bit<8>  OWNER_SHIFT = 3;", "const bit<8>  OWNERSHIFT = 3;"))
    tna_headers = root / "p4src" / "tna" / "headers.p4"
    tna_headers.write_text(tna_headers.read_text().replace("bit<16> count;", "bit<8> count;", 1))
    v1model_types = root / "p4src" / "types.p4"
    v1model_types.write_text(
        v1model_types.read_text().replace("const bit<8>  MSG_JOIN = 6;", "const bit<2>  MSG_JOIN = 6;")
    )
    _, problems = wire.write(root)
    assert any(p.startswith("p4src/tna/types.p4: does not define OWNER_SHIFT") for p in problems), problems
    assert any(p.startswith("p4src/tna/headers.p4: header agg_h declares") for p in problems), problems
    assert any("MSG_JOIN = 6 does not fit its 2 bits" in p for p in problems), problems
    assert "const bit<2>  MSG_JOIN = 6;" in v1model_types.read_text()  # reported, not written
    assert wire.check(root)


def test_description_is_the_codecs_layout():
    """Each field read at its described offset and size from a packed header is the codec's value."""
    fields = {name: 0x11 * (i + 1) for i, (name, _) in enumerate(DESCRIBED.header_bits())}
    fields |= {"version": codec.PROTOCOL_VERSION, "msg_type": MsgType.RESULT, "shadow": 1, "slot": MAX_SLOTS - 2}
    fields |= {"block": 0xDEADBEEF, "fingerprint": 0x01020304, "count": 0}
    h = AggHeader(**{k: v for k, v in fields.items() if k in AggHeader._fields})
    packed = h.pack()
    assert len(packed) == HEADER_LEN == sum(f.size for f in DESCRIBED.fields)
    for f in DESCRIBED.fields:
        raw = int.from_bytes(packed[f.offset : f.offset + f.size], "big")
        if f.parts:
            for p in f.parts:
                assert raw >> p.shift & p.mask == getattr(h, p.name), p.name
        else:
            assert raw == getattr(h, f.name), f.name
    assert codec.HEADER.format == "!" + "".join({1: "B", 2: "H", 4: "I"}[f.size] for f in DESCRIBED.fields)
    assert DESCRIBED.header_bits() == codec_header_fields()  # the codec's names, in order (tests/conftest.py)


def test_enums_and_constants_are_the_descriptions():
    assert {t.name: t.value for t in MsgType} == {m.name: m.value for m in DESCRIBED.msg_types}
    assert {c.name: c.value for c in ErrorCode} == {e.name: e.value for e in DESCRIBED.errors}
    assert {g.name: g.value for g in GeometryField} == {g.name: g.value for g in DESCRIBED.geometry_fields}
    assert {k.name: k.value for k in KeyMismatch} == {k.name: k.value for k in DESCRIBED.key_mismatches}
    assert {m.value: m.code for m in Mode} == {m.name: m.value for m in DESCRIBED.modes}
    assert {x.name: x.value for x in DESCRIBED.flags} == {
        name: int(member) for name, member in Flags.__members__.items() if name != "NONE"
    }
    for c in DESCRIBED.constants:
        assert getattr(codec, c.name, c.value) == c.value, c.name
    assert switch.EVENT_NAMES == DESCRIBED.events and switch.JOB_EVENT_NAMES == DESCRIBED.job_events
    v1model, tna = DESCRIBED.targets
    assert (switch.SWITCH_SLOTS, switch.TNA_SLOTS) == (v1model.numbers["slots"], tna.numbers["slots"])


# -- the C header's hdr_parse/hdr_emit against the codec -------------------------------------------
def _c_shim(tmp_path: pathlib.Path) -> ctypes.CDLL:
    """hdr_parse and hdr_emit of p4reduce/_wire_gen.h behind two functions that take the fields as an
    array of uint32, in the description's order (pool as its parts), built as the extensions are."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    names = [n for n, _ in DESCRIBED.header_bits()]
    source = tmp_path / "shim.c"
    source.write_text(
        '#include "_wire_gen.h"\n'
        "void parse_fields(const uint8_t *p, uint32_t *out) {\n    hdr_t h;\n    hdr_parse(p, &h);\n"
        + "".join(f"    out[{i}] = h.{n};\n" for i, n in enumerate(names))
        + "}\nvoid emit_fields(const uint32_t *in, uint8_t *p) {\n    hdr_t h;\n"
        + "".join(f"    h.{n} = (__typeof__(h.{n}))in[{i}];\n" for i, n in enumerate(names))
        + "    hdr_emit(&h, p);\n}\n"
    )
    lib = tmp_path / "shim.so"
    subprocess.run(
        [cc, "-O3", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", f"-I{ROOT / 'p4reduce'}", "-o", lib, source],
        check=True,
        capture_output=True,
    )
    return ctypes.CDLL(str(lib))


def test_c_parse_and_emit_are_the_codecs(tmp_path):
    shim = _c_shim(tmp_path)
    names = [n for n, _ in DESCRIBED.header_bits()]
    n = len(names)
    headers = [
        AggHeader(MsgType.DATA, 7, 3, 5, 1, 42, 9, 10, exp=130, next_exp=129, count=32, flags=Flags.OPENING),
        AggHeader(
            MsgType.RESULT,
            0xFFFF,
            0xFF,
            MAX_SLOTS - 1,
            1,
            0xFFFFFFFF,
            0xFFFFFFFF,
            session=0x89ABCDEF,
            blocks=0x12345678,
            fingerprint=0xFEDCBA98,
            flags=0xFC,
            count=0xFFFF,
            version=0x83,
        ),
        AggHeader(MsgType.ERROR, 1, 0, 0, 0, 0, ErrorCode.TENSOR, 3, exp=0, next_exp=0),
    ]
    for h in headers:
        packed = h.pack()
        out = (ctypes.c_uint32 * n)()
        shim.parse_fields(packed, out)
        assert dict(zip(names, out, strict=True)) == {name: getattr(h, name) for name in names}
        buf = ctypes.create_string_buffer(HEADER_LEN)
        shim.emit_fields((ctypes.c_uint32 * n)(*out), buf)
        assert buf.raw == packed
