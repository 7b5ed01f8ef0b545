# SPDX-License-Identifier: Apache-2.0
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
    MultipleTypeField,
    ShortField,
    SignedIntField,
    XIntField,
)
from scapy.layers.inet import UDP
from scapy.packet import Packet, bind_layers

from p4reduce.protocol import AGG_UDP_PORT, HEADER_LEN, NONE, PROTOCOL_VERSION, MsgType


def _flags(bit0: str) -> FlagsField:
    return FlagsField("flags", 0, 3, [bit0, "MISMATCH", "SCATTER"])


class P4Reduce(Packet):
    name = "P4Reduce"
    fields_desc = [
        ByteField("version", PROTOCOL_VERSION),
        ByteEnumField("msg_type", MsgType.DATA, {t.value: t.name for t in MsgType}),
        ShortField("job_id", 0),
        ByteField("worker_id", 0),
        # The `flags` byte: `owner` in bits 7..3 (a SCATTER packet's, section 3.1), the flags below;
        # bit 0 is OPENING on a DATA (the opening round of its stream), OVERFLOW on the other types.
        BitField("owner", 0, 5),
        MultipleTypeField([(_flags("OPENING"), lambda pkt: pkt.msg_type == MsgType.DATA)], _flags("OVERFLOW")),
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

    def is_repeat(self) -> bool:
        """A RESULT with next_block == block != NONE: the holders of the block send it again at
        next_exp (p4reduce.protocol.is_repeat, docs/protocol.md section 3)."""
        return self.msg_type == MsgType.RESULT and self.block == self.next_block != NONE

    def mysummary(self) -> str:
        """As the Wireshark dissector's Info column names a DATA or RESULT (docs/wireshark.md)."""
        block, next_block = ("NONE" if b == NONE else str(b) for b in (self.block, self.next_block))
        text = self.sprintf("P4Reduce %msg_type%") + (
            f" job {self.job_id} worker {self.worker_id} slot {self.slot} block {block} next {next_block}"
        )
        if self.msg_type == MsgType.DATA and "OPENING" in self.flags:
            text += " opening"
        if self.is_repeat():
            text += " REPEAT"
        return text

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
