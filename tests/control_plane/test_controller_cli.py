# SPDX-License-Identifier: Apache-2.0
"""`p4reduce controller ...` against the fake P4Runtime server."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest
import yaml
from fake_bmv2_thrift import serve as serve_thrift
from fake_p4runtime import serve

from p4reduce.cli import main as p4reduce_main
from p4reduce.controller.proto import p4r

HERE = pathlib.Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    """`p4reduce controller ARGV...`; argparse's own exits become return codes."""
    try:
        return p4reduce_main(["controller", *argv])
    except SystemExit as exc:
        return int(exc.code)


SMALL = HERE / "p4info_small.txtpb"


def write_config(tmp_path: pathlib.Path, grpc_addr: str, thrift_port: int = 9093) -> pathlib.Path:
    cfg = {
        "switch": {"grpc_addr": grpc_addr, "thrift_port": thrift_port},
        "jobs": [
            {
                "job_id": 1,
                "slot_base": 8,
                "num_slots": 2,
                "mgid": 5,
                "workers": [
                    {"worker_id": 0, "port": 1, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "udp_port": 40000}
                ],
            }
        ],
        "l2": [{"mac": "02:00:00:00:00:01", "port": 1}],
    }
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.fixture
def bmv2_json(tmp_path) -> pathlib.Path:
    path = tmp_path / "p.json"
    path.write_text(
        json.dumps(
            {"pipelines": [], "register_arrays": [{"name": "I.seen", "size": 2048}, {"name": "I.value", "size": 2048}]}
        )
    )
    return path


def test_install_then_counters(tmp_path, bmv2_json, capsys):
    with serve() as fake:
        cfg = write_config(tmp_path, fake.addr)
        assert main(["install", "--config", str(cfg), "--p4info", str(SMALL), "--json", str(bmv2_json)]) == 0
        assert "installed 1 job(s), 1 worker(s), 1 L2 entry on" in capsys.readouterr().out
        assert len(fake.pipelines) == 1 and len(fake.writes) == 1
        assert len(fake.writes[0].updates) == 4  # group, result_dest, worker, l2
        fake.counters = {0: 4, 8: 1}
        n_arbitrations = len(fake.arbitrations)
        assert main(["counters", "--config", str(cfg)]) == 0  # P4Info fetched from the switch
        assert len(fake.arbitrations) == n_arbitrations  # reading does not take the primary role
        counters = json.loads(capsys.readouterr().out)
        assert counters["data_counted"] == 4 and counters["forwarded"] == 1 and counters["malformed"] == 0
        fake.cells[302, 8 * 4 + 1] = 5  # job 1 (slot_base 8): 5 drops; cell 36 is slot 9's
        fake.cells[302, 9 * 4] = 9
        assert main(["counters", "--config", str(cfg), "--jobs"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert both["switch"] == counters
    assert both["jobs"] == {"1": {"packets": 0, "drops": 5, "retransmissions": 0, "rounds": 0}}


def test_reset_installs_a_new_session_then_zeroes_the_jobs_slots(tmp_path, bmv2_json, capsys):
    with serve() as fake, serve_thrift() as switch:
        for name in ("I.seen", "I.value"):
            switch.add_register(name, 2048, fill=7)
        cfg = write_config(tmp_path, fake.addr, thrift_port=switch.port)
        assert main(["install", "--config", str(cfg), "--p4info", str(SMALL), "--json", str(bmv2_json)]) == 0
        installed = _sessions(fake.writes[-1])
        assert len(installed) == 1 and 0 not in installed
        n_arbitrations, n_writes = len(fake.arbitrations), len(fake.writes)
        assert main(["reset", "--config", str(cfg), "--job", "1", "--json", str(bmv2_json), "--timeout", "2"]) == 0
        assert len(fake.arbitrations) == n_arbitrations + 1  # a write needs the primary role
        (modify,) = fake.writes[n_writes:]
    assert [u.type for u in modify.updates] == [p4r.Update.MODIFY]  # the one worker entry
    new = _sessions(modify)
    assert len(new) == 1 and new.isdisjoint(installed | {0})
    for name in ("I.seen", "I.value"):
        cells = switch.registers[name]
        assert cells[8:10] == [0, 0] and cells[1032:1034] == [0, 0]  # slots 8..9, both shadow copies
        assert cells.count(0) == 4
    assert (
        f"job 1: zeroed 8 register cells (slots 8..9, both shadow copies) via thrift port {switch.port}"
    ) in capsys.readouterr().out


def test_reset_without_p4runtime_touches_no_register(tmp_path, bmv2_json, capsys):
    with serve_thrift() as switch:
        switch.add_register("I.seen", 2048, fill=7)
        cfg = write_config(tmp_path, "127.0.0.1:1", thrift_port=switch.port)
        assert main(["reset", "--config", str(cfg), "--job", "1", "--json", str(bmv2_json), "--timeout", "0.3"]) == 1
    assert switch.calls == []  # old-session packets would still be admitted: keep the state
    assert "no P4Runtime server answered at 127.0.0.1:1 within 0.3 s" in capsys.readouterr().err


def _sessions(write: p4r.WriteRequest) -> set[int]:
    """The session parameter (id 7 in p4info_small) of every worker entry in `write`."""
    return {
        int.from_bytes(p.value, "big")
        for u in write.updates
        if u.entity.table_entry.table_id == 101
        for p in u.entity.table_entry.action.action.params
        if p.param_id == 7
    }


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (["reset", "--job", "2"], 2, "no job 2 in the configuration"),
        (["reset", "--job", "70000"], 2, "--job: 70000 outside 0..65535"),
        (["counters", "--timeout", "0.3"], 1, "no P4Runtime server answered at 127.0.0.1:1 within 0.3 s"),
        (["counters", "--timeout", "-1"], 2, "--timeout: -1 outside"),
        (["install", "--p4info", "/nonexistent.txtpb"], 2, "cannot read P4Info /nonexistent.txtpb"),
    ],
)
def test_errors_give_one_line(tmp_path, capsys, argv, code, message):
    cfg = write_config(tmp_path, "127.0.0.1:1")
    assert main([argv[0], "--config", str(cfg), *argv[1:]]) == code
    err = capsys.readouterr().err
    assert err.startswith(f"p4reduce controller {argv[0]}: error: ") and message in err, err
    assert len(err.strip().splitlines()) == 1


def test_bad_config_file_exit_2(tmp_path, capsys):
    (tmp_path / "c.yaml").write_text("jobs: 3\n")
    assert main(["counters", "--config", str(tmp_path / "c.yaml")]) == 2
    assert "c.yaml: jobs: expected a list" in capsys.readouterr().err


def test_module_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "p4reduce", "controller", "--help"],
        capture_output=True,
        text=True,
        cwd=HERE.parents[1],
        timeout=60,
    )
    assert out.returncode == 0 and "install" in out.stdout and "counters" in out.stdout
