# SPDX-License-Identifier: Apache-2.0
"""The job service's configuration (p4reduce/service/config.py): every bad field is one
line naming it."""

from __future__ import annotations

import copy
import pathlib

import pytest
from service_helpers import SWITCH

from p4reduce.controller.errors import ConfigError
from p4reduce.service.config import (
    AggregationAddress,
    FallbackSection,
    JobDefaults,
    RemoteAggregator,
    load_service_config,
    parse_service_config,
)

YAML = """\
switch:
  grpc_addr: 10.1.0.1:9559
  election_id: 3
  thrift_ip: 10.1.0.1
  address: {ip: 10.0.0.254, mac: "02:00:00:00:00:FE"}
  l2:
    - {mac: "02:00:00:00:00:01", port: 1}
    - {mac: "02:00:00:00:00:02", port: 2}
  broadcast: {mgid: 1000, ports: [1, 2]}
  slots: [128, 512]
  mgids: [1, 99]
  max_workers: 16
  timeout: 2.5
  p4info: build/p.txtpb
fallback: {host: 0.0.0.0, port: 48000, advertise: 10.0.0.9}
jobs: {num_slots: 32, lease_seconds: 20, max_lease_seconds: 600}
"""


def test_a_full_configuration(tmp_path):
    path = tmp_path / "service.yaml"
    path.write_text(YAML)
    cfg = load_service_config(path)
    s = cfg.switch
    assert s is not None
    c = s.connection
    assert (c.grpc_addr, c.election_id, c.thrift_ip) == ("10.1.0.1:9559", 3, "10.1.0.1")
    assert s.address == AggregationAddress("10.0.0.254", "02:00:00:00:00:fe", 48864)
    assert s.port_of("02:00:00:00:00:02") == 2 and s.port_of("02:00:00:00:00:03") is None
    assert (s.slots, s.mgids, s.max_workers, s.timeout) == ((128, 512), (1, 99), 16, 2.5)
    assert s.broadcast is not None and s.broadcast.mgid == 1000
    assert s.p4info == tmp_path / "build" / "p.txtpb" and s.bmv2_json is None  # relative to the file
    assert cfg.fallback == FallbackSection("0.0.0.0", 48000, "10.0.0.9")
    assert cfg.jobs == JobDefaults(32, 20.0, 600.0)


def test_defaults():
    cfg = parse_service_config({"fallback": "embedded"})
    assert cfg.switch is None and cfg.fallback == FallbackSection() and cfg.jobs == JobDefaults()
    s = parse_service_config({"switch": {"address": SWITCH["address"]}}).switch
    assert s is not None and (s.slots, s.mgids, s.max_workers) == ((0, 1024), (1, 999), 32)


def test_running_aggregators_instead_of_the_embedded_one():
    cfg = parse_service_config(
        {
            "fallback": {
                "aggregators": [
                    {"admin": "10.0.0.5:48900"},
                    {"admin": "agg2:48900", "advertise": "10.0.0.6", "slots": [100, 50], "timeout": 2},
                ]
            }
        }
    )
    assert cfg.fallback is None and cfg.switch is None
    assert cfg.aggregators == (
        RemoteAggregator(("10.0.0.5", 48900), "10.0.0.5"),
        RemoteAggregator(("agg2", 48900), "10.0.0.6", (100, 50), 2.0),
    )
    assert cfg.fallback_pools() == [(0, 32768), (100, 50)]


def with_switch(**changes):
    doc = {"switch": copy.deepcopy(SWITCH), "fallback": "embedded"}
    doc["switch"].update(changes)
    return doc


