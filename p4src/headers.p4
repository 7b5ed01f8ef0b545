// Headers, constants and metadata of the p4reduce switch program.
// Wire format: docs/protocol.md section 2 (22-byte aggregation header).
#ifndef P4REDUCE_HEADERS_P4
#define P4REDUCE_HEADERS_P4

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  IPPROTO_UDP = 17;
const bit<16> AGG_UDP_PORT = 48864;     // 0xBEE0
const bit<8>  PROTOCOL_VERSION = 1;
const bit<8>  MSG_DATA = 1;
const bit<8>  MSG_RESULT = 2;
const bit<32> BLOCK_NONE = 0xFFFFFFFF;  // bootstrap round's block / end of stream

// Switch constants (docs/protocol.md section 8).
#define NUM_SLOTS 1024                  // register arrays hold 2 * NUM_SLOTS (two versions)
#define REGISTER_SIZE 2048
const bit<16> VALUES_PER_PACKET = 32;
const bit<8>  MAX_WORKERS = 32;         // width of the seen bitmap

// Sizes of a full RESULT, for rewriting lengths.
const bit<16> IPV4_HDR_LEN = 20;
const bit<16> UDP_HDR_LEN = 8;
const bit<16> AGG_HDR_LEN = 22;
const bit<16> AGG_VALUES_LEN = 128;

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length;
    bit<16> checksum;
}

header agg_t {
    bit<8>  version;
    bit<8>  msg_type;
    bit<16> job_id;
    bit<8>  worker_id;
    bit<8>  flags;
    bit<1>  shadow;      // version bit of the slot's round
    bit<15> slot;
    bit<16> epoch;       // copied into results, not interpreted by the switch
    bit<32> block;
    bit<32> next_block;
    bit<8>  exp;
    bit<8>  next_exp;
    bit<16> count;
}

header agg_values_t {
    bit<32> v00; bit<32> v01; bit<32> v02; bit<32> v03;
    bit<32> v04; bit<32> v05; bit<32> v06; bit<32> v07;
    bit<32> v08; bit<32> v09; bit<32> v10; bit<32> v11;
    bit<32> v12; bit<32> v13; bit<32> v14; bit<32> v15;
    bit<32> v16; bit<32> v17; bit<32> v18; bit<32> v19;
    bit<32> v20; bit<32> v21; bit<32> v22; bit<32> v23;
    bit<32> v24; bit<32> v25; bit<32> v26; bit<32> v27;
    bit<32> v28; bit<32> v29; bit<32> v30; bit<32> v31;
}

struct headers_t {
    ethernet_t   ethernet;
    ipv4_t       ipv4;
    udp_t        udp;
    agg_t        agg;
    agg_values_t vals;
}

struct metadata_t {
    // From the worker table.
    bit<16> job_id;
    bit<8>  worker_id;
    bit<8>  num_workers;
    bit<16> mgid;
    bit<16> slot_base;
    bit<16> num_slots;
    // Per packet.
    bit<1>  known_worker;
    bit<32> worker_bit;
    bit<32> index;          // register index of this round's set: version * NUM_SLOTS + slot
    bit<32> shadow_index;   // the other version's set
    bit<32> bitmap_before;
    bit<1>  first;          // first counted packet of the round: overwrite instead of add
    bit<8>  remaining;      // workers still expected after this packet
    // Towards egress (user metadata is kept for every multicast copy).
    bit<1>  is_result;
    bit<1>  unicast;
    bit<8>  dest_worker;
}

#endif
