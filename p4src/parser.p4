// Parser, deparser and IPv4 checksum controls.
#ifndef P4REDUCE_PARSER_P4
#define P4REDUCE_PARSER_P4

parser P4ReduceParser(packet_in pkt, out header_t hdr, inout metadata_t meta,
                      inout standard_metadata_t standard_metadata) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        // Only an unfragmented UDP datagram without IP options can be a whole
        // aggregation packet (flags bit 0 is More Fragments). Anything else is
        // ordinary traffic for L2 forwarding.
        transition select(hdr.ipv4.ihl, hdr.ipv4.flags[0:0], hdr.ipv4.frag_offset,
                          hdr.ipv4.protocol) {
            (4w5, 1w0, 13w0, IPPROTO_UDP): parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            AGG_UDP_PORT: parse_agg;
            default: accept;
        }
    }

    state parse_agg {
        pkt.extract(hdr.agg);
        // Only DATA carries values (and a parent's RESULT to a leaf job), and
        // only B of them. Any other count (or values behind a JOIN) leaves the
        // values header invalid with count != 0, and admission drops the
        // packet as malformed.
        transition select(hdr.agg.msg_type, hdr.agg.count) {
            (MSG_DATA, VALUES_PER_PACKET): parse_values;
            (MSG_RESULT, VALUES_PER_PACKET): parse_values;
            default: accept;
        }
    }

    state parse_values {
        // A truncated packet fails here (PacketTooShort): BMv2 still runs
        // ingress, with hdr.vals invalid, and admission drops it.
        pkt.extract(hdr.vals);
        transition accept;
    }
}

// Sets standard_metadata.checksum_error on a bad IPv4 header checksum. Only
// aggregation packets are dropped for it (admission): ordinary traffic is
// forwarded untouched, as a plain L2 switch would.
control P4ReduceVerifyChecksum(inout header_t hdr, inout metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

// Only answers (RESULT, JOINED) and a leaf's DATA to its parent have rewritten
// IPv4 headers; forwarded frames keep their checksum, so a corrupted one is not
// silently repaired on the way.
control P4ReduceComputeChecksum(inout header_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid() && (meta.is_answer == 1 || meta.upstream == 1),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control P4ReduceDeparser(packet_out pkt, in header_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.agg);
        pkt.emit(hdr.vals);  // absent in header-only packets (count = 0)
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
