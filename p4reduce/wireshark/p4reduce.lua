-- SPDX-License-Identifier: Apache-2.0
-- Wireshark/tshark dissector for the p4reduce wire protocol, version 3 (docs/protocol.md).
--
-- Install: `p4reduce wireshark-plugin --install`, or run `tshark -X lua_script:THIS_FILE ...`.
-- Decodes UDP port 48864 (the aggregator's) and, heuristically, any UDP datagram that is
-- made of whole p4reduce packets (sharded aggregators, ephemeral ports); other ports:
-- Decode As... > UDP port > P4REDUCE (tshark: -d udp.port==PORT,p4reduce).
-- Header fields carry the names of p4reduce.protocol.AggHeader and the scapy layer
-- (filter `p4reduce.job_id == 1`); docs/wireshark.md lists them all.
-- tests/test_wireshark.py checks every field of every golden packet, the value tables and
-- the malformed-packet reasons against the Python codec.
--
-- Plain arithmetic instead of bit operators: Wireshark builds with Lua 5.2 (no operators)
-- or 5.4 (no bit32), and this file must run on both.

local p4r = Proto("p4reduce", "p4reduce in-network aggregation")

local AGG_UDP_PORT = 48864
local HEADER_LEN = 36
local MAC_LEN = 8
local PROTOCOL_VERSION = 3
local VERSION_AUTH = 0x80
local NONE = 0xFFFFFFFF
local ALL_WORKERS = 0xFF

-- p4reduce.protocol.codec's MsgType, ErrorCode, GeometryField, KeyMismatch and Mode codes.
local MSG_TYPES = { [1] = "DATA", [2] = "RESULT", [3] = "QUERY", [4] = "PENDING", [5] = "RESET",
                    [6] = "JOIN", [7] = "JOINED", [8] = "ERROR", [9] = "CHALLENGE" }
local ERROR_CODES = { [1] = "NOT_JOINED", [2] = "GEOMETRY", [3] = "REJOINED", [4] = "SUPERSEDED",
                      [5] = "TENSOR", [6] = "SEQUENCE", [7] = "BAD_BLOCKS", [8] = "UPSTREAM",
                      [9] = "UNKNOWN_JOB", [10] = "UNKNOWN_RANK", [11] = "TOO_LARGE", [12] = "KEY" }
local GEOMETRY_FIELDS = { [1] = "NUM_WORKERS", [2] = "SLOT_BASE", [3] = "NUM_SLOTS", [4] = "BLOCK_SIZE",
                          [5] = "MODE" }
local KEY_MISMATCHES = { [1] = "UNSEALED", [2] = "UNKEYED", [3] = "BAD_MAC" }
local MODES = { [0] = "sparse", [1] = "dense" }
local DATA, RESULT, PENDING, JOIN, JOINED, ERROR, CHALLENGE = 1, 2, 4, 6, 7, 8, 9
local GEOMETRY, UPSTREAM, UNKNOWN_JOB, UNKNOWN_RANK, KEY = 2, 8, 9, 10, 12

local f = {
    -- the header (docs/protocol.md section 2), under the codec's names
    version = ProtoField.uint8("p4reduce.version", "Version", base.DEC),
    auth = ProtoField.bool("p4reduce.auth", "AUTH (sealed: a MAC follows the values)", 8, nil, VERSION_AUTH),
    msg_type = ProtoField.uint8("p4reduce.msg_type", "Message type", base.DEC, MSG_TYPES),
    job_id = ProtoField.uint16("p4reduce.job_id", "Job", base.DEC),
    worker_id = ProtoField.uint8("p4reduce.worker_id", "Worker", base.DEC),
    flags = ProtoField.uint8("p4reduce.flags", "Flags", base.HEX),
    -- bit 0: OPENING on a DATA (the opening round of its stream), OVERFLOW on every other type
    opening = ProtoField.bool("p4reduce.flags.opening", "OPENING", 8, nil, 0x01),
    overflow = ProtoField.bool("p4reduce.flags.overflow", "OVERFLOW", 8, nil, 0x01),
    mismatch = ProtoField.bool("p4reduce.flags.mismatch", "MISMATCH", 8, nil, 0x02),
    scatter = ProtoField.bool("p4reduce.flags.scatter", "SCATTER", 8, nil, 0x04),
    owner = ProtoField.uint8("p4reduce.owner", "Owner", base.DEC, nil, 0xF8),
    pool = ProtoField.uint16("p4reduce.pool", "Pool", base.HEX),
    shadow = ProtoField.uint16("p4reduce.shadow", "Shadow", base.DEC, nil, 0x8000),
    slot = ProtoField.uint16("p4reduce.slot", "Slot", base.DEC, nil, 0x7FFF),
    epoch = ProtoField.uint32("p4reduce.epoch", "Epoch", base.DEC),
    block = ProtoField.uint32("p4reduce.block", "Block", base.DEC),
    next_block = ProtoField.uint32("p4reduce.next_block", "Next block", base.DEC),
    exp = ProtoField.uint8("p4reduce.exp", "Exponent", base.DEC),
    next_exp = ProtoField.uint8("p4reduce.next_exp", "Next exponent", base.DEC),
    count = ProtoField.uint16("p4reduce.count", "Count", base.DEC),
    session = ProtoField.uint32("p4reduce.session", "Session", base.HEX),
    blocks = ProtoField.uint32("p4reduce.blocks", "Blocks", base.DEC),
    fingerprint = ProtoField.uint32("p4reduce.fingerprint", "Fingerprint", base.HEX),
    values = ProtoField.bytes("p4reduce.values", "Values"),
    value = ProtoField.int32("p4reduce.value", "Value", base.DEC),
    mac = ProtoField.bytes("p4reduce.mac", "MAC (SipHash-2-4)"),
    -- what header fields mean in JOIN/JOINED, ERROR and PENDING (sections 6, 6.1, 6.2),
    -- under the names of JobSpec, ErrorCode and the host agent
    incarnation = ProtoField.uint32("p4reduce.incarnation", "Incarnation", base.HEX),
    block_size = ProtoField.uint32("p4reduce.block_size", "Block size", base.DEC),
    num_slots = ProtoField.uint32("p4reduce.num_slots", "Slots", base.DEC),
    mode = ProtoField.uint8("p4reduce.mode", "Mode", base.DEC, MODES),
    num_workers = ProtoField.uint8("p4reduce.num_workers", "Workers", base.DEC),
    message_size = ProtoField.uint32("p4reduce.message_size", "Largest datagram payload accepted", base.DEC),
    shard_index = ProtoField.uint16("p4reduce.shard_index", "Shard index", base.DEC),
    shard_count = ProtoField.uint16("p4reduce.shard_count", "Shards", base.DEC),
    group_session = ProtoField.uint32("p4reduce.group_session", "Group session", base.HEX),
    error_code = ProtoField.uint32("p4reduce.error_code", "Error code", base.DEC, ERROR_CODES),
    detail = ProtoField.uint32("p4reduce.detail", "Detail", base.DEC),
    geometry_field = ProtoField.uint32("p4reduce.geometry_field", "Field that differs", base.DEC,
                                       GEOMETRY_FIELDS),
    parent_error_code = ProtoField.uint32("p4reduce.parent_error_code", "Parent's error code", base.DEC,
                                          ERROR_CODES),
    key_mismatch = ProtoField.uint32("p4reduce.key_mismatch", "Key mismatch", base.DEC, KEY_MISMATCHES),
    -- section 6.3: a CHALLENGE's nonce, which the JOIN answering it carries in its fingerprint
    nonce = ProtoField.uint32("p4reduce.nonce", "Challenge nonce", base.HEX),
    missing_workers = ProtoField.uint32("p4reduce.missing_workers", "Workers the round waits for", base.HEX),
    -- why a piece of a datagram is not a packet: the codec's MalformedPacket text
    malformed = ProtoField.string("p4reduce.malformed", "Malformed"),
}
local field_list = {}
for _, field in pairs(f) do field_list[#field_list + 1] = field end
p4r.fields = field_list

local ex = {
    malformed = ProtoExpert.new("p4reduce.expert.malformed", "Malformed p4reduce packet",
                                expert.group.MALFORMED, expert.severity.ERROR),
    failed = ProtoExpert.new("p4reduce.expert.failed", "The job or the allreduce fails",
                             expert.group.RESPONSE_CODE, expert.severity.WARN),
}
p4r.experts = { ex.malformed, ex.failed }

local function bit_set(value, bit)
    return math.floor(value / 2 ^ bit) % 2 == 1
end

local function block_text(value)
    if value == NONE then return "NONE" end
    return string.format("%d", value)
end

local function worker_list(bitmap)
    local ranks = {}
    for rank = 0, 31 do
        if bit_set(bitmap, rank) then ranks[#ranks + 1] = tostring(rank) end
    end
    if #ranks == 0 then return "none" end
    return table.concat(ranks, ", ")
end

-- The size of the packet at `off` as receivers frame it (p4reduce.protocol.framing).
local function packet_size(buf, off)
    local size = HEADER_LEN + 4 * buf(off + 22, 2):uint()
    if buf(off, 1):uint() >= VERSION_AUTH then size = size + MAC_LEN end
    return size
end

-- Why a piece of a datagram is no packet, in AggHeader.unpack's words and order; nil if it is one.
local function malformed_reason(buf, off, len)
    if len < HEADER_LEN then return string.format("truncated: %d < %d bytes", len, HEADER_LEN) end
    local ver, mtype = buf(off, 1):uint(), buf(off + 1, 1):uint()
    if ver % VERSION_AUTH ~= PROTOCOL_VERSION then
        return string.format("bad_version: protocol version %d, this side speaks version %d", ver % VERSION_AUTH,
                             PROTOCOL_VERSION)
    end
    if not MSG_TYPES[mtype] then return string.format("bad_type: %d", mtype) end
    if len ~= packet_size(buf, off) then
        return string.format("bad_length: %d bytes for count=%d", len, buf(off + 22, 2):uint())
    end
    return nil
end

-- A RESULT with next_block == block ~= NONE: the holders of the block send it again at next_exp
-- (the codec's is_repeat, docs/protocol.md section 3).
local function is_repeat(buf, off)
    local block = buf(off + 12, 4):uint()
    return block ~= NONE and block == buf(off + 16, 4):uint()
end

local function summary(buf, off)
    local mtype = buf(off + 1, 1):uint()
    local text = string.format("%s job %d worker %d", MSG_TYPES[mtype], buf(off + 2, 2):uint(),
                               buf(off + 4, 1):uint())
    if mtype == JOIN or mtype == JOINED or mtype == CHALLENGE then
        text = text .. string.format(" B=%d S=%d %s", buf(off + 12, 4):uint(), buf(off + 16, 4):uint(),
                                     MODES[buf(off + 20, 1):uint()] or "mode?")
    elseif mtype == ERROR then
        text = text .. " " .. (ERROR_CODES[buf(off + 12, 4):uint()] or "code?")
    else
        text = text .. string.format(" slot %d block %s next %s", buf(off + 6, 2):uint() % 0x8000,
                                     block_text(buf(off + 12, 4):uint()), block_text(buf(off + 16, 4):uint()))
    end
    local flags = buf(off + 5, 1):uint()
    if mtype == DATA and bit_set(flags, 0) then text = text .. " opening" end
    if mtype == RESULT and is_repeat(buf, off) then text = text .. " REPEAT" end
    if mtype ~= DATA and bit_set(flags, 0) then text = text .. " OVERFLOW" end
    if bit_set(flags, 1) then text = text .. " MISMATCH" end
    if buf(off + 22, 2):uint() > 0 then text = text .. string.format(" count %d", buf(off + 22, 2):uint()) end
    if buf(off, 1):uint() >= VERSION_AUTH then text = text .. " sealed" end
    return text
end

local function add_block(tree, field, range)
    local item = tree:add(field, range)
    if range:uint() == NONE then item:append_text(" (NONE)") end
    return item
end

-- The header fields every packet has (section 2), and what they mean in this type.
local function add_header(tree, buf, off)
    local mtype = buf(off + 1, 1):uint()
    tree:add(f.version, buf(off, 1)):add(f.auth, buf(off, 1))
    tree:add(f.msg_type, buf(off + 1, 1))
    tree:add(f.job_id, buf(off + 2, 2))
    local worker = tree:add(f.worker_id, buf(off + 4, 1))
    if mtype == RESULT and buf(off + 4, 1):uint() == ALL_WORKERS then
        worker:append_text(" (ALL: the copy to the job's multicast group)")
    end
    local flags = tree:add(f.flags, buf(off + 5, 1))
    local bit0 = f.overflow
    if mtype == DATA then bit0 = f.opening end
    for _, bit in ipairs({ bit0, f.mismatch, f.scatter, f.owner }) do flags:add(bit, buf(off + 5, 1)) end
    local pool = tree:add(f.pool, buf(off + 6, 2))
    pool:add(f.shadow, buf(off + 6, 2))
    pool:add(f.slot, buf(off + 6, 2))
    local epoch = tree:add(f.epoch, buf(off + 8, 4))
    local block = add_block(tree, f.block, buf(off + 12, 4))
    local next_block = add_block(tree, f.next_block, buf(off + 16, 4))
    if mtype == RESULT and is_repeat(buf, off) then
        next_block:append_text(" (REPEAT: the holders of the block send it again at next_exp)")
    end
    local exp = tree:add(f.exp, buf(off + 20, 1))
    local next_exp = tree:add(f.next_exp, buf(off + 21, 1))
    tree:add(f.count, buf(off + 22, 2))
    tree:add(f.session, buf(off + 24, 4))
    local blocks = tree:add(f.blocks, buf(off + 28, 4))
    local fingerprint = tree:add(f.fingerprint, buf(off + 32, 4))

    if mtype == JOIN or mtype == JOINED or mtype == CHALLENGE then  -- section 6.1: the job's geometry
        epoch:add(f.incarnation, buf(off + 8, 4))
        block:add(f.block_size, buf(off + 12, 4))
        next_block:add(f.num_slots, buf(off + 16, 4))
        exp:add(f.mode, buf(off + 20, 1))
        local workers = next_exp:add(f.num_workers, buf(off + 21, 1))
        if mtype == JOIN and buf(off + 21, 1):uint() == 0 then workers:append_text(" (not known: a leaf)") end
        local size = blocks:add(f.message_size, buf(off + 28, 4))
        if buf(off + 28, 4):uint() == 0 then size:append_text(" (one packet per datagram)") end
        if mtype == JOINED then  -- section 6.2: index << 16 | count; 0: every stream
            fingerprint:add(f.shard_index, buf(off + 32, 2))
            fingerprint:add(f.shard_count, buf(off + 34, 2))
        elseif mtype == CHALLENGE or buf(off + 32, 4):uint() ~= 0 then  -- section 6.3
            fingerprint:add(f.nonce, buf(off + 32, 4))
        end
    elseif mtype == ERROR then  -- block: the code, next_block: its detail (section 6.1's table)
        local code = buf(off + 12, 4):uint()
        block:add(f.error_code, buf(off + 12, 4))
        local detail = next_block:add(f.detail, buf(off + 16, 4))
        if code == GEOMETRY then
            detail:add(f.geometry_field, buf(off + 16, 4))
        elseif code == UPSTREAM then
            detail:add(f.parent_error_code, buf(off + 16, 4))
        elseif code == UNKNOWN_JOB then
            detail:append_text(" (the job)")
        elseif code == UNKNOWN_RANK then
            detail:append_text(" (the job's num_workers)")
        elseif code == KEY then
            detail:add(f.key_mismatch, buf(off + 16, 4))
        else
            detail:append_text(" (the worker)")
        end
    elseif mtype == PENDING then  -- next_block: bitmap of the workers the round waits for
        next_block:add(f.missing_workers, buf(off + 16, 4))
                  :append_text(" (" .. worker_list(buf(off + 16, 4):uint()) .. ")")
    end
end

local function add_values(tree, buf, off, count, mtype)
    local values = tree:add(f.values, buf(off + HEADER_LEN, 4 * count))
    values:set_text(string.format("Values (%d int32)", count))
    for i = 0, count - 1 do
        values:add(f.value, buf(off + HEADER_LEN + 4 * i, 4)):prepend_text(string.format("[%d] ", i))
    end
    if mtype == JOINED and count == 1 then  -- section 6.1: the job's group session
        values:add(f.group_session, buf(off + HEADER_LEN, 4))
    end
end

-- Why the job or the allreduce fails, when this packet says it does (section 7).
local function failure(buf, off)
    local mtype, flags = buf(off + 1, 1):uint(), buf(off + 5, 1):uint()
    if mtype == ERROR then
        return string.format("ERROR %s (detail %d)", ERROR_CODES[buf(off + 12, 4):uint()] or "code?",
                             buf(off + 16, 4):uint())
    elseif mtype == RESULT and bit_set(flags, 1) then
        return "MISMATCH: the round's packets disagree, every worker fails the allreduce"
    elseif mtype == RESULT and bit_set(flags, 0) then
        return "OVERFLOW: an int32 sum of this block overflowed"
    end
    return nil
end

-- One piece of a datagram, `len` bytes at `off`: a whole packet or what is left after the
-- last one. Returns the Info column's text for it.
local function dissect_piece(buf, tree, off, len)
    local t = tree:add(p4r, buf(off, len))
    local reason = malformed_reason(buf, off, len)
    if len >= HEADER_LEN then add_header(t, buf, off) end
    if reason then
        t:append_text(", malformed: " .. reason)
        t:add(f.malformed, buf(off, len), reason):add_proto_expert_info(ex.malformed, reason)
        return "malformed: " .. reason
    end
    local count, mtype = buf(off + 22, 2):uint(), buf(off + 1, 1):uint()
    if count > 0 then add_values(t, buf, off, count, mtype) end
    if buf(off, 1):uint() >= VERSION_AUTH then t:add(f.mac, buf(off + len - MAC_LEN, MAC_LEN)) end
    local why = failure(buf, off)
    if why then t:add_proto_expert_info(ex.failed, why) end
    local text = summary(buf, off)
    t:append_text(", " .. text)
    return text
end

local MAX_INFO_PIECES = 4  -- a 64 KB datagram holds hundreds of packets

function p4r.dissector(buf, pinfo, tree)
    pinfo.cols.protocol = "P4REDUCE"
    local total, off, texts = buf:len(), 0, {}
    -- Framed as receivers frame it: whole packets back to back, then what is left, if anything.
    while off < total do
        local len = total - off
        if len >= HEADER_LEN and packet_size(buf, off) <= len then len = packet_size(buf, off) end
        texts[#texts + 1] = dissect_piece(buf, tree, off, len)
        off = off + len
    end
    local info = table.concat(texts, "; ", 1, math.min(#texts, MAX_INFO_PIECES))
    if #texts > MAX_INFO_PIECES then info = info .. "; ..." end
    if #texts > 1 then info = string.format("%d packets: %s", #texts, info) end
    pinfo.cols.info:set(info)
    return total
end

-- Any UDP datagram made of whole packets of this version and known types.
local function heuristic(buf, pinfo, tree)
    local total, off = buf:len(), 0
    if total < HEADER_LEN then return false end
    while off < total do
        if total - off < HEADER_LEN then return false end
        local size = packet_size(buf, off)
        if size > total - off or malformed_reason(buf, off, size) then return false end
        off = off + size
    end
    p4r.dissector(buf, pinfo, tree)
    return true
end

local udp_port = DissectorTable.get("udp.port")
udp_port:add(AGG_UDP_PORT, p4r)
udp_port:add_for_decode_as(p4r)
p4r:register_heuristic("udp", heuristic)
