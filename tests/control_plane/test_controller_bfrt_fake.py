# SPDX-License-Identifier: Apache-2.0
"""The fake BF Runtime server (fake_bfruntime.py) accepts what bf_switchd accepts and refuses
what it refuses, naming the culprit: driven here through a raw BfRuntimeStub and StreamChannel,
with requests encoded by hand (not by the fake's own encoder)."""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator

import grpc
import pytest
from fake_bfruntime import (
    ALL_PIPES,
    FIXED_JSON,
    PROGRAM,
    PROGRAM_JSON,
    FakeBfRuntime,
    fake_bfrt,  # noqa: F401 (a fixture)
    serve,
)

from p4reduce.controller.bfrt import bfruntime_pb2 as pb
from p4reduce.controller.bfrt import bfruntime_pb2_grpc

WORKERS = "pipe.Ingress.admission.workers"
L2 = "pipe.Ingress.forwarding.l2"
ROUNDS = "pipe.Ingress.agreement.rounds"  # a register of a pair: fingerprint, verdict
EVENTS = "pipe.Ingress.events"  # a counter of 16 cells
WORKER_KEY = {"ig_intr_md.ingress_port": 1, "hdr.ethernet.src_addr": 0x020000000001, "hdr.ipv4.src_addr": 0x0A000001}
WORKER_KEY |= {"hdr.udp.src_port": 40000}
WORKER_DATA = {"job_id": 1, "worker_id": 0, "worker_bit": 1, "num_workers": 2, "mgid": 1, "slot_base": 0}
WORKER_DATA |= {"slot_end": 64, "num_slots": 64, "session": 0x5E551015}
SET_WORKER = "Ingress.admission.set_worker"


class Client:
    """A raw BF Runtime client: a channel, its stub, and a StreamChannel fed from a queue."""

    def __init__(self, addr: str, client_id: int = 1) -> None:
        self.client_id = client_id
        self.channel = grpc.insecure_channel(addr)
        self.stub = bfruntime_pb2_grpc.BfRuntimeStub(self.channel)
        self._requests: queue.Queue[pb.StreamMessageRequest | None] = queue.Queue()
        self.stream = self.stub.StreamChannel(iter(self._requests.get, None))

    def subscribe(self) -> pb.Subscribe:
        self._requests.put(pb.StreamMessageRequest(client_id=self.client_id, subscribe=pb.Subscribe(device_id=0)))
        return next(self.stream).subscribe

    def bind(self, p4_name: str = PROGRAM) -> None:
        config = [pb.ForwardingPipelineConfig(p4_name=p4_name)]
        self.stub.SetForwardingPipelineConfig(
            pb.SetForwardingPipelineConfigRequest(client_id=self.client_id, action=0, config=config)
        )

    def write(self, *updates: pb.Update, pipe: int = ALL_PIPES) -> None:
        target = pb.TargetDevice(device_id=0, pipe_id=pipe)
        self.stub.Write(pb.WriteRequest(target=target, client_id=self.client_id, updates=updates, p4_name=PROGRAM))

    def read(self, *entries: pb.TableEntry, pipe: int = ALL_PIPES) -> list[pb.TableEntry]:
        target = pb.TargetDevice(device_id=0, pipe_id=pipe)
        entities = [pb.Entity(table_entry=e) for e in entries]
        request = pb.ReadRequest(target=target, client_id=self.client_id, entities=entities, p4_name=PROGRAM)
        return [e.table_entry for answer in self.stub.Read(request) for e in answer.entities]

    def close(self) -> None:
        self._requests.put(None)
        self.channel.close()


@pytest.fixture
def client(fake_bfrt: FakeBfRuntime) -> Iterator[Client]:
    """Client 1, subscribed and bound to the program."""
    c = Client(fake_bfrt.addr)
    assert c.subscribe().status.code == 0
    c.bind()
    yield c
    c.close()


# -- requests spelled out by hand --------------------------------------------------------------


