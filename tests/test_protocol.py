# SPDX-License-Identifier: Apache-2.0
import numpy as np
import pytest

from p4reduce.protocol import (
    HEADER_LEN,
    NONE,
    AggHeader,
    MalformedPacket,
    MsgType,
    decode_values,
    encode,
    fingerprint,
    lookahead_key,
    split_key,
)


def test_header_layout_by_hand():
    h = AggHeader(
        MsgType.DATA,
        job_id=0x0102,
        worker_id=5,
        slot=0x1234,
        shadow=1,
        epoch=0xDEADBEEF,
        block=7,
        next_block=NONE,
        exp=130,
        next_exp=3,
        count=0,
        flags=2,
        session=0x11223344,
        blocks=0x55,
        fingerprint=0xCAFEF00D,
    )
    assert HEADER_LEN == 36
    assert h.pack() == bytes(
        [
            3,
            1,
            0x01,
            0x02,
            5,
            2,
            0x92,
            0x34,
            0xDE,
            0xAD,
            0xBE,
            0xEF,
            0,
            0,
            0,
            7,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            130,
            3,
            0,
            0,
            0x11,
            0x22,
            0x33,
            0x44,
            0,
            0,
            0,
            0x55,
            0xCA,
            0xFE,
            0xF0,
            0x0D,
        ]
    )


def test_fingerprint_tells_every_ingredient_apart():
    base = dict(epoch=3, length=1000, dtype=np.float32, block_size=256, num_slots=64, scale_workers=4)
    prints = {fingerprint(**base)}
    for key, other in [
        ("epoch", 4),
        ("length", 1001),
        ("dtype", np.int32),
        ("block_size", 128),
        ("num_slots", 32),
        ("scale_workers", 8),
    ]:
        prints.add(fingerprint(**(base | {key: other})))
    assert len(prints) == 7
    assert fingerprint(**base) == fingerprint(**base)


def test_roundtrip_with_values():
    vals = np.array([1, -1, 2**31 - 1, -(2**31)], dtype=np.int32)
    h = AggHeader(MsgType.RESULT, 9, 3, 17, 0, 4, 99, 131, 140, 141, count=4, flags=1)
    payload = encode(h, vals)
    assert payload[HEADER_LEN:] == bytes.fromhex("00000001ffffffff7fffffff80000000")
    assert AggHeader.unpack(payload) == h
    np.testing.assert_array_equal(decode_values(payload, 4), vals)


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda b: b[:10], "truncated"),
        (lambda b: bytes([1]) + b[1:], "bad_version"),  # version 1: the 22-byte header of old
        (lambda b: b[:1] + bytes([len(MsgType) + 1]) + b[2:], "bad_type"),
        (lambda b: b + b"\0\0\0\0", "bad_length"),
        (lambda b: b[:-1], "bad_length"),
    ],
)
def test_malformed(mutate, reason):
    good = encode(AggHeader(MsgType.DATA, 1, 0, 0, 0, 0, 0, NONE, count=2), np.array([1, 2]))
    with pytest.raises(MalformedPacket) as info:
        AggHeader.unpack(mutate(good))
    assert info.value.reason == reason


def test_lookahead_key_orders_block_then_larger_exponent():
    keys = [lookahead_key(35, 129), lookahead_key(67, 140), lookahead_key(35, 131)]
    assert split_key(min(keys)) == (35, 131)
    assert split_key(lookahead_key(NONE, 0)) == (NONE, 0)


def test_encode_rejects_wrong_count():
    with pytest.raises(ValueError):
        encode(AggHeader(MsgType.DATA, 1, 0, 0, 0, 0, 0, count=3), np.zeros(2))
    with pytest.raises(ValueError):
        AggHeader(MsgType.DATA, 1, 0, 1 << 15, 0, 0, 0).pack()
