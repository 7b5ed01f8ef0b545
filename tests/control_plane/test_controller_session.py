# SPDX-License-Identifier: Apache-2.0
"""Session behaviour: arbitration outcomes, timeouts, counters, pipeline fetch."""

from __future__ import annotations

import pathlib
import socket
import time

import pytest
from fake_p4runtime import fake  # noqa: F401 (a fixture)

from p4reduce.controller.client import NotPrimary, SwitchClient, SwitchError, SwitchUnreachable
from p4reduce.controller.config import SwitchConfig
from p4reduce.controller.pipeline import EVENT_NAMES, decode_counters
from p4reduce.controller.proto import p4r

# Not a timing check (load makes those flaky): only a hang, far beyond the timeouts under
# test, fails; that the configured timeout was the one used is in the error message.
HANG = 30.0

SMALL = pathlib.Path(__file__).resolve().parent / "p4info_small.txtpb"


def closed_port() -> int:
    """A local port nobody listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_primary_session(fake):
    with SwitchClient.connect(fake.addr, device_id=2, election_id=(1 << 64) + 5) as client:
        assert client.primary
    (arb,) = fake.arbitrations
    assert arb.device_id == 2 and (arb.election_id.high, arb.election_id.low) == (1, 5)
    assert fake.stream_closed.wait(5)  # close() ends the stream


def test_from_config_uses_the_switch_section(fake):
    cfg = SwitchConfig(grpc_addr=fake.addr, device_id=4, election_id=9, thrift_port=9099)
    with SwitchClient.from_config(cfg) as client:
        assert client.thrift_port == 9099
    assert fake.arbitrations[0].device_id == 4 and fake.arbitrations[0].election_id.low == 9


def test_another_primary_raises_not_primary(fake):
    fake.arbitration = "backup"
    with pytest.raises(
        NotPrimary,
        match=rf"{fake.addr}: not primary for device 0 \(our election id 1, "
        r"primary's 11\): a controller with a higher election id "
        r"is primary",
    ):
        SwitchClient.connect(fake.addr)


def test_refused_election_id_raises_not_primary(fake):
    fake.arbitration = "abort"
    with pytest.raises(NotPrimary, match="INVALID_ARGUMENT: Election id already exists"):
        SwitchClient.connect(fake.addr)


def test_silent_switch_is_unreachable_within_the_timeout(fake):
    fake.arbitration = "silent"
    start = time.monotonic()
    with pytest.raises(SwitchUnreachable, match=rf"{fake.addr}: no arbitration answer .* within 0.5 s"):
        SwitchClient.connect(fake.addr, timeout=0.5)
    assert time.monotonic() - start < HANG  # it gave up (the message names its timeout)


def test_nothing_listening_is_unreachable_within_the_timeout():
    addr = f"127.0.0.1:{closed_port()}"
    start = time.monotonic()
    with pytest.raises(SwitchUnreachable, match=rf"no P4Runtime server answered at {addr} within 0.4 s"):
        SwitchClient.connect(addr, timeout=0.4)
    assert time.monotonic() - start < HANG  # it gave up (the message names its timeout)


def test_reads_work_without_arbitration(fake):
    fake.counters = {0: 12, 1: 6, 2: 1, 4: 3, 8: 40, 10: 5, 12: 2, 15: 4}
    with SwitchClient.connect(fake.addr, arbitrate=False) as client:
        assert not client.primary
        client.use_pipeline(SMALL)
        counters = client.read_counters()
    assert fake.arbitrations == []
    (req,) = fake.reads
    (entity,) = req.entities
    assert entity.counter_entry.counter_id == 301 and not entity.counter_entry.HasField("index")
    assert counters == {
        "data_counted": 12,
        "result_multicast": 6,
        "result_unicast": 1,
        "retransmit_dropped": 0,
        "unknown_worker": 3,
        "identity_mismatch": 0,
        "bad_slot": 0,
        "malformed": 0,
        "forwarded": 40,
        "joined": 0,
        "bad_session": 5,
        "stale": 0,
        "upstream": 2,
        "from_parent": 0,
        "parent_dropped": 0,
        "event_15": 4,
    }


def test_counter_decoding_uses_packets_not_bytes():
    entries = []
    counts = [5, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 7, 1, 2, 3]
    for i, packets in enumerate(counts):
        e = p4r.CounterEntry(counter_id=1)
        e.index.index = i
        e.data.packet_count, e.data.byte_count = packets, 1000 + i
        entries.append(e)
    assert decode_counters(entries) == dict(zip(EVENT_NAMES, counts, strict=True))
    assert decode_counters([]) == dict.fromkeys(EVENT_NAMES, 0)


def test_pipeline_can_be_taken_from_the_switch(fake, tmp_path):
    bmv2_json = tmp_path / "p.json"
    bmv2_json.write_text('{"pipelines": []}')
    with SwitchClient.connect(fake.addr, arbitrate=False) as reader:
        with pytest.raises(SwitchError, match="has no pipeline"):
            reader.fetch_pipeline()
    with SwitchClient.connect(fake.addr) as client:
        client.push_pipeline(SMALL, bmv2_json)
    with SwitchClient.connect(fake.addr, arbitrate=False) as reader:
        assert reader.fetch_pipeline().table("workers").id == 101


def test_closed_client_refuses_calls(fake):
    client = SwitchClient.connect(fake.addr)
    client.use_pipeline(SMALL)
    client.close()
    client.close()  # idempotent
    with pytest.raises(SwitchError, match="not connected"):
        client.read_counters()
