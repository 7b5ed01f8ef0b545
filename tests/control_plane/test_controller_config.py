# SPDX-License-Identifier: Apache-2.0
"""controller.config: what a valid configuration becomes, and one test per refusal."""

from __future__ import annotations

import copy
import json
import pathlib

import pytest
import yaml

from p4reduce.controller.config import (
    BroadcastConfig,
    Config,
    ConfigError,
    JobConfig,
    L2Entry,
    SwitchConfig,
    WorkerEntry,
    load_config,
)

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "controller" / "example_config.yaml"


def worker(i: int, **kw) -> dict:
    return {
        "worker_id": i,
        "port": i + 1,
        "mac": f"02:00:00:00:00:{i + 1:02x}",
        "ip": f"10.0.0.{i + 1}",
        "udp_port": 40000 + i,
        **kw,
    }


BASE = {
    "switch": {"grpc_addr": "127.0.0.1:9559", "device_id": 0, "election_id": 1, "thrift_port": 9090},
    "jobs": [
        {"job_id": 1, "mode": "dense", "slot_base": 0, "num_slots": 64, "mgid": 1, "workers": [worker(0), worker(1)]},
        {
            "job_id": 2,
            "slot_base": 64,
            "num_slots": 32,
            "mgid": 2,
            "workers": [worker(0, port=3, mac="02:00:00:00:00:03", ip="10.0.0.3")],
        },
    ],
    "l2": [{"mac": "02:00:00:00:00:01", "port": 1}],
    "broadcast": {"mgid": 1000, "ports": [1, 2]},
}


def test_valid_config_becomes_typed_dataclasses():
    cfg = load_config(BASE)
    assert cfg.switch == SwitchConfig("127.0.0.1:9559", 0, 1, 9090)
    assert cfg.jobs[0] == JobConfig(
        1,
        0,
        64,
        (
            WorkerEntry(0, 1, "02:00:00:00:00:01", "10.0.0.1", 40000),
            WorkerEntry(1, 2, "02:00:00:00:00:02", "10.0.0.2", 40001),
        ),
        mgid=1,
        mode="dense",
    )
    assert cfg.jobs[0].num_workers == 2 and cfg.jobs[1].slots == range(64, 96)
    assert cfg.l2 == (L2Entry("02:00:00:00:00:01", 1),)
    assert cfg.broadcast == BroadcastConfig(1000, (1, 2))
    assert cfg.job(2).mgid == 2


def test_defaults_and_normalisation():
    cfg = load_config(
        {"jobs": [{"job_id": 7, "slot_base": 0, "num_slots": 1, "workers": [worker(0, mac="02:AA:00:00:00:01")]}]}
    )
    assert cfg.switch == SwitchConfig()  # 127.0.0.1:9559, device 0, election 1, thrift 9090
    assert cfg.switch.thrift_ip == "127.0.0.1"
    assert cfg.jobs[0].mgid == 8 and cfg.jobs[0].mode == "dense"
    assert cfg.jobs[0].session is None  # drawn by the controller at install
    assert cfg.jobs[0].workers[0].mac == "02:aa:00:00:00:01"
    assert cfg.l2 == () and cfg.broadcast is None
    assert load_config({"jobs": []}).jobs == ()  # forwarding only


@pytest.mark.parametrize("given, stored", [("192.0.2.7", "192.0.2.7"), ("0:0::1", "::1")])
def test_thrift_ip_is_any_ip_address(given, stored):
    cfg = load_config(mutated(lambda c: c["switch"].update(thrift_ip=given)))
    assert cfg.switch.thrift_ip == stored


@pytest.mark.parametrize("session", [1, 0x5E551015, 2**32 - 1])
def test_a_job_may_fix_its_session(session):
    assert load_config(mutated(lambda c: job(c).update(session=session))).job(1).session == session


def test_json_and_yaml_files_give_the_same_config(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps(BASE))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(BASE))
    (tmp_path / "c.yml").write_text(yaml.safe_dump(BASE))
    assert (
        load_config(tmp_path / "c.json")
        == load_config(str(tmp_path / "c.yaml"))
        == load_config(tmp_path / "c.yml")
        == load_config(BASE)
    )


@pytest.mark.skipif(not EXAMPLE.exists(), reason="no controller/example_config.yaml")
def test_shipped_example_config_is_valid():
    assert isinstance(load_config(EXAMPLE), Config)


def mutated(fn) -> dict:
    cfg = copy.deepcopy(BASE)
    fn(cfg)
    return cfg


def job(cfg: dict, i: int = 0) -> dict:
    return cfg["jobs"][i]