def _width(spec: dict) -> int:
    type_ = spec["type"]
    return type_.get("width") or {"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}.get(type_["type"], 0)


def _stream(value: int, width: int) -> bytes:
    return value.to_bytes((width + 7) // 8, "big")


# The tables' BF Runtime info straight from the JSON files the fake serves.
SPECS = {spec["name"]: spec for path in (PROGRAM_JSON, FIXED_JSON) for spec in json.loads(path.read_text())["tables"]}


def _data_field(field_id: int, value: object, width: int) -> pb.DataField:
    if isinstance(value, bool):
        return pb.DataField(field_id=field_id, bool_val=value)
    if isinstance(value, str):
        return pb.DataField(field_id=field_id, str_val=value)
    if isinstance(value, list):
        return pb.DataField(field_id=field_id, int_arr_val=pb.DataField.IntArray(val=value))
    assert isinstance(value, int)
    return pb.DataField(field_id=field_id, stream=_stream(value, width))


def entry(name: str, key: dict[str, int], action: str | None = None, data: dict | None = None) -> pb.TableEntry:
    """An entry of table `name`, exact key fields and data fields by name (of the action, or of the table)."""
    spec = SPECS[name]
    keys = {k["name"]: k for k in spec["key"]}
    out = pb.TableEntry(table_id=spec["id"])
    for field, value in key.items():
        out.key.fields.add(field_id=keys[field]["id"]).exact.value = _stream(value, _width(keys[field]))
    fields = {d["singleton"]["name"]: d["singleton"] for d in spec.get("data", [])}
    if action is not None:
        action_spec = next(a for a in spec["action_specs"] if a["name"] == action)
        out.data.action_id = action_spec["id"]
        fields = {d["name"]: d for d in action_spec["data"]}
    for field, value in (data or {}).items():
        out.data.fields.append(_data_field(fields[field]["id"], value, _width(fields[field])))
    return out


def update(kind: int, e: pb.TableEntry) -> pb.Update:
    return pb.Update(type=kind, entity=pb.Entity(table_entry=e))


def insert(e: pb.TableEntry) -> pb.Update:
    return update(pb.Update.INSERT, e)


def modify(e: pb.TableEntry) -> pb.Update:
    return update(pb.Update.MODIFY, e)


def delete(e: pb.TableEntry) -> pb.Update:
    return update(pb.Update.DELETE, e)


def worker(action: str = SET_WORKER, **data: int) -> pb.TableEntry:
    return entry(WORKERS, WORKER_KEY, action, WORKER_DATA | data)


def node(node_id: int, ports: list[int]) -> pb.TableEntry:
    data = {"$MULTICAST_RID": 0, "$MULTICAST_LAG_ID": [], "$DEV_PORT": ports}
    return entry("$pre.node", {"$MULTICAST_NODE_ID": node_id}, data=data)


def group(mgid: int, nodes: list[int], xids: int | None = None) -> pb.TableEntry:
    e = entry("$pre.mgid", {"$MGID": mgid}, data={"$MULTICAST_NODE_ID": nodes})
    n = len(nodes) if xids is None else xids
    e.data.fields.add(field_id=2).bool_arr_val.val.extend([False] * n)
    e.data.fields.add(field_id=3).int_arr_val.val.extend([0] * n)
    return e


def port(dev_port: int, **data: object) -> pb.TableEntry:
    return entry("$PORT", {"$DEV_PORT": dev_port}, data={f"${k.upper()}": v for k, v in data.items()})


def cell(name: str, index: int, **data: int) -> pb.TableEntry:
    """A register or counter cell; a register's fields by their last name (fingerprint: ...rounds.fingerprint)."""
    index_field = SPECS[name]["key"][0]["name"]  # $REGISTER_INDEX or $COUNTER_INDEX
    named = {(k if k.startswith("$") else f"{name.removeprefix('pipe.')}.{k}"): v for k, v in data.items()}
    return entry(name, {index_field: index}, data=named)


def refused(call, code: grpc.StatusCode, *words: str) -> str:
    """Run a call the fake must refuse; check the status code and that the message names each word."""
    with pytest.raises(grpc.RpcError) as raised:
        call()
    assert raised.value.code() == code, raised.value.details()
    for word in words:
        assert word in raised.value.details()
    return raised.value.details()


# -- subscribe, bind, pipeline -----------------------------------------------------------------


def test_subscribe_bind_and_the_pipeline_config(fake_bfrt):
    c = Client(fake_bfrt.addr, client_id=3)
    answer = c.subscribe()
    assert (answer.device_id, answer.status.code) == (0, 0)
    c.bind()
    assert fake_bfrt.bound == {PROGRAM: 3}
    config = c.stub.GetForwardingPipelineConfig(pb.GetForwardingPipelineConfigRequest(device_id=0, client_id=3))
    assert config.config[0].p4_name == PROGRAM
    assert any(t["name"] == WORKERS for t in json.loads(config.config[0].bfruntime_info)["tables"])
    assert {t["name"] for t in json.loads(config.non_p4_config.bfruntime_info)["tables"]} >= {"$pre.mgid", "$PORT"}
    c.close()


def test_a_second_client_with_the_same_id_is_refused(fake_bfrt, client):
    other = Client(fake_bfrt.addr, client_id=1)
    assert other.subscribe().status.code == grpc.StatusCode.ALREADY_EXISTS.value[0]
    other.close()


def test_bind_refusals(fake_bfrt, client):
    stranger = Client(fake_bfrt.addr, client_id=2)
    refused(stranger.bind, grpc.StatusCode.FAILED_PRECONDITION, "client 2", "subscribed")
    stranger.subscribe()
    refused(lambda: stranger.bind("other_prog"), grpc.StatusCode.INVALID_ARGUMENT, "other_prog")
    refused(stranger.bind, grpc.StatusCode.ALREADY_EXISTS, PROGRAM, "client 1")
    stranger.close()


def test_the_program_is_free_once_its_client_has_gone(fake_bfrt, client):
    client.close()
    assert fake_bfrt.wait_unsubscribed(1)
    successor = Client(fake_bfrt.addr, client_id=2)
    successor.subscribe()
    successor.bind()
    assert fake_bfrt.bound == {PROGRAM: 2}
    successor.close()


def test_write_and_read_are_refused_before_bind(fake_bfrt):
    c = Client(fake_bfrt.addr)
    refused(lambda: c.write(insert(worker())), grpc.StatusCode.FAILED_PRECONDITION, "subscribed")
    c.subscribe()
    refused(lambda: c.write(insert(worker())), grpc.StatusCode.FAILED_PRECONDITION, "not bound")
    refused(lambda: c.read(pb.TableEntry(table_id=worker().table_id)), grpc.StatusCode.FAILED_PRECONDITION)
    assert fake_bfrt.table_entries(WORKERS) == {}
    c.close()


# -- match tables --------------------------------------------------------------------------------


def test_a_worker_entry_is_accepted_and_read_back(fake_bfrt, client):
    client.write(insert(worker()))
    ((key, (action, data)),) = fake_bfrt.table_entries(WORKERS).items()
    assert key == tuple(WORKER_KEY.items())
    assert (action, data) == (SET_WORKER, WORKER_DATA)

    by_key = worker()
    del by_key.data.fields[:]
    (read,) = client.read(by_key)
    assert read == worker()
    assert client.read(pb.TableEntry(table_id=by_key.table_id)) == [read]

    client.write(modify(worker(session=7)))
    assert fake_bfrt.table_entries(WORKERS)[key][1]["session"] == 7
    client.write(delete(by_key))
    assert fake_bfrt.table_entries(WORKERS) == {}
    refused(lambda: client.read(by_key), grpc.StatusCode.NOT_FOUND, WORKERS)


def test_refusals_name_the_culprit(fake_bfrt, client):
    bad_table = worker()
    bad_table.table_id = 12345
    unknown_key = worker()
    unknown_key.key.fields[3].field_id = 99
    short = worker()
    short.key.fields[3].exact.value = b"\x9c"
    wide_port = worker()
    wide_port.key.fields[0].exact.value = (512).to_bytes(2, "big")
    missing_data = worker()
    del missing_data.data.fields[8]
    unknown_action = worker()
    unknown_action.data.action_id = 4242
    ternary_as_exact = entry("pipe.Ingress.bridge", {"hdr.agg.$valid": 1, "hdr.agg.msg_type": 1})
    ternary_as_exact.key.fields.add(field_id=65537).exact.value = _stream(1, 32)
    twice = worker()
    twice.key.fields.append(twice.key.fields[0])
    wrong_member = worker()
    wrong_member.data.fields[0].ClearField("stream")
    wrong_member.data.fields[0].bool_val = True
    cases = [
        ([insert(bad_table)], grpc.StatusCode.NOT_FOUND, ["update 0", "table id 12345"]),
        ([insert(unknown_key)], grpc.StatusCode.INVALID_ARGUMENT, [WORKERS, "key field id 99"]),
        ([insert(short)], grpc.StatusCode.INVALID_ARGUMENT, ["hdr.udp.src_port", "1 bytes", "takes 2"]),
        ([insert(wide_port)], grpc.StatusCode.INVALID_ARGUMENT, ["ig_intr_md.ingress_port", "512", "9 bits"]),
        ([insert(missing_data)], grpc.StatusCode.INVALID_ARGUMENT, [SET_WORKER, "session missing"]),
        ([insert(unknown_action)], grpc.StatusCode.INVALID_ARGUMENT, [WORKERS, "action id 4242"]),
        (
            [insert(entry(WORKERS, WORKER_KEY, "NoAction"))],
            grpc.StatusCode.INVALID_ARGUMENT,
            ["NoAction", "DefaultOnly"],
        ),
        ([insert(ternary_as_exact)], grpc.StatusCode.INVALID_ARGUMENT, ["hdr.agg.msg_type is Ternary", "exact"]),
        ([insert(twice)], grpc.StatusCode.INVALID_ARGUMENT, ["ig_intr_md.ingress_port given twice"]),
        ([insert(wrong_member)], grpc.StatusCode.INVALID_ARGUMENT, ["job_id takes stream", "bool_val"]),
        ([insert(worker()), insert(worker())], grpc.StatusCode.ALREADY_EXISTS, ["update 1", "already"]),
        ([modify(worker())], grpc.StatusCode.NOT_FOUND, [WORKERS, "no entry"]),
        ([delete(worker())], grpc.StatusCode.NOT_FOUND, [WORKERS, "no entry"]),
    ]
    for updates, code, words in cases:
        refused(lambda updates=updates: client.write(*updates), code, *words)
    assert fake_bfrt.table_entries(WORKERS) == {}, "a refused write applies nothing"


def test_a_refusal_is_one_line_naming_update_table_field_and_reason(fake_bfrt, client):
    wide_port = worker()
    wide_port.key.fields[0].exact.value = (512).to_bytes(2, "big")
    message = refused(
        lambda: client.write(insert(worker(session=1)), insert(wide_port)), grpc.StatusCode.INVALID_ARGUMENT
    )
    assert message == f"update 1: table {WORKERS}: key field ig_intr_md.ingress_port: value 512 does not fit 9 bits"
    assert fake_bfrt.table_entries(WORKERS) == {}, "the update before the refused one is undone"


def test_a_const_table_takes_no_entries(fake_bfrt, client):
    e = entry("pipe.Ingress.zero_values.zero_values", {"hdr.agg.msg_type": 1, "hdr.agg.count": 0})
    e.data.action_id = fake_bfrt.table("pipe.Ingress.zero_values.zero_values").action_named("NoAction").id
    refused(lambda: client.write(insert(e)), grpc.StatusCode.PERMISSION_DENIED, "zero_values", "const")


def test_a_full_table_refuses_one_more(fake_bfrt, client):
    size = fake_bfrt.table(L2).size
    to_port = [
        insert(entry(L2, {"hdr.ethernet.dst_addr": mac}, "Ingress.forwarding.to_port", {"port": 1}))
        for mac in range(size + 1)
    ]
    client.write(*to_port[:size])
    refused(lambda: client.write(to_port[size]), grpc.StatusCode.RESOURCE_EXHAUSTED, L2, "full")


def test_the_refuse_hook_refuses_one_update(fake_bfrt, client):
    fake_bfrt.refuse = lambda u: (grpc.StatusCode.UNAVAILABLE, "injected") if u.type == pb.Update.MODIFY else None
    client.write(insert(worker()))
    refused(lambda: client.write(modify(worker())), grpc.StatusCode.UNAVAILABLE, "update 0: injected")


# -- registers and counters -----------------------------------------------------------------------


def test_register_writes_reach_the_pipes_of_their_target(fake_bfrt, client):
    client.write(modify(cell(ROUNDS, 5, fingerprint=0xABC, verdict=1)))
    assert fake_bfrt.register(ROUNDS, 5) == [{f"{ROUNDS[5:]}.fingerprint": 0xABC, f"{ROUNDS[5:]}.verdict": 1}] * 4
    client.write(modify(cell(ROUNDS, 5, fingerprint=7, verdict=0)), pipe=2)
    assert [p[f"{ROUNDS[5:]}.fingerprint"] for p in fake_bfrt.register(ROUNDS, 5)] == [0xABC, 0xABC, 7, 0xABC]

    key_only = cell(ROUNDS, 5)
    (read,) = client.read(key_only)
    fingerprints = [int.from_bytes(f.stream, "big") for f in read.data.fields if f.field_id == 1]
    assert fingerprints == [0xABC, 0xABC, 7, 0xABC], "one value per pipe, in pipe order"
    (on_pipe_2,) = client.read(key_only, pipe=2)
    assert [int.from_bytes(f.stream, "big") for f in on_pipe_2.data.fields] == [7, 0]
    assert [f.stream for f in client.read(cell(ROUNDS, 6))[0].data.fields] == [bytes(4)] * 8


def test_register_refusals(fake_bfrt, client):
    size = fake_bfrt.table(ROUNDS).size
    refused(
        lambda: client.write(modify(cell(ROUNDS, size, fingerprint=1, verdict=1))),
        grpc.StatusCode.INVALID_ARGUMENT,
        "$REGISTER_INDEX",
        f"index {size} is outside its range",
    )
    refused(
        lambda: client.write(insert(cell(ROUNDS, 1, fingerprint=1, verdict=1))),
        grpc.StatusCode.INVALID_ARGUMENT,
        ROUNDS,
        "INSERT",
    )
    refused(
        lambda: client.write(modify(cell(ROUNDS, 1, fingerprint=1))),
        grpc.StatusCode.INVALID_ARGUMENT,
        "Ingress.agreement.rounds.verdict missing",
    )


def test_counters_set_by_the_test_are_read_and_written(fake_bfrt, client):
    fake_bfrt.set_counter(EVENTS, 3, 42)
    (read,) = client.read(cell(EVENTS, 3))
    assert [(f.field_id, f.stream) for f in read.data.fields] == [(65554, (42).to_bytes(8, "big"))]
    client.write(modify(cell(EVENTS, 3, **{"$COUNTER_SPEC_PKTS": 0})))
    assert fake_bfrt.counter(EVENTS, 3) == 0
    whole = client.read(pb.TableEntry(table_id=read.table_id))
    assert len(whole) == fake_bfrt.table(EVENTS).size
    refused(lambda: client.read(cell(EVENTS, 16)), grpc.StatusCode.INVALID_ARGUMENT, "$COUNTER_INDEX")


# -- the packet replication engine and ports -------------------------------------------------------


def test_groups_of_nodes(fake_bfrt, client):
    client.write(insert(node(1, [1, 2])), insert(node(2, [3])), insert(group(9, [1, 2])))
    assert fake_bfrt.groups() == {9: [1, 2]}
    assert fake_bfrt.nodes() == {1: (0, [1, 2]), 2: (0, [3])}
    (read,) = client.read(pb.TableEntry(table_id=group(9, []).table_id))
    assert list(read.data.fields[0].int_arr_val.val) == [1, 2]

    refused(lambda: client.write(insert(group(10, [1, 7]))), grpc.StatusCode.NOT_FOUND, "node 7")
    refused(lambda: client.write(insert(group(10, [1], xids=2))), grpc.StatusCode.INVALID_ARGUMENT, "lengths")
    refused(lambda: client.write(delete(node(1, []))), grpc.StatusCode.FAILED_PRECONDITION, "node 1", "9")
    refused(lambda: client.write(insert(node(1, [1]))), grpc.StatusCode.ALREADY_EXISTS, "$pre.node")
    refused(lambda: client.write(insert(node(3, [512]))), grpc.StatusCode.INVALID_ARGUMENT, "port 512")
    without_rid = node(3, [1])
    del without_rid.data.fields[0]
    refused(lambda: client.write(insert(without_rid)), grpc.StatusCode.INVALID_ARGUMENT, "$MULTICAST_RID missing")

    client.write(delete(group(9, [])), delete(node(1, [])))
    assert (fake_bfrt.groups(), list(fake_bfrt.nodes())) == ({}, [2])
    refused(lambda: client.write(delete(group(9, []))), grpc.StatusCode.NOT_FOUND, "$pre.mgid")


def test_ports(fake_bfrt, client):
    client.write(insert(port(8, speed="BF_SPEED_100G", fec="BF_FEC_TYP_REED_SOLOMON", port_enable=True)))
    assert fake_bfrt.ports()[8]["$SPEED"] == "BF_SPEED_100G"
    assert fake_bfrt.ports()[8]["$TX_MTU"] == 10240, "a field not given takes its default"
    client.write(modify(port(8, port_enable=False)))
    assert fake_bfrt.ports()[8]["$PORT_ENABLE"] is False
    assert fake_bfrt.ports()[8]["$SPEED"] == "BF_SPEED_100G", "MODIFY changes the fields given only"

    refused(
        lambda: client.write(insert(port(9, fec="BF_FEC_TYP_NONE"))), grpc.StatusCode.INVALID_ARGUMENT, "$SPEED missing"
    )
    refused(
        lambda: client.write(insert(port(9, speed="BF_SPEED_7G", fec="BF_FEC_TYP_NONE"))),
        grpc.StatusCode.INVALID_ARGUMENT,
        "$SPEED",
        "'BF_SPEED_7G' is none of",
    )
    refused(
        lambda: client.write(insert(port(8, speed="BF_SPEED_100G", fec="BF_FEC_TYP_NONE"))),
        grpc.StatusCode.ALREADY_EXISTS,
    )
    refused(lambda: client.write(modify(port(9, port_enable=True))), grpc.StatusCode.NOT_FOUND, "$PORT")
    client.write(delete(port(8)))
    assert fake_bfrt.ports() == {}


def test_valid_ports_are_the_only_ports():
    with serve(valid_ports={0, 4}) as fake:
        c = Client(fake.addr)
        c.subscribe()
        c.bind()
        refused(
            lambda: c.write(insert(port(8, speed="BF_SPEED_100G", fec="BF_FEC_TYP_NONE"))),
            grpc.StatusCode.INVALID_ARGUMENT,
            "dev port 8",
        )
        c.write(insert(port(4, speed="BF_SPEED_100G", fec="BF_FEC_TYP_NONE")))
        c.close()
