# SPDX-License-Identifier: Apache-2.0
"""The exact P4Runtime requests of push_pipeline / install / single writes,
recorded by an in-process fake P4Runtime server."""

from __future__ import annotations

import pathlib

import pytest
from fake_p4runtime import fake, write_bmv2_json  # noqa: F401 (fake: a fixture)

from p4reduce.controller.client import SwitchClient, WriteError
from p4reduce.controller.config import load_config
from p4reduce.controller.p4info import P4Info, P4InfoError
from p4reduce.controller.proto import code_pb2, p4r

HERE = pathlib.Path(__file__).resolve().parent
SMALL = HERE / "p4info_small.txtpb"
BUILD = HERE.parents[1] / "p4src" / "build"

CONFIG = {
    "switch": {"grpc_addr": "unused:1", "election_id": 7},
    "jobs": [
        {
            "job_id": 1,
            "mode": "dense",
            "slot_base": 0,
            "num_slots": 64,
            "mgid": 1,
            "session": 0x5E551015,
            "workers": [
                {"worker_id": 0, "port": 1, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "udp_port": 40000},
                {"worker_id": 1, "port": 2, "mac": "02:00:00:00:00:02", "ip": "10.0.0.2", "udp_port": 40001},
            ],
        }
    ],
    "l2": [{"mac": "02:00:00:00:00:01", "port": 1}],
    "broadcast": {"mgid": 1000, "ports": [1, 2]},
}


@pytest.fixture
def bmv2_json(tmp_path) -> pathlib.Path:
    return write_bmv2_json(tmp_path)


def table_update(
    table_id: int, match: list[bytes], action_id: int, params: list[bytes], kind: int = p4r.Update.INSERT
) -> p4r.Update:
    """An update spelled out by hand: field and param ids are 1, 2, ... in order."""
    u = p4r.Update(type=kind)
    t = u.entity.table_entry
    t.table_id = table_id
    for i, value in enumerate(match, 1):
        t.match.add(field_id=i).exact.value = value
    t.action.action.action_id = action_id
    for i, value in enumerate(params, 1):
        t.action.action.params.add(param_id=i, value=value)
    return u


def group_update(mgid: int, replicas: list[tuple[int, int]], kind: int = p4r.Update.INSERT) -> p4r.Update:
    u = p4r.Update(type=kind)
    g = u.entity.packet_replication_engine_entry.multicast_group_entry
    g.multicast_group_id = mgid
    for port, rid in replicas:
        g.replicas.add(egress_port=port, instance=rid)
    return u


MAC1, MAC2 = bytes.fromhex("020000000001"), bytes.fromhex("020000000002")
IP1, IP2 = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
SESSION = bytes.fromhex("5e551015")
EXPECTED_INSTALL = [
    # job 1: multicast group first, replica id = worker id ...
    group_update(1, [(1, 0), (2, 1)]),
    # ... then the result destinations (job_id, dest_worker) -> set_result_dest(mac, ip, udp_port) ...
    table_update(103, [b"\x01", b"\x00"], 206, [MAC1, IP1, b"\x9c\x40"]),
    table_update(103, [b"\x01", b"\x01"], 206, [MAC2, IP2, b"\x9c\x41"]),
    # ... and last the worker entries (port, src MAC, src IP, src UDP port)
    #     -> set_worker(job_id, worker_id, num_workers, mgid, slot_base, num_slots, session).
    table_update(
        101, [b"\x01", MAC1, IP1, b"\x9c\x40"], 201, [b"\x01", b"\x00", b"\x02", b"\x01", b"\x00", b"\x40", SESSION]
    ),
    table_update(
        101, [b"\x02", MAC2, IP2, b"\x9c\x41"], 201, [b"\x01", b"\x01", b"\x02", b"\x01", b"\x00", b"\x40", SESSION]
    ),
    # L2: dst MAC -> to_port(port)
    table_update(102, [MAC1], 203, [b"\x01"]),
    # broadcast: group (rid 0), then ff:ff:ff:ff:ff:ff -> flood(mgid)
    group_update(1000, [(1, 0), (2, 0)]),
    table_update(102, [b"\xff" * 6], 204, [b"\x03\xe8"]),
]


def test_push_pipeline_sends_p4info_and_bmv2_json(fake, bmv2_json):
    with SwitchClient.connect(fake.addr, device_id=3, election_id=7) as client:
        client.push_pipeline(SMALL, bmv2_json)
    assert [a.device_id for a in fake.arbitrations] == [3] and fake.arbitrations[0].election_id.low == 7
    (req,) = fake.pipelines
    assert req.device_id == 3 and req.election_id == p4r.Uint128(high=0, low=7)
    assert req.action == p4r.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
    assert req.config.p4info == P4Info.load(SMALL).proto
    assert req.config.p4_device_config == bmv2_json.read_bytes()
    assert req.config.cookie.cookie != 0


