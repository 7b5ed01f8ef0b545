"""scapy layers for the aggregation header (crafting, decoding, pcaps, tests).

The field list follows docs/protocol.md section 2; tests check it against the
struct codec in p4reduce.protocol on the golden packets.
"""

from __future__ import annotations

from scapy.fields import (
    BitField,
    ByteEnumField,
    ByteField,
    FieldLenField,
    FieldListField,
    FlagsField,
    IntField,
    ShortField,
    SignedIntField,
    XIntField,
)
from scapy.layers.inet import UDP
from scapy.packet import Packet, bind_layers

from p4reduce.protocol import AGG_UDP_PORT, HEADER_LEN, NONE, PROTOCOL_VERSION, MsgType


class P4Reduce(Packet):
    name = "P4Reduce"
    fields_desc = [
        ByteField("version", PROTOCOL_VERSION),
        ByteEnumField("msg_type", MsgType.DATA, {t.value: t.name for t in MsgType}),
        ShortField("job_id", 0),
        ByteField("worker_id", 0),
        # The `flags` byte: `owner` in bits 7..3 (a SCATTER packet's, section 3.1), the flags below.
        BitField("owner", 0, 5),
        FlagsField("flags", 0, 3, ["OVERFLOW", "MISMATCH", "SCATTER"]),
        BitField("shadow", 0, 1),
        BitField("slot", 0, 15),
        IntField("epoch", 0),
        XIntField("block", NONE),
        XIntField("next_block", NONE),
        ByteField("exp", 127),
        ByteField("next_exp", 127),
        FieldLenField("count", None, count_of="values", fmt="!H"),
        XIntField("session", 0),
        IntField("blocks", 0),
        XIntField("fingerprint", 0),
        FieldListField("values", [], SignedIntField("value", 0), count_from=lambda p: p.count),
    ]

    def guess_payload_class(self, payload: bytes) -> type[Packet]:
        # A software aggregator's datagrams may hold several packets back to back.
        return P4Reduce if len(payload) >= HEADER_LEN else super().guess_payload_class(payload)

    def answers(self, other: Packet) -> bool:
        return (
            isinstance(other, P4Reduce)
            and self.msg_type == MsgType.RESULT
            and other.job_id == self.job_id
            and other.slot == self.slot
            and other.block == self.block
        )


# Both directions: DATA to the aggregator port, RESULT from it.
bind_layers(UDP, P4Reduce, dport=AGG_UDP_PORT)
bind_layers(UDP, P4Reduce, sport=AGG_UDP_PORT)