@pytest.mark.parametrize(
    "doc, message",
    [
        ({}, "neither 'switch' nor 'fallback'"),
        ([], "config: expected a mapping, got list"),
        ({"fallback": "embedded", "extra": 1}, "config: unknown key(s) ['extra']"),
        ({"switch": {}}, "switch: missing key(s) ['address']"),
        (with_switch(grpc_addr="nohost"), "switch.grpc_addr: 'nohost' is not a host:port address"),
        (with_switch(election_id=0), "switch.election_id: 0 is not an integer in 1.."),
        (with_switch(address={"ip": "10.0.0.254"}), "switch.address: missing key(s) ['mac']"),
        (with_switch(address={"ip": "x", "mac": "02:00:00:00:00:fe"}), "switch.address.ip: 'x' is not an IPv4"),
        (with_switch(address={"ip": "10.0.0.1", "mac": 5}), "switch.address.mac: 5 is not a MAC address"),
        (
            with_switch(address={"ip": "10.0.0.1", "mac": "02:00:00:00:00:fe", "udp_port": 5000}),
            "switch.address.udp_port: the P4 program aggregates UDP port 48864 only",
        ),
        (with_switch(l2=[{"mac": "02:00:00:00:00:01"}]), "switch.l2[0]: missing key(s) ['port']"),
        (with_switch(l2=[{"mac": "02:00:00:00:00:01", "port": 999}]), "switch.l2[0].port: 999 is not an integer"),
        (with_switch(slots=[0]), "switch.slots: expected [base, count], got [0]"),
        (with_switch(slots=[1000, 100]), r"switch.slots[1]: 100 is not an integer in 1..24"),
        (with_switch(slots=[0, 0]), "switch.slots[1]: 0 is not an integer in 1..1024"),
        (with_switch(mgids=[0, 5]), "switch.mgids[0]: 0 is not an integer in 1..65535"),
        (with_switch(mgids=[9, 5]), "switch.mgids[1]: 5 is not an integer in 9..65535"),
        (with_switch(broadcast={"mgid": 11, "ports": [1]}), "switch.broadcast.mgid: 11 is in the jobs' range"),
        (with_switch(broadcast={"mgid": 1000}), "switch.broadcast: missing key(s) ['ports']"),
        (with_switch(max_workers=33), "switch.max_workers: 33 is not an integer in 1..32"),
        (with_switch(timeout=float("nan")), "switch.timeout: nan is not a number of seconds"),
        (with_switch(timeout=0), "switch.timeout: 0 outside (0, 3600]"),
        (with_switch(p4info=""), "switch.p4info: '' is not a file name"),
        ({"fallback": "remote"}, "fallback: 'remote' is neither 'embedded' nor a mapping"),
        ({"fallback": {"type": "remote"}}, "fallback.type: 'remote': only 'embedded' is supported"),
        ({"fallback": {"aggregators": ["10.0.0.1:48864"]}}, "fallback.aggregators[0]: expected a mapping, got str"),
        ({"fallback": {"aggregators": []}}, "fallback.aggregators: an empty list"),
        ({"fallback": {"aggregators": [{"admin": "a:1"}], "host": "1.2.3.4"}}, "fallback: unknown key(s) ['host']"),
        ({"fallback": {"aggregators": [{"admin": "10.0.0.1"}]}}, "aggregators[0].admin: '10.0.0.1' is not HOST:PORT"),
        ({"fallback": {"aggregators": [{"admin": "10.0.0.1:0"}]}}, "fallback.aggregators[0].admin: port '0' outside"),
        ({"fallback": {"aggregators": [{"admin": "agg:9"}]}}, "fallback.aggregators[0].advertise: needed when admin"),
        ({"fallback": {"aggregators": [{"admin": "0.0.0.0:9"}]}}, "aggregators[0].advertise: needed when admin is 0.0"),
        (
            {"fallback": {"aggregators": [{"admin": "10.0.0.1:9"}, {"admin": "10.0.0.1:9"}]}},
            "fallback.aggregators: 10.0.0.1:9 named twice",
        ),
        (
            {"fallback": {"aggregators": [{"admin": "10.0.0.1:9", "slots": [0, 40000]}]}},
            "fallback.aggregators[0].slots[1]: 40000 is not an integer in 1..32768",
        ),
        ({"fallback": {"host": "0.0.0.0"}}, "fallback.advertise: needed when host is 0.0.0.0"),
        ({"fallback": {"host": "::1"}}, "fallback.host: '::1' is not an IPv4 address"),
        ({"fallback": {"port": 70000}}, "fallback.port: 70000 is not an integer in 0..65535"),
        ({"fallback": {"slots": [0, 40000]}}, "fallback.slots[1]: 40000 is not an integer in 1..32768"),
        ({"fallback": "embedded", "jobs": {"num_slots": 0}}, "jobs.num_slots: 0 is not an integer in 1..32768"),
        (
            {"fallback": "embedded", "jobs": {"lease_seconds": 100, "max_lease_seconds": 50}},
            "jobs.lease_seconds: 100 outside (0, 50]",
        ),
        ({"fallback": "embedded", "jobs": {"lease_seconds": True}}, "jobs.lease_seconds: True is not a number"),
        ({"fallback": "embedded", "jobs": {"lease_seconds": -1}}, "jobs.lease_seconds: -1 outside"),
    ],
)
def test_bad_fields_are_named(doc, message):
    with pytest.raises(ConfigError) as info:
        parse_service_config(doc)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "text, message",
    [
        ("fallback: embedded\nfallback: embedded\n", "duplicate key 'fallback'"),
        ("switch:\n  address: {ip: 10.0.0.1, mac: 10:00:00:00:00:01}\n", "(quote MACs in YAML)"),
        ("fallback: [\n", "not valid YAML"),
        ("", "config: expected a mapping, got NoneType"),
    ],
)
def test_bad_files(tmp_path, text, message):
    path = tmp_path / "service.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_service_config(path)
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value)


def test_a_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read .*nothing.yaml: No such file"):
        load_service_config(pathlib.Path(tmp_path, "nothing.yaml"))


def test_json(tmp_path):
    path = tmp_path / "service.json"
    path.write_text('{"fallback": {"port": 0}, "jobs": {"num_slots": 8}}')
    assert load_service_config(path).jobs.num_slots == 8