def test_install_sends_exactly_the_expected_write_request(fake, bmv2_json):
    with SwitchClient.connect(fake.addr, election_id=7) as client:
        client.push_pipeline(SMALL, bmv2_json)
        client.install(load_config(CONFIG))
    (req,) = fake.writes
    expected = p4r.WriteRequest(device_id=0, election_id=p4r.Uint128(low=7), updates=EXPECTED_INSTALL)
    for got, want in zip(req.updates, expected.updates, strict=True):
        assert got == want, f"\n{got}\n!=\n{want}"
    assert req == expected


def test_install_with_the_built_p4info(fake):
    if not (BUILD / "p4reduce.p4info.txtpb").exists():
        pytest.skip("p4src/build not built")
    info = P4Info.load(BUILD / "p4reduce.p4info.txtpb")
    with SwitchClient.connect(fake.addr) as client:
        client.push_pipeline(BUILD / "p4reduce.p4info.txtpb", BUILD / "p4reduce.json")
        client.install(load_config(CONFIG))
    (req,) = fake.writes
    workers = [
        u.entity.table_entry
        for u in req.updates
        if u.entity.table_entry.table_id == info.table("P4ReduceIngress.admission.workers").id
    ]
    assert len(req.updates) == len(EXPECTED_INSTALL) and len(workers) == 2
    assert workers[1].action.action.action_id == info.action("P4ReduceIngress.admission.set_worker").id
    assert [p.value for p in workers[1].action.action.params] == [
        b"\x01",
        b"\x01",
        b"\x02",
        b"\x01",
        b"\x00",
        b"\x40",
        SESSION,
    ]


def test_a_job_without_a_session_gets_a_random_one_at_each_install(fake, bmv2_json):
    config = {**CONFIG, "jobs": [{k: v for k, v in CONFIG["jobs"][0].items() if k != "session"}]}
    sessions = []
    with SwitchClient.connect(fake.addr) as client:
        client.push_pipeline(SMALL, bmv2_json)
        for _ in range(2):
            assert client.install(load_config(config)) == {1: client.sessions[1]}
            sessions.append(client.sessions[1])
            assert client.read_sessions(load_config(config).job(1)) == {sessions[-1]}
    assert 0 not in sessions and sessions[0] != sessions[1]
    for write, session in zip(fake.writes, sessions, strict=True):
        workers = [u.entity.table_entry for u in write.updates if u.entity.table_entry.table_id == 101]
        assert [w.action.action.params[6].value for w in workers] == [session.to_bytes(4, "big").lstrip(b"\0")] * 2


def test_groups_are_deleted_before_a_new_push(fake, bmv2_json):
    # simple_switch_grpc forgets its groups on a push while BMv2 keeps their
    # replicas: re-inserting them afterwards would double every result.
    with SwitchClient.connect(fake.addr, election_id=7) as client:
        client.push_pipeline(SMALL, bmv2_json)
        client.install(load_config(CONFIG))
        assert sorted(fake.groups) == [1, 1000]
        client.push_pipeline(SMALL, bmv2_json)
    install, delete = fake.writes
    assert [u.type for u in delete.updates] == [p4r.Update.DELETE] * 2
    assert [
        u.entity.packet_replication_engine_entry.multicast_group_entry.multicast_group_id for u in delete.updates
    ] == [1, 1000]
    assert len(fake.pipelines) == 2 and fake.groups == {}


def test_existing_entities_are_modified_on_reinstall(fake, bmv2_json):
    fake.refuse = lambda u: (
        (code_pb2.ALREADY_EXISTS, "group exists")
        if u.type == p4r.Update.INSERT and u.entity.HasField("packet_replication_engine_entry")
        else None
    )
    with SwitchClient.connect(fake.addr, election_id=7) as client:
        client.push_pipeline(SMALL, bmv2_json)
        client.install(load_config(CONFIG))
    first, retry = fake.writes
    assert list(first.updates) == EXPECTED_INSTALL
    assert list(retry.updates) == [
        group_update(1, [(1, 0), (2, 1)], p4r.Update.MODIFY),
        group_update(1000, [(1, 0), (2, 0)], p4r.Update.MODIFY),
    ]


