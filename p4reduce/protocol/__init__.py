"""The wire protocol (docs/protocol.md): constants and the aggregation-header codec.

`p4reduce.protocol.scapy_layer` adds a scapy layer for the same header
(needs the `scapy` extra); nothing else here needs more than numpy.
"""
from p4reduce.protocol.codec import (AGG_UDP_PORT, ALL_WORKERS, DTYPE_CODES, EPOCH_MOD, EXP_BIAS, HEADER,
                                     HEADER_LEN, MAC_LEN, VERSION_AUTH, ErrorCode, GeometryField, fingerprint,
                                     INT_EXP, MAX_BLOCK_SIZE, MAX_JOB_ID, MAX_SLOTS,
                                     MAX_UDP_PAYLOAD, MAX_WORKERS, NONE, OWNER_SHIFT, PROTOCOL_VERSION,
                                     SCATTER_MASK, scatter_bits, scatter_flags, scatter_owner,
                                     VALUE_DTYPE, AggHeader, Flags, MalformedPacket, Mode, MsgType,
                                     decode_values, encode, lookahead_key, packet_buffer, split_key,
                                     wire_values)

__all__ = ["MAC_LEN", "VERSION_AUTH", "AGG_UDP_PORT", "ALL_WORKERS", "DTYPE_CODES", "ErrorCode", "GeometryField", "fingerprint", "EPOCH_MOD", "EXP_BIAS", "HEADER", "HEADER_LEN", "INT_EXP",
           "MAX_BLOCK_SIZE", "MAX_JOB_ID", "MAX_SLOTS", "MAX_UDP_PAYLOAD", "MAX_WORKERS", "NONE", "OWNER_SHIFT", "PROTOCOL_VERSION", "SCATTER_MASK", "VALUE_DTYPE", "AggHeader", "Flags",
           "MalformedPacket", "Mode", "MsgType", "decode_values", "encode", "lookahead_key",
           "packet_buffer", "scatter_bits", "scatter_flags", "scatter_owner", "split_key", "wire_values"]
