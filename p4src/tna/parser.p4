// Parsers and deparsers of both gresses.
#ifndef P4REDUCE_TNA_PARSER_P4
#define P4REDUCE_TNA_PARSER_P4

parser IngressParser(packet_in pkt, out header_t hdr, out ingress_metadata_t ig_md,
                     out ingress_intrinsic_metadata_t ig_intr_md) {
    Checksum() ipv4_checksum;

    state start {
        pkt.extract(ig_intr_md);
        // Only the flags read on paths that never set them start at 0 here;
        // every other field is written before any read whose value matters.
        // Zeroing all of them (`ig_md = { ... }`) makes each live from the
        // parser on, and the backend can then not share PHV containers between
        // fields whose uses never overlap, which ingress needs: the 64 values
        // fill 2048 of its 3200 MAU-visible PHV bits, and with every field
        // zeroed the allocation fails. (So `make check` turns p4test's
        // uninitialized-out-param warning off.) checksum_ok: set in parse_ipv4.
        ig_md.harvest = 0;
        ig_md.admitted = 0;
        ig_md.accepted = 0;
        ig_md.count_event = 0;
        ig_md.from_parent = 0;
        // The 64-bit port metadata is not used (and p4test cannot check writing
        // a struct from port_metadata_unpack): skip it.
        pkt.advance(PORT_METADATA_SIZE);
        transition select(ig_intr_md.ingress_port[6:0]) {
            RECIRC_PORT_IN_PIPE: parse_harvest;
            default: parse_ethernet;
        }
    }

    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        ipv4_checksum.add(hdr.ipv4);
        ig_md.checksum_ok = ipv4_checksum.verify();  // the backend takes verify() as it is, not negated
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
        ig_md.shadow = hdr.agg.shadow;
        ig_md.slot = (bit<16>) hdr.agg.slot;
        ig_md.opening = hdr.agg.flags[0:0];  // OPENING on a DATA (only DATA reach the registers)
        // Only DATA carries values (and a parent's RESULT to a leaf job), and
        // only B of them. Any other count (or values behind a JOIN) leaves the
        // values invalid with count != 0, and admission drops the packet as malformed.
        transition select(hdr.agg.msg_type, hdr.agg.count) {
            (MSG_DATA, VALUES_PER_PACKET): parse_values;
            (MSG_RESULT, VALUES_PER_PACKET): parse_values;
            default: accept;
        }
    }

    state parse_values {
        pkt.extract(hdr.vals_a);
        pkt.extract(hdr.vals_b);
        transition accept;
    }

    // Second pass of a RESULT: this program built every header of it in the
    // first pass (bridged kind HARVEST, then the full RESULT with its values).
    state parse_harvest {
        pkt.extract(hdr.bridged);
        ig_md.harvest = 1;
        ig_md.opening = hdr.bridged.opening;
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.udp);
        pkt.extract(hdr.agg);
        ig_md.shadow = hdr.agg.shadow;  // the RESULT keeps the round's pool: the pairs' cell
        ig_md.slot = (bit<16>) hdr.agg.slot;
        pkt.extract(hdr.vals_a);
        pkt.extract(hdr.vals_b);
        transition accept;
    }
}

// Emits the bridged header first: egress parses it, or (recirculation) the
// ingress parser's harvest state does. Answers get their IPv4 checksum in egress.
control IngressDeparser(packet_out pkt, inout header_t hdr, in ingress_metadata_t ig_md,
                        in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr.bridged);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.agg);
        pkt.emit(hdr.vals_a);  // absent in JOINED, a REPEAT and an empty stream's RESULT (count = 0)
        pkt.emit(hdr.vals_b);
    }
}

// Egress only addresses answers: it parses their headers up to the aggregation
// header and leaves the values (and any other packet) as payload.
parser EgressParser(packet_in pkt, out header_t hdr, out egress_metadata_t eg_md,
                    out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        eg_md = { ... };
        pkt.extract(hdr.bridged);
        transition select(hdr.bridged.kind) {
            bridged_kind_t.ANSWER: parse_answer;
            bridged_kind_t.UPSTREAM: parse_answer;
            default: accept;
        }
    }

    state parse_answer {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.udp);
        pkt.extract(hdr.agg);
        transition accept;
    }
}

// The bridged header stays behind. An answer's (or a leaf's DATA to its parent's)
// IPv4 header was rewritten (addresses, lengths): its checksum is computed here; forwarded frames keep
// theirs, so a corrupted one is not silently repaired on the way.
control EgressDeparser(packet_out pkt, inout header_t hdr, in egress_metadata_t eg_md,
                       in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    Checksum() ipv4_checksum;

    apply {
        if (eg_md.update_checksum == 1) {
            hdr.ipv4.hdr_checksum = ipv4_checksum.update({
                hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
                hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
                hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr });
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.agg);
    }
}

#endif

// SPDX-License-Identifier: Apache-2.0