def test_refused_updates_are_named(fake, bmv2_json):
    fake.refuse = lambda u: (
        (code_pb2.RESOURCE_EXHAUSTED, "table full") if u.entity.table_entry.table_id == 101 else None
    )
    with SwitchClient.connect(fake.addr) as client:
        client.push_pipeline(SMALL, bmv2_json)
        with pytest.raises(WriteError) as err:
            client.install(load_config(CONFIG))
    assert len(fake.writes) == 1  # no MODIFY retry for anything but ALREADY_EXISTS
    assert err.value.failures == [
        (
            "P4ReduceIngress.admission.workers entry of job 1 worker 0 (port 1, 02:00:00:00:00:01, "
            "10.0.0.1, udp 40000)",
            "RESOURCE_EXHAUSTED",
            "table full",
        ),
        (
            "P4ReduceIngress.admission.workers entry of job 1 worker 1 (port 2, 02:00:00:00:00:02, "
            "10.0.0.2, udp 40001)",
            "RESOURCE_EXHAUSTED",
            "table full",
        ),
    ]
    assert "2 of 8 updates (upsert) refused" in str(err.value)


def test_single_writes(fake):
    with SwitchClient.connect(fake.addr) as client:
        client.use_pipeline(SMALL)
        client.write_table_entry(
            "P4ReduceIngress.forwarding.l2",
            {"hdr.ethernet.dst_addr": 0x020000000005},
            "P4ReduceIngress.forwarding.to_port",
            {"port": 5},
        )
        client.write_multicast_group(7, [(1, 0), (3, 2)], update="modify")
        client.write_table_entry(
            "l2", {"hdr.ethernet.dst_addr": 0x020000000005}, "to_port", {"port": 6}, update="modify"
        )
    assert [list(w.updates) for w in fake.writes] == [
        [table_update(102, [bytes.fromhex("020000000005")], 203, [b"\x05"])],
        [group_update(7, [(1, 0), (3, 2)], p4r.Update.MODIFY)],
        [table_update(102, [bytes.fromhex("020000000005")], 203, [b"\x06"], p4r.Update.MODIFY)],
    ]


@pytest.mark.parametrize(
    "table, match, action, params, message",
    [
        (
            "P4ReduceIngress.forwarding.l2",
            {"hdr.ethernet.dst_addr": 1},
            "P4ReduceIngress.forwarding.to_port",
            {"port": 512},
            r"P4ReduceIngress.forwarding.to_port param port: 512 does not fit in 9 bits",
        ),
        (
            "P4ReduceIngress.forwarding.l2",
            {"hdr.ethernet.src_addr": 1},
            "P4ReduceIngress.forwarding.to_port",
            {"port": 1},
            r"match of table 'P4ReduceIngress.forwarding.l2': P4Info lacks \['hdr.ethernet.src_addr'\]",
        ),
        (
            "P4ReduceIngress.forwarding.l2",
            {"hdr.ethernet.dst_addr": 1},
            "P4ReduceIngress.forwarding.to_port",
            {},
            r"the controller does not set \['port'\]",
        ),
        (
            "P4ReduceIngress.routes",
            {"hdr.ipv4.dst_addr": 1},
            "P4ReduceIngress.forwarding.to_port",
            {"port": 1},
            r"match field 'hdr.ipv4.dst_addr' is LPM, the controller only installs EXACT keys",
        ),
        (
            "P4ReduceIngress.forwarding.l2",
            {"hdr.ethernet.dst_addr": 1},
            "P4ReduceEgress.set_result_dest",
            {},
            r"is not an action of table",
        ),
    ],
)
def test_bad_entries_fail_before_anything_is_sent(fake, table, match, action, params, message):
    with SwitchClient.connect(fake.addr) as client:
        client.use_pipeline(SMALL)
        with pytest.raises(P4InfoError, match=message):
            client.write_table_entry(table, match, action, params)
    assert fake.writes == []


def test_bad_p4info_is_not_pushed(fake, bmv2_json, tmp_path):
    wrong = tmp_path / "wrong.txtpb"
    wrong.write_text(SMALL.read_text().replace('"P4ReduceEgress.set_result_dest"', '"P4ReduceEgress.set_dst"'))
    with SwitchClient.connect(fake.addr) as client:
        with pytest.raises(P4InfoError, match="action 'P4ReduceEgress.set_result_dest' not in P4Info"):
            client.push_pipeline(wrong, bmv2_json)
        with pytest.raises(P4InfoError, match="not a BMv2 JSON"):
            client.push_pipeline(SMALL, SMALL)
    assert fake.pipelines == []


def test_install_needs_a_pipeline_first(fake):
    from p4reduce.controller.errors import SwitchError

    with SwitchClient.connect(fake.addr) as client:
        with pytest.raises(SwitchError, match="no P4Info"):
            client.install(load_config(CONFIG))