REFUSALS = {
    "duplicate worker id": (
        lambda c: job(c)["workers"].append(worker(1, port=9, udp_port=5)),
        r"job 1: duplicate worker_id 1",
    ),
    "worker ids with a gap": (
        lambda c: job(c)["workers"][1].update(worker_id=3),
        r"job 1: worker ids must be 0\.\.1, got \[0, 3\]",
    ),
    "worker id above 31": (
        lambda c: job(c)["workers"][1].update(worker_id=32),
        r"job 1 workers\[1\]\.worker_id: 32 .* 0\.\.31",
    ),
    "identity reused across jobs": (
        lambda c: job(c, 1)["workers"].__setitem__(0, worker(0)),
        r"job 2 worker 0: \(port, mac, ip, udp_port\) .* already used by job 1 worker 0",
    ),
    "identity reused inside a job": (
        lambda c: job(c)["workers"].__setitem__(
            1, worker(1, port=1, mac="02:00:00:00:00:01", ip="10.0.0.1", udp_port=40000)
        ),
        r"job 1 worker 1: .* already used by job 1 worker 0",
    ),
    "33 workers": (
        lambda c: job(c).update(workers=[worker(i % 32, udp_port=1000 + i) for i in range(33)]),
        r"job 1: 33 workers, the switch supports at most 32",
    ),
    "slot base beyond the switch": (
        lambda c: job(c).update(slot_base=1024),
        r"job 1\.slot_base: 1024 is not an integer in 0\.\.1023",
    ),
    "slot range past 1023": (
        lambda c: job(c, 1).update(slot_base=1000, num_slots=32),
        r"job 2: slots 1000\.\.1031 exceed",
    ),
    "zero slots": (lambda c: job(c).update(num_slots=0), r"job 1\.num_slots: 0"),
    "overlapping slot ranges": (
        lambda c: job(c, 1).update(slot_base=63),
        r"job 2: slots 63\.\.94 overlaps job 1 \(slots 0\.\.63\)",
    ),
    "sparse mode": (lambda c: job(c).update(mode="sparse"), r"job 1\.mode: 'sparse': the switch only runs 'dense'"),
    "duplicate job id": (lambda c: job(c, 1).update(job_id=1), r"duplicate job_id 1"),
    "duplicate job mgid": (lambda c: job(c, 1).update(mgid=1), r"job 2: mgid 1 already used by job 1"),
    "broadcast mgid of a job": (lambda c: c["broadcast"].update(mgid=2), r"broadcast: mgid 2 already used by job 2"),
    "mgid 0": (lambda c: job(c).update(mgid=0), r"job 1\.mgid: 0 is not an integer in 1\.\.65535"),
    "bad MAC": (
        lambda c: job(c)["workers"][0].update(mac="02:00:00:00:01"),
        r"job 1 workers\[0\]\.mac: '02:00:00:00:01' is not a MAC address",
    ),
    "MAC read as a number from YAML": (
        lambda c: job(c)["workers"][0].update(mac=36000),
        r"not a MAC address \(quote MACs in YAML\)",
    ),
    "multicast MAC for a worker": (
        lambda c: job(c)["workers"][0].update(mac="01:00:5e:00:00:01"),
        r"is a multicast/broadcast MAC",
    ),
    "bad IP": (
        lambda c: job(c)["workers"][1].update(ip="10.0.0.256"),
        r"job 1 workers\[1\]\.ip: '10\.0\.0\.256' is not an IPv4 address",
    ),
    "IP as a number": (lambda c: job(c)["workers"][1].update(ip=167772161), r"is not an IPv4 address"),
    "bad L2 MAC": (lambda c: c["l2"][0].update(mac="nope"), r"l2\[0\]\.mac: 'nope' is not a MAC"),
    "duplicate L2 MAC": (
        lambda c: c["l2"].append({"mac": "02:00:00:00:00:01", "port": 2}),
        r"l2\[1\]\.mac: duplicate entry for 02:00:00:00:00:01",
    ),
    "broadcast MAC in l2": (
        lambda c: c["l2"].append({"mac": "FF:FF:FF:FF:FF:FF", "port": 2}),
        r"broadcast is configured under 'broadcast'",
    ),
    "port 511 (BMv2 drop port)": (lambda c: c["l2"][0].update(port=511), r"l2\[0\]\.port: 511 .* 0\.\.509"),
    "port 510 (the controller's)": (lambda c: c["l2"][0].update(port=510), r"l2\[0\]\.port: 510 .* 0\.\.509"),
    "duplicate broadcast port": (lambda c: c["broadcast"].update(ports=[1, 1]), r"broadcast\.ports: duplicate"),
    "udp port 0": (lambda c: job(c)["workers"][0].update(udp_port=0), r"udp_port: 0 is not an integer in 1\.\.65535"),
    "boolean as integer": (lambda c: job(c).update(num_slots=True), r"job 1\.num_slots: True"),
    "session 0 (what a JOIN carries)": (
        lambda c: job(c).update(session=0),
        r"job 1\.session: 0 is not an integer in 1\.\.4294967295",
    ),
    "session beyond 32 bits": (
        lambda c: job(c).update(session=2**32),
        r"job 1\.session: 4294967296 is not an integer in 1\.\.4294967295",
    ),
    "session as a string": (
        lambda c: job(c).update(session="0x5e551015"),
        r"job 1\.session: '0x5e551015' is not an integer",
    ),
    "unknown top-level key": (lambda c: c.update(jobz=[]), r"config: unknown key\(s\) \['jobz'\]"),
    "unknown job key": (lambda c: job(c).update(colour="red"), r"jobs\[0\]: unknown key\(s\) \['colour'\]"),
    "unknown worker key": (
        lambda c: job(c)["workers"][0].update(rank=0),
        r"job 1 workers\[0\]: unknown key\(s\) \['rank'\]",
    ),
    "unknown switch key": (lambda c: c["switch"].update(grpc_port=1), r"switch: unknown key\(s\) \['grpc_port'\]"),
    "unknown broadcast key": (lambda c: c["broadcast"].update(vlan=1), r"broadcast: unknown key"),
    "missing worker key": (
        lambda c: job(c)["workers"][0].pop("udp_port"),
        r"job 1 workers\[0\]: missing key\(s\) \['udp_port'\]",
    ),
    "no workers": (lambda c: job(c).update(workers=[]), r"job 1\.workers: a job needs at least one worker"),
    "jobs not a list": (lambda c: c.update(jobs={"job_id": 1}), r"jobs: expected a list"),
    "grpc address without port": (lambda c: c["switch"].update(grpc_addr="localhost"), r"switch\.grpc_addr"),
    "election id 0": (lambda c: c["switch"].update(election_id=0), r"switch\.election_id: 0"),
    "thrift ip a host name": (
        lambda c: c["switch"].update(thrift_ip="switch1"),
        r"switch\.thrift_ip: 'switch1' is not an IP address",
    ),
    "thrift ip not a string": (
        lambda c: c["switch"].update(thrift_ip=167772161),
        r"switch\.thrift_ip: 167772161 is not an IP address",
    ),
    "thrift port 0": (lambda c: c["switch"].update(thrift_port=0), r"switch\.thrift_port: 0"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_invalid_config_is_refused_with_a_precise_message(case):
    mutate, message = REFUSALS[case]
    with pytest.raises(ConfigError, match=message):
        load_config(mutated(mutate))


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read .*missing.yaml"):
        load_config(tmp_path / "missing.yaml")
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(ConfigError, match="bad.json: not valid JSON"):
        load_config(tmp_path / "bad.json")
    (tmp_path / "bad.yaml").write_text("jobs: [\n")
    with pytest.raises(ConfigError, match="bad.yaml: not valid YAML"):
        load_config(tmp_path / "bad.yaml")
    (tmp_path / "list.yaml").write_text("- 1\n")
    with pytest.raises(ConfigError, match="list.yaml: config: expected a mapping"):
        load_config(tmp_path / "list.yaml")


def test_unquoted_yaml_mac_gets_a_hint(tmp_path):
    (tmp_path / "c.yaml").write_text("jobs: []\nl2:\n  - {mac: 10:00:00:00:00:01, port: 1}\n")
    with pytest.raises(ConfigError, match="quote MACs in YAML"):
        load_config(tmp_path / "c.yaml")


def test_unknown_job_lookup():
    with pytest.raises(ConfigError, match=r"no job 9 in the configuration \(have: 1, 2\)"):
        load_config(BASE).job(9)


# -- inputs that used to slip through --------------------------------------------------------
def _write(tmp_path, name: str, content: bytes | str) -> str:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


SMALL_JOB = (
    "jobs:\n- job_id: 1\n  slot_base: 0\n  num_slots: 2\n  mgid: 5\n  workers:\n"
    '  - {worker_id: 0, port: 1, mac: "%s", ip: 10.0.0.1, udp_port: 40000}\n'
)


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("mac.yaml", SMALL_JOB % "02:00:00:00:00:01\\n", "is not a MAC address"),
        ("port.yaml", "switch: {grpc_addr: '127.0.0.1:99999'}\njobs: []\n", "port 1..65535"),
        ("port0.yaml", "switch: {grpc_addr: '127.0.0.1:0'}\njobs: []\n", "port 1..65535"),
        ("digits.yaml", "switch: {device_id: " + "9" * 5000 + "}\njobs: []\n", "not valid YAML"),
        ("digits.json", '{"switch": {"device_id": ' + "9" * 5000 + '}, "jobs": []}', "not valid JSON"),
        ("big.yaml", "switch: {device_id: " + "9" * 1000 + "}\njobs: []\n", "an integer of 3322 bits"),
        ("latin1.yaml", b"jobs: []\n# caf\xe9\n", "not UTF-8 text"),
        ("dup.yaml", "jobs: []\njobs: []\n", "duplicate key 'jobs'"),
        ("dupjob.yaml", "jobs:\n- {job_id: 1, job_id: 2}\n", "duplicate key 'job_id'"),
        ("dup.json", '{"jobs": [], "jobs": []}', "duplicate key(s) ['jobs']"),
    ],
)
def test_malformed_files_give_one_clear_config_error(tmp_path, name, content, message):
    with pytest.raises(ConfigError) as info:
        load_config(_write(tmp_path, name, content))
    text = str(info.value)
    assert message in text and "\n" not in text and len(text) < 400, text
