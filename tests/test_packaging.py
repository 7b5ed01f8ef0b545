# SPDX-License-Identifier: Apache-2.0
"""The wheel: only `p4reduce/` at its top level, numpy as the only base dependency, the
compiled P4 program inside, and a host agent that runs next to a current protobuf.

Builds a wheel and installs it into fresh virtual environments (needs the package
registry, as `pip install` does: without it those tests skip and say so); about a minute.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import venv
import zipfile

import pytest
from control_plane.fake_p4runtime import serve

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _run(*argv: str | pathlib.Path, cwd: pathlib.Path | None = None) -> str:
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=600, cwd=cwd)
    assert proc.returncode == 0, f"{argv}: {proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc.stdout


def _registry_unreachable(folder: pathlib.Path) -> str | None:
    """Why pip cannot fetch from the package registry here (building the wheel and the
    fresh installs need it), or None."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(folder), "setuptools>=74.1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0:
        return "the package registry is not reachable: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
    return None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> pathlib.Path:
    reason = _registry_unreachable(tmp_path_factory.mktemp("probe"))
    if reason is not None:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", out, ROOT)
    (whl,) = out.glob("p4reduce-*.whl")
    return whl


def _venv(path: pathlib.Path) -> pathlib.Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(path)
    return path / "bin" / "python"


def test_wheel_has_one_top_level_package_and_the_p4_artifacts(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"p4reduce"}
    for required in (
        "p4reduce/p4src/build/p4reduce.json",
        "p4reduce/p4src/build/p4reduce.p4info.txtpb",
        "p4reduce/hostagent/agent.py",
        "p4reduce/controller/client.py",
        "p4reduce/aggregator/engine.py",
    ):
        assert required in names, required
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    base = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert [line.split()[1].split(">")[0] for line in base] == ["numpy"]


def test_base_install_runs_next_to_current_protobuf_and_controller_extra_works(wheel, tmp_path):
    py = _venv(tmp_path / "venv")
    _run(py, "-m", "pip", "install", "--quiet", wheel)
    installed = _run(py, "-m", "pip", "list", "--format=freeze").lower()
    assert "grpcio" not in installed and "protobuf" not in installed, installed
    # What an ML stack carries (ONNX needs protobuf >= 4.25): the worker side must not care.
    _run(py, "-m", "pip", "install", "--quiet", "protobuf>=5,<6")
    out = _run(
        py, "-m", "p4reduce", "demo", "--workers", "2", "--elements", "20000", "--iterations", "1", cwd=tmp_path
    )  # not the checkout: the installed wheel
    assert "result check      : OK" in out
    # The controller extra installs into the same environment and finds its P4 program
    # in the wheel, not in a checkout.
    _run(py, "-m", "pip", "install", "--quiet", f"{wheel}[controller]")
    out = _run(
        py,
        "-c",
        "import google.protobuf, p4reduce.controller.client as c, p4reduce.p4src as p;"
        "print(google.protobuf.__version__, p.build_artifact(p.P4INFO))",
        cwd=tmp_path,
    )
    version, artifact = out.split()
    assert int(version.split(".")[0]) >= 5 and str(tmp_path / "venv") in artifact
    config = tmp_path / "switch.yaml"
    with serve() as fake:
        config.write_text(f"switch: {{grpc_addr: '{fake.addr}'}}\njobs: []\n")
        out = _run(tmp_path / "venv" / "bin" / "p4reduce", "controller", "install", "--config", config, cwd=tmp_path)
        assert "installed 0 job(s)" in out
        (pushed,) = fake.pipelines
    tables = {t.preamble.name for t in pushed.config.p4info.tables}
    assert "P4ReduceIngress.admission.workers" in tables


def _inside_checkout(path: str) -> bool:
    """Whether `path` is in the checkout, by path components: a virtual environment beside it
    (~/p4reduce-venv next to ~/p4reduce) shares its name as a prefix, not a folder."""
    return pathlib.Path(path).resolve().is_relative_to(ROOT.resolve())


def test_inside_checkout_compares_folders_not_strings():
    assert _inside_checkout(str(ROOT / "hostagent" / "agent.py"))
    assert not _inside_checkout(str(ROOT.parent / (ROOT.name + "-venv") / "lib" / "mininet"))


def test_the_repo_folders_are_not_top_level_modules(tmp_path):
    """Outside the checkout, the card's folders exist only inside `p4reduce` (the editable
    install maps them; it does not put the checkout on sys.path)."""
    probe = (
        "import importlib.util as u, json; print(json.dumps({n: (s.origin or list(s.submodule_search_locations))"
        " if (s := u.find_spec(n)) else None for n in ('controller', 'hostagent', 'software_aggregator',"
        " 'mininet', 'p4src')}))"
    )
    import json

    specs = json.loads(_run(sys.executable, "-c", probe, cwd=tmp_path))
    for name, where in specs.items():
        places = [] if where is None else [where] if isinstance(where, str) else where
        assert not any(_inside_checkout(place) for place in places), f"{name} resolves to {where}"
    assert (
        _run(sys.executable, "-c", "import p4reduce.controller as c; print(c.__name__)", cwd=tmp_path).strip()
        == "p4reduce.controller"
    )
