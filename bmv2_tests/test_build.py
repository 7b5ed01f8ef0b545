"""`make -C p4src` reproduces the committed p4src/build/ byte for byte."""
import pathlib
import shutil
import subprocess

import pytest

P4SRC = pathlib.Path(__file__).resolve().parents[1] / "p4src"


@pytest.mark.skipif(shutil.which("p4c-bm2-ss") is None, reason="p4c-bm2-ss (p4c) is not installed")
def test_build_outputs_are_reproducible(tmp_path):
    work = tmp_path / "p4src"
    work.mkdir()
    for f in list(P4SRC.glob("*.p4")) + [P4SRC / "Makefile"]:
        shutil.copy(f, work)
    subprocess.run(["make", "-C", str(work)], check=True, capture_output=True)
    for name in ("p4reduce.json", "p4reduce.p4info.txtpb"):
        assert (work / "build" / name).read_bytes() == (P4SRC / "build" / name).read_bytes(), \
            f"p4src/build/{name} is stale: run make -C p4src and commit it"
