# PTF test for ../../tests/data/p4testgen/tna/tna
# p4testgen seed: 1

import logging
import itertools

from bfruntime_client_base_tests import BfRuntimeTest
from ptf.mask import Mask
from ptf.testutils import send_packet
from ptf.testutils import verify_packet
from ptf.testutils import verify_no_other_packets

import bfrt_grpc.bfruntime_pb2 as bfruntime_pb2
import bfrt_grpc.client as gc

logger = logging.getLogger('../../tests/data/p4testgen/tna/tna')
logger.addHandler(logging.StreamHandler())

class AbstractTest(BfRuntimeTest):
    def setUp(self):
        BfRuntimeTest.setUp(self, 0, '../../tests/data/p4testgen/tna/tna')
        self.dev_id = 0
        self.table_entries = []
        self.bfrt_info = None
        # Get bfrt_info and set it as part of the test.
        self.bfrt_info = self.interface.bfrt_info_get('../../tests/data/p4testgen/tna/tna')

        # Set target to all pipes on device self.dev_id.
        self.target = gc.Target(device_id=0, pipe_id=0xFFFF)

    def tearDown(self):
        # Reset tables.
        for elt in reversed(self.table_entries):
            test_table = self.bfrt_info.table_get(elt[0])
            test_table.entry_del(self.target, elt[1])
        self.table_entries = []

        # End session.
        BfRuntimeTest.tearDown(self)

    def insertTableEntry(
        self, table_name, key_fields=None, action_name=None, data_fields=[]
    ):
        test_table = self.bfrt_info.table_get(table_name)
        key_list = [test_table.make_key(key_fields)]
        data_list = [test_table.make_data(data_fields, action_name)]
        test_table.entry_add(self.target, key_list, data_list)
        self.table_entries.append((table_name, key_list))

    def _responseDumpHelper(self, request):
        for response in self.interface.stub.Read(request, timeout=2):
            yield response

    def overrideDefaultEntry(self, table_name, action_name=None, data_fields=[]):
        test_table = self.bfrt_info.table_get(table_name)
        data = test_table.make_data(data_fields, action_name)
        test_table.default_entry_set(self.target, data)

    def setRegisterValue(self, reg_name, value, index):
        reg_table = self.bfrt_info.table_get(reg_name)
        key_list = [reg_table.make_key([gc.KeyTuple("$REGISTER_INDEX", index)])]
        value_list = []
        if isinstance(value, list):
            for val in value:
                value_list.append(gc.DataTuple(val[0], val[1]))
        else:
            value_list.append(gc.DataTuple("f1", value))
        reg_table.entry_add(self.target, key_list, [reg_table.make_data(value_list)])

    def entryAdd(self, table_obj, target, table_entry):
        req = bfruntime_pb2.WriteRequest()
        gc._cpy_target(req, target)
        req.atomicity = bfruntime_pb2.WriteRequest.CONTINUE_ON_ERROR
        update = req.updates.add()
        update.type = bfruntime_pb2.Update.MODIFY
        update.entity.table_entry.CopyFrom(table_entry)
        resp = self.interface.reader_writer_interface._write(req)
        table_obj.get_parser._parse_entry_write_response(resp)

    def setDirectRegisterValue(self, tbl_name, value):
        test_table = self.bfrt_info.table_get(tbl_name)
        table_id = test_table.info.id
        req = bfruntime_pb2.ReadRequest()
        req.client_id = self.client_id
        gc._cpy_target(req, self.target)
        entity = req.entities.add()
        table = entity.table_entry
        table.table_id = table_id
        table_entry = None
        for response in self._responseDumpHelper(req):
            for entity in response.entities:
                assert entity.WhichOneof("entity") == "table_entry"
                table_entry = entity.table_entry
                break
        if table_entry is None:
            raise self.failureException(
                "No entry in the table that the meter is attached to."
            )
        table_entry.ClearField("data")
        value_list = []
        if isinstance(value, list):
            for val in value:
                df = table_entry.data.fields.add()
        else:
            df = table_entry.data.fields.add()
            df.value = gc.DataTuple(gc.DataTuple("f1", value))
        self.entryAdd(test_table, self.target, table_entry)

    def setupCtrlPlane(self):
        pass

    def sendPacket(self):
        pass

    def verifyPackets(self):
        pass

    def runTestImpl(self):
        self.setupCtrlPlane()
        logger.info("Sending Packet ...")
        self.sendPacket()
        logger.info("Verifying Packet ...")
        self.verifyPackets()
        logger.info("Verifying no other packets ...")
        verify_no_other_packets(self, self.dev_id, timeout=2)

class Test1(AbstractTest):
    # Date generated: 2026-12-06-13:49:41.046
    # Current statement coverage: 0.11
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:452;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x1C4 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x04 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x00 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 0;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0000 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0x46 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Table Branch: Ingress.uplink_sent.sent Choosing default action: NoAction_42/NoAction;]
    [MethodCall]: NoAction_42/NoAction();
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: read_awaiting()]
    [MethodCall]: uplink_wait_read_awaiting_0/read_awaiting();
    [AssignmentStatement]: state = (bit<8>) value.state;| Computed: state = 0;
    [AssignmentStatement]: action read_awaiting() { ig_md.awaiting = read_state.execute(ig_md.cell); }| Computed: ig_md.awaiting = 0;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)| >= 2; Result: false
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Table Branch: Ingress.opening_compare.first Choosing default action: NoAction_7/NoAction;]
    [MethodCall]: NoAction_7/NoAction();
    [MethodCall]: opening_flags_flags/flags.apply();
    [Table Branch: Ingress.opening_flags.flags Choosing default action: NoAction_8/NoAction;]
    [MethodCall]: NoAction_8/NoAction();
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): |pktvar_0(bit<8>)|, |pktvar_1(bit<1>)|, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: poison()]
    [MethodCall]: harvested_poison_0/poison();
    [AssignmentStatement]: ig_md.event = EV_UPSTREAM;| Computed: ig_md.event = 12;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [AssignmentStatement]: hdr.agg.fingerprint = hdr.agg.fingerprint ^ POISON;| Computed: hdr.agg.fingerprint = 4294967295;
    [AssignmentStatement]: hdr.agg.flags = hdr.agg.flags & ~FLAG_MISMATCH;| Computed: hdr.agg.flags = 68;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: false
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:4;  unicast:1;  _pad0:0;  opening:0;  _pad1:0;  ingress_port:0;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:0;  worker_id:0;  flags:68;  shadow:0;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:0;  session:0;  blocks:0;  fingerprint:4294967295;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = "Taint";
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0xC6643A00), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)

    def sendPacket(self):
        ig_port = 452
        pkt = b'\x04\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x46\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xD4\x42\xF8\xD1\xE5\x04\xF1\x3C\xDD\x71\xF7\x80\xE0\x5B\x0A\x01\x84\xA5\xA5\x39\xB1\x3C\x0E\x16\x17\xC1\xCB\x3D\x50\x3C\x91\x3F\xCD\x81\x84\x07\xF7\xDF\xFD\x89\xB7\x49\xD7\xE9\xCC\xFD\x98\x8D\xC7\x44\x84\x56\x32\xB6\xC7\x60\xF0\x6A\xAD\xDE\x23\xF0\x65\xF7\x6E\x42\x42\xF1\x8F\x06\x4B\xE9\x75\x0B\x5F\xD7\x6A\xD4\x7C\xD7\xE9\xF9\x6A\x44\xAB\xA3\xC2\x32\x88\xCF\x59\x8E\x07\x02\xDF\x9D\x3A\xC5\x92\x9C\xE0\xCC\x4D\xEA\x71\x86\x20\xFC\x34\x56\xFB\x8B\x86\x48\xC9\xD4\xAF\x6A\x8B\x92\x50\x32\xB1\x65\x6B\x50\x54\xFE\xD8\xA7\xD5\x14\x89\xEF\xE4\xB2\xEF\x7F\x7D\x19\x65\x92\x8D\x86\xAB\x74\x79\xFC\x58\x76\xAA\xED\x63\x4E\x1E\x47\x2F\xAE\xBF\xCC\x65\x86\x50\x81\x17\xA3\x80\x90\x3C\x70\x53\xC0\x25\x91\xCB\x4F\xFF\xC1\x1E\x85\x4D\x65\xAA\xCB\x20\xCC\xC3\x89'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()


class Test2(AbstractTest):
    # Date generated: 2026-12-06-13:49:41.590
    # Current statement coverage: 0.16
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:196;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x0C4 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x00 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x1 | hdr.bridged._pad1 = 0x00 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 1;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x5D2A | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0x10 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Table Branch: Ingress.uplink_sent.sent Choosing default action: NoAction_42/NoAction;]
    [MethodCall]: NoAction_42/NoAction();
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: read_awaiting()]
    [MethodCall]: uplink_wait_read_awaiting_0/read_awaiting();
    [AssignmentStatement]: state = (bit<8>) value.state;| Computed: state = 91;
    [AssignmentStatement]: action read_awaiting() { ig_md.awaiting = read_state.execute(ig_md.cell); }| Computed: ig_md.awaiting = 91;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)| >= 2; Result: true
    [MethodCall]: uplink_uplinks/uplinks.apply();
    [Table Branch: Ingress.uplink.uplinks | Key(s): |pktvar_28(bit<16>)|| Chosen action: Ingress.uplink.to_parent]
    [MethodCall]: uplink_to_parent_0/to_parent(|Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_job(bit<16>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_rank(bit<8>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_session_2(bit<32>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_port(bit<9>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_mac_2(bit<48>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_ip_2(bit<32>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_udp_port_2(bit<16>)|);
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.UPSTREAM;| Computed: hdr.bridged.kind = 4;
    [AssignmentStatement]: hdr.ethernet.dst_addr = mac;| Computed: hdr.ethernet.dst_addr = 0;
    [AssignmentStatement]: hdr.ipv4.dst_addr = ip;| Computed: hdr.ipv4.dst_addr = 0;
    [AssignmentStatement]: hdr.udp.dst_port = udp_port;| Computed: hdr.udp.dst_port = 0;
    [AssignmentStatement]: hdr.agg.msg_type = MSG_DATA;| Computed: hdr.agg.msg_type = 1;
    [AssignmentStatement]: hdr.agg.job_id = up_job;| Computed: hdr.agg.job_id = 0;
    [AssignmentStatement]: hdr.agg.worker_id = up_rank;| Computed: hdr.agg.worker_id = 0;
    [AssignmentStatement]: hdr.agg.session = up_session;| Computed: hdr.agg.session = 0;
    [AssignmentStatement]: ig_tm_md.ucast_egress_port = port;| Computed: ig_tm_md.ucast_egress_port = 511;
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Constant Table Branch: Ingress.opening_compare.first | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|; | Chosen action: read_first_key()]
    [MethodCall]: opening_compare_read_first_key_0/read_first_key();
    [AssignmentStatement]: code = value.key;| Computed: code = 848224018;
    [AssignmentStatement]: bit<32> k1 = read_key.execute(ig_md.cell);| Computed: opening_compare_k1/k1 = 848224018;
    [AssignmentStatement]: hdr.agg.block = k1;| Computed: hdr.agg.block = 848224018;
    [AssignmentStatement]: hdr.agg.exp = ~k1[7:0];| Computed: hdr.agg.exp = 237;
    [MethodCall]: opening_flags_flags/flags.apply();
    [Constant Table Branch: Ingress.opening_flags.flags | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|; | Chosen action: read()]
    [MethodCall]: opening_flags_read_0/read();
    [AssignmentStatement]: flags = (bit<8>) value.flags;| Computed: flags = 241;
    [AssignmentStatement]: action read() { ig_md.first_flags = read_flags.execute(ig_md.cell); }| Computed: ig_md.first_flags = 241;
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): 4, |pktvar_1(bit<1>)|, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: up()]
    [MethodCall]: harvested_up_0/up();
    [AssignmentStatement]: ig_md.event = EV_UPSTREAM;| Computed: ig_md.event = 12;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: true
    [MethodCall]: opening_result_result/result.apply();
    [Constant Table Branch: Ingress.opening_result.result | Key(s): 4, |Ingress.opening_compare.first_key_key(bit<32>)|, (bit<8>)|Ingress.opening_flags.first_flags_flags(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: up_repeat()]
    [MethodCall]: opening_result_up_repeat_0/up_repeat();
    [AssignmentStatement]: hdr.agg.flags = ig_md.first_flags;| Computed: hdr.agg.flags = 241;
    [AssignmentStatement]: hdr.agg.block = hdr.agg.block >> 8;| Computed: hdr.agg.block = 3313375;
    [MethodCall]: hdr.vals_a.setInvalid();
    [MethodCall]: hdr.vals_b.setInvalid();
    [AssignmentStatement]: hdr.agg.count = 0;| Computed: hdr.agg.count = 0;
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:4;  unicast:1;  _pad0:0;  opening:1;  _pad1:0;  ingress_port:0;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:1;  job_id:0;  worker_id:0;  flags:241;  shadow:0;  slot:0;  epoch:0;  block:3313375;  next_block:0;  exp:237;  next_exp:0;  count:0;  session:0;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Invalid emit: { v00 = TaintedExpression(bit<32>), v01 = TaintedExpression(bit<32>), v02 = TaintedExpression(bit<32>), v03 = TaintedExpression(bit<32>), v04 = TaintedExpression(bit<32>), v05 = TaintedExpression(bit<32>), v06 = TaintedExpression(bit<32>), v07 = TaintedExpression(bit<32>), v08 = TaintedExpression(bit<32>), v09 = TaintedExpression(bit<32>), v10 = TaintedExpression(bit<32>), v11 = TaintedExpression(bit<32>), v12 = TaintedExpression(bit<32>), v13 = TaintedExpression(bit<32>), v14 = TaintedExpression(bit<32>), v15 = TaintedExpression(bit<32>), v16 = TaintedExpression(bit<32>), v17 = TaintedExpression(bit<32>), v18 = TaintedExpression(bit<32>), v19 = TaintedExpression(bit<32>), v20 = TaintedExpression(bit<32>), v21 = TaintedExpression(bit<32>), v22 = TaintedExpression(bit<32>), v23 = TaintedExpression(bit<32>), v24 = TaintedExpression(bit<32>), v25 = TaintedExpression(bit<32>), v26 = TaintedExpression(bit<32>), v27 = TaintedExpression(bit<32>), v28 = TaintedExpression(bit<32>), v29 = TaintedExpression(bit<32>), v30 = TaintedExpression(bit<32>), v31 = TaintedExpression(bit<32>) }]
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Invalid emit: { v00 = TaintedExpression(bit<32>), v01 = TaintedExpression(bit<32>), v02 = TaintedExpression(bit<32>), v03 = TaintedExpression(bit<32>), v04 = TaintedExpression(bit<32>), v05 = TaintedExpression(bit<32>), v06 = TaintedExpression(bit<32>), v07 = TaintedExpression(bit<32>), v08 = TaintedExpression(bit<32>), v09 = TaintedExpression(bit<32>), v10 = TaintedExpression(bit<32>), v11 = TaintedExpression(bit<32>), v12 = TaintedExpression(bit<32>), v13 = TaintedExpression(bit<32>), v14 = TaintedExpression(bit<32>), v15 = TaintedExpression(bit<32>), v16 = TaintedExpression(bit<32>), v17 = TaintedExpression(bit<32>), v18 = TaintedExpression(bit<32>), v19 = TaintedExpression(bit<32>), v20 = TaintedExpression(bit<32>), v21 = TaintedExpression(bit<32>), v22 = TaintedExpression(bit<32>), v23 = TaintedExpression(bit<32>), v24 = TaintedExpression(bit<32>), v25 = TaintedExpression(bit<32>), v26 = TaintedExpression(bit<32>), v27 = TaintedExpression(bit<32>), v28 = TaintedExpression(bit<32>), v29 = TaintedExpression(bit<32>), v30 = TaintedExpression(bit<32>), v31 = TaintedExpression(bit<32>) }]
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = 511;
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [Drop packet smaller than 240 for PTF.]: 4176
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0xD3A3615B), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_compare.first_key', [('Ingress.opening_compare.first_key.key', 0x328EDF12), ('Ingress.opening_compare.first_key.code', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_flags.first_flags', [('Ingress.opening_flags.first_flags.block', 0x00000000), ('Ingress.opening_flags.first_flags.flags', 0x659717F1)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)
        # Table Ingress.uplink.uplinks
        self.insertTableEntry(
            'Ingress.uplink.uplinks',
            [
                gc.KeyTuple('hdr.agg.job_id', 0x5D2A),
            ],
            'Ingress.uplink.to_parent',
            [
                gc.DataTuple('up_job', 0x0000),
                gc.DataTuple('up_rank', 0x00),
                gc.DataTuple('up_session', 0x00000000),
                gc.DataTuple('port', 0x1FF),
                gc.DataTuple('mac', 0x000000000000),
                gc.DataTuple('ip', 0x00000000),
                gc.DataTuple('udp_port', 0x0000),
            ]
        )

    def sendPacket(self):
        ig_port = 196
        pkt = b'\x00\x81\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x5D\x2A\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xE5\x58\x5B\x45\xA9\xA0\x45\x19\xFE\x94\xC3\x63\x3D\xDC\x59\x51\x66\xCA\x5A\x9B\xC0\x98\xC0\x3D\xC3\x79\xA5\xD2\xE7\x87\x9F\xA8\xFB\x51\xB0\xB1\x3F\x7C\xE2\x20\x59\x17\x20\x56\x2C\x0A\xB9\xDB\x01\x0D\xA3\x49\x40\x60\xC0\x35\x38\xD2\x92\x2D\x9D\xFC\x59\x07\x2E\xF0\x5C\x7B\x9A\x39\xED\x71\x33\xC4\xA6\xFD\x0F\x2D\x2A\x54\xA7\x07\x89\xD6\x33\x67\x65\xCE\x26\x24\x60\xA9\x5E\x1E\xCE\xB1\x32\x14\xE4\x63\x04\x2B\x23\xA7\x9D\x4C\x72\xAE\xD4\x4B\x23\x31\x8A\xC8\x8A\x71\x18\x4D\xE7\x45\x59\x07\xE2\x14\x82\xCB\x96\x28\x78\x95\x07\xA1\x0F\xDB\xF1\xD0\xF6\x4C\xCA\xDA\xF6\x02\x83\xCF\xC5\xC6\x23\xD4\xD1\xD5\xA9\xEE\x72\x34\x0B\x9B\xC7\x06\x89\x30\x81\xCD\xC3\xF6\xD4\xFD\x0C\xC9\xBF\xF8\x8A\x64\xCB\x80\x6A\x07\xA7\x03\x7E\x39\x27\x4D\xB1\xC4\x35\x71\xF3\x2F\x25\x41\x69\xFF\x92\xB7\x88\x90\x14\x97\x1A\x32\x96\xD8\x3B\x23\xD3\xA0\xB3\x23\x5D\x2E\x42\xCF\x84\xBE\x96\xDC\xBA\x4A\xF4\xDF\x85\x5C\x25\x90\x00\xF3\x9D\x2B\x0F\xC7\x92\xF9\x5F\x19\x90\xDF\x9C\x57\x0D\xA9\x2A\xEF\x95\x9A\x86\x8F\x7D\xD7\xBD\x17\x4C\x86\xAF\x0A\x43\xFA\xDD\xA2\xE9\x13\x25\x20\x36\x2D\x42\x88\xEA\xB7\x6C\xA6\xAD\xC8\x2A\x53\x15\x68\x51\x39\x04\xF5\x3B\xA5\x86\x59\x40\x9B\x21\x49\x8D\x64\x1E\x96\xED\x7D\x49\xAB\xA5\x17\xE7\x43\x44\x7E\x4B\x2A\x4B\xE7\x18\x9E\xBE\xC3\xE8\x99\xB7\x09\x78\x20\x04\x16\x72\xA9\x26\x68\x12\xC7\xFE\x99\x1A\x6D\x05\x1A\x38\xDD\x27\x87\xCA\x0E\x35\xD7\x72\x35\xDE\xE2\x47\xCB\x2D\x6F\x4C\x6A\x30\x19\xBF\x87\xC8\xC4\xA9\x1F\x6C\x40\xFD\x26\x00\x0F\x9F\xC0\x6D\xD2\xC0\x09\x75\x29\x08\xBF\x73\x73\x04\xAE\x8A\x6D\x69\x9C\x25\x50\xD5\xAA\x07\x34\xC8\x87\x4C\x1A\xAF\xBE\x86\x4C\x24\x61\xFC\x2B\x50\xC5\xA1\xF1\x4A\x25\x2B\x18\xB1\x1E\xDB\xC4\x32\x92\xB2\x03\x88\x7D\x85\x39\x69\x6A\xEE\x31\xF5\x38\x3F\x95\xAB\xF1\x85\xC6\x6B\xCD\xB5\x83\x97\xD3\x24\x47'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()


class Test3(AbstractTest):
    # Date generated: 2026-12-06-13:49:41.615
    # Current statement coverage: 0.16
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:196;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x0C4 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x00 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x1 | hdr.bridged._pad1 = 0x00 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 1;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x469E | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0xEC | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Table Branch: Ingress.uplink_sent.sent Choosing default action: NoAction_42/NoAction;]
    [MethodCall]: NoAction_42/NoAction();
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: read_awaiting()]
    [MethodCall]: uplink_wait_read_awaiting_0/read_awaiting();
    [AssignmentStatement]: state = (bit<8>) value.state;| Computed: state = 169;
    [AssignmentStatement]: action read_awaiting() { ig_md.awaiting = read_state.execute(ig_md.cell); }| Computed: ig_md.awaiting = 169;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)| >= 2; Result: true
    [MethodCall]: uplink_uplinks/uplinks.apply();
    [Table Branch: Ingress.uplink.uplinks | Key(s): |pktvar_28(bit<16>)|| Chosen action: Ingress.uplink.to_parent]
    [MethodCall]: uplink_to_parent_0/to_parent(|Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_job(bit<16>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_rank(bit<8>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_session_2(bit<32>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_port(bit<9>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_mac_2(bit<48>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_ip_2(bit<32>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_udp_port_2(bit<16>)|);
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.UPSTREAM;| Computed: hdr.bridged.kind = 4;
    [AssignmentStatement]: hdr.ethernet.dst_addr = mac;| Computed: hdr.ethernet.dst_addr = 0;
    [AssignmentStatement]: hdr.ipv4.dst_addr = ip;| Computed: hdr.ipv4.dst_addr = 0;
    [AssignmentStatement]: hdr.udp.dst_port = udp_port;| Computed: hdr.udp.dst_port = 0;
    [AssignmentStatement]: hdr.agg.msg_type = MSG_DATA;| Computed: hdr.agg.msg_type = 1;
    [AssignmentStatement]: hdr.agg.job_id = up_job;| Computed: hdr.agg.job_id = 0;
    [AssignmentStatement]: hdr.agg.worker_id = up_rank;| Computed: hdr.agg.worker_id = 0;
    [AssignmentStatement]: hdr.agg.session = up_session;| Computed: hdr.agg.session = 0;
    [AssignmentStatement]: ig_tm_md.ucast_egress_port = port;| Computed: ig_tm_md.ucast_egress_port = 511;
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Constant Table Branch: Ingress.opening_compare.first | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|; | Chosen action: read_first_key()]
    [MethodCall]: opening_compare_read_first_key_0/read_first_key();
    [AssignmentStatement]: code = value.key;| Computed: code = 4294967175;
    [AssignmentStatement]: bit<32> k1 = read_key.execute(ig_md.cell);| Computed: opening_compare_k1/k1 = 4294967175;
    [AssignmentStatement]: hdr.agg.block = k1;| Computed: hdr.agg.block = 4294967175;
    [AssignmentStatement]: hdr.agg.exp = ~k1[7:0];| Computed: hdr.agg.exp = 120;
    [MethodCall]: opening_flags_flags/flags.apply();
    [Constant Table Branch: Ingress.opening_flags.flags | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|; | Chosen action: read()]
    [MethodCall]: opening_flags_read_0/read();
    [AssignmentStatement]: flags = (bit<8>) value.flags;| Computed: flags = 238;
    [AssignmentStatement]: action read() { ig_md.first_flags = read_flags.execute(ig_md.cell); }| Computed: ig_md.first_flags = 238;
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): 4, |pktvar_1(bit<1>)|, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: up()]
    [MethodCall]: harvested_up_0/up();
    [AssignmentStatement]: ig_md.event = EV_UPSTREAM;| Computed: ig_md.event = 12;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: true
    [MethodCall]: opening_result_result/result.apply();
    [Constant Table Branch: Ingress.opening_result.result | Key(s): 4, |Ingress.opening_compare.first_key_key(bit<32>)|, (bit<8>)|Ingress.opening_flags.first_flags_flags(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: empty(8w1) | Arg(s): 1]
    [MethodCall]: opening_result_empty_0/empty(1);
    [AssignmentStatement]: hdr.agg.flags = ig_md.first_flags ^ toggle;| Computed: hdr.agg.flags = 239;
    [AssignmentStatement]: hdr.agg.block = BLOCK_NONE;| Computed: hdr.agg.block = 4294967295;
    [AssignmentStatement]: hdr.agg.next_block = BLOCK_NONE;| Computed: hdr.agg.next_block = 4294967295;
    [MethodCall]: hdr.vals_a.setInvalid();
    [MethodCall]: hdr.vals_b.setInvalid();
    [AssignmentStatement]: hdr.agg.count = 0;| Computed: hdr.agg.count = 0;
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:4;  unicast:1;  _pad0:0;  opening:1;  _pad1:0;  ingress_port:0;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:1;  job_id:0;  worker_id:0;  flags:239;  shadow:0;  slot:0;  epoch:0;  block:4294967295;  next_block:4294967295;  exp:120;  next_exp:0;  count:0;  session:0;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Invalid emit: { v00 = TaintedExpression(bit<32>), v01 = TaintedExpression(bit<32>), v02 = TaintedExpression(bit<32>), v03 = TaintedExpression(bit<32>), v04 = TaintedExpression(bit<32>), v05 = TaintedExpression(bit<32>), v06 = TaintedExpression(bit<32>), v07 = TaintedExpression(bit<32>), v08 = TaintedExpression(bit<32>), v09 = TaintedExpression(bit<32>), v10 = TaintedExpression(bit<32>), v11 = TaintedExpression(bit<32>), v12 = TaintedExpression(bit<32>), v13 = TaintedExpression(bit<32>), v14 = TaintedExpression(bit<32>), v15 = TaintedExpression(bit<32>), v16 = TaintedExpression(bit<32>), v17 = TaintedExpression(bit<32>), v18 = TaintedExpression(bit<32>), v19 = TaintedExpression(bit<32>), v20 = TaintedExpression(bit<32>), v21 = TaintedExpression(bit<32>), v22 = TaintedExpression(bit<32>), v23 = TaintedExpression(bit<32>), v24 = TaintedExpression(bit<32>), v25 = TaintedExpression(bit<32>), v26 = TaintedExpression(bit<32>), v27 = TaintedExpression(bit<32>), v28 = TaintedExpression(bit<32>), v29 = TaintedExpression(bit<32>), v30 = TaintedExpression(bit<32>), v31 = TaintedExpression(bit<32>) }]
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Invalid emit: { v00 = TaintedExpression(bit<32>), v01 = TaintedExpression(bit<32>), v02 = TaintedExpression(bit<32>), v03 = TaintedExpression(bit<32>), v04 = TaintedExpression(bit<32>), v05 = TaintedExpression(bit<32>), v06 = TaintedExpression(bit<32>), v07 = TaintedExpression(bit<32>), v08 = TaintedExpression(bit<32>), v09 = TaintedExpression(bit<32>), v10 = TaintedExpression(bit<32>), v11 = TaintedExpression(bit<32>), v12 = TaintedExpression(bit<32>), v13 = TaintedExpression(bit<32>), v14 = TaintedExpression(bit<32>), v15 = TaintedExpression(bit<32>), v16 = TaintedExpression(bit<32>), v17 = TaintedExpression(bit<32>), v18 = TaintedExpression(bit<32>), v19 = TaintedExpression(bit<32>), v20 = TaintedExpression(bit<32>), v21 = TaintedExpression(bit<32>), v22 = TaintedExpression(bit<32>), v23 = TaintedExpression(bit<32>), v24 = TaintedExpression(bit<32>), v25 = TaintedExpression(bit<32>), v26 = TaintedExpression(bit<32>), v27 = TaintedExpression(bit<32>), v28 = TaintedExpression(bit<32>), v29 = TaintedExpression(bit<32>), v30 = TaintedExpression(bit<32>), v31 = TaintedExpression(bit<32>) }]
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = 511;
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [Drop packet smaller than 240 for PTF.]: 8776
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x39A14AA9), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_compare.first_key', [('Ingress.opening_compare.first_key.key', 0xFFFFFF87), ('Ingress.opening_compare.first_key.code', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_flags.first_flags', [('Ingress.opening_flags.first_flags.block', 0x00000000), ('Ingress.opening_flags.first_flags.flags', 0x005375EE)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)
        # Table Ingress.uplink.uplinks
        self.insertTableEntry(
            'Ingress.uplink.uplinks',
            [
                gc.KeyTuple('hdr.agg.job_id', 0x469E),
            ],
            'Ingress.uplink.to_parent',
            [
                gc.DataTuple('up_job', 0x0000),
                gc.DataTuple('up_rank', 0x00),
                gc.DataTuple('up_session', 0x00000000),
                gc.DataTuple('port', 0x1FF),
                gc.DataTuple('mac', 0x000000000000),
                gc.DataTuple('ip', 0x00000000),
                gc.DataTuple('udp_port', 0x0000),
            ]
        )

    def sendPacket(self):
        ig_port = 196
        pkt = b'\x00\x81\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x46\x9E\x00\xEC\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x20\x5A\xC5\x92\xD7\x2C\x88\x5B\xC7\x08\xEB\xC7\xCC\xF6\x98\x5F\x9A\x9B\xF4\xFD\x3B\x65\x16\x91\x78\x5E\x4D\xF2\x0C\xEB\x32\x1D\x4C\xCE\xEF\x49\xB6\xED\x1A\x39\xDB\x73\xB6\x60\x96\x8C\xAF\x2C\x25\x06\x2B\x86\x2C\x9A\xB4\x17\x9D\x2A\xBD\x56\xEE\x7C\x69\xE2\x72\x4B\x65\x1B\xD5\x63\xD7\x8B\xBA\xED\x25\x51\xF9\xA4\x3D\xAE\xD4\x02\x0C\x77\x35\xEA\x65\x2D\x99\x34\x19\x40\x8F\x8E\x80\xD2\xCD\xEC\xD9\xEA\x0E\xF3\x3E\xBD\xFC\x65\xC9\xDA\x47\xF2\xF2\xBB\xCF\xC1\x9F\x32\x36\x9D\xE5\x2F\xAE\xBA\x82\xBC\xD0\x3B\xFF\x27\x58\x6D\x43\x79\xB8\x03\x92\x54\x83\xAF\xE3\x0D\x7C\xEE\x95\xB8\xAE\x2A\x58\x0E\x15\xE8\x66\x9E\xBF\xBC\x9F\xAD\x0E\xC5\xAD\x75\x97\x85\xD2\x11\x44\xBC\x2D\x48\x7B\xBA\x5E\xF8\x8A\x10\xE2\xD3\x6F\x53\x13\x94\x33\x43\x67\x6A\xDC\x9F\x90\x12\x70\xEC\xC0\x37\x09\xD6\xF2\xFD\x13\x86\x50\xCB\x10\x93\x9B\x05\xF7\xA3\xB3\xB5\x56\xEE\x56\xDD\x00\x31\x84\xE8\xB6\x24\xAC\xE2\x69\xCE\x04\x65\x2C\x18\x66\x17\xBE\x42\xA4\x02\xB2\x5B\x41\x34\x30\x11\x08\x88\xF0\x29\x86\x4C\xE6\xC0\xB4\x96\x99\x18\x6D\x65\x46\x35\xCD\xF6\xCD\x13\x02\x99\xCA\xA1\x35\x2A\xA9\x36\x75\xB7\x26\x5E\xBD\xD6\x96\xC3\xA5\x56\x9C\x10\xFB\x51\xD1\x21\xDC\x44\xA3\x43\xD1\xC4\xA7\x76\x4F\xA0\x91\xAB\x52\xD8\xCE\xEA\x9C\x0D\xF4\xBE\xCE\x3C\xBC\x37\x34\xDB\x40\x8D\x0A\xF1\x44\x82\x3F\xFA\x91\x61\x50\xEE\x9E\x25\x62\x66\xE2\x94\x6A\x2E\xD8\x1B\xFD\x72\xC2\xFD\x15\xF2\xCA\x88\x25\xC7\x2A\x51\x3E\xA9\xA0\x74\x8D\x64\x57\x91\xA0\x3F\x71\xC3\x37\xFE\x3F\x9B\x38\x68\x4F\xD0\x5A\x33\x85\x7C\x81\x1C\xE7\x0A\x28\xB2\xAF\x11\xEC\xF8\xA6\xA6\xAF\xD6\x5E\x04\xC1\x68\xE5\xC2\x64\xAE\xD3\x28\x23\x7B\x18\xE4\x9D\x09\xC3\xD4\x38\x17\x93\xFB\x54\x67\x20\x9E\xB5\x6A\xE4\x34\x50\xD0\x64\x7E\x67\xB1\x22\x4C\x76\x4E\xF3\x3D\x66\xA9\xBC\xBD\xAF\x43\x6E\xD8\xC9\xC5\xAF\x0C\xCD\xFC\x35\xF8\x53\x3A\xE3\x5F\x02\xA1\x87\x94\xD3\xF0\x56\xF0\x4F\x68\xEB\x32\x07\xAA\x9A\x29\x5F\xD4\xFB\xBE\x6B\x5F\x13\x26\xF2\x75\xF3\x40\x98\x6B\x8E\x12\xEF\xA1\xDB\x34\x0B\x06\x9E\x46\x4F\x25\x0F\x91\x6F\x08\x2C\x5C\x5E\x5B\x14\xF7\x9F\x6B\xEA\x4B\x5B\x24\x71\x12\x6C\xE8\x18\x21\x38\x94\xD3\x03\x36\xDE\x6C\xA7\x81\xC3\x40\x8F\x49\x9C\xA9\x09\x37\x42\x4F\xB6\x86\x72\x32\x9D\xC7\xBB\xCD\x39\xC8\x16\x54\xC8\x2E\x6E\x08\x1B\x84\xBC\x20\xEA\x99\xD6\x63\x0B\x67\xC0\x6D\xEF\xEB\xB4\x88\x1F\x10\x5D\x4A\x27\x41\x30\xDE\x0F\x56\xC4\x1C\x5C\xA5\xC5\x1F\x22\xEE\xBA\xD2\x6D\xAA\x78\x37\x8E\x65\xC2\x9C\x6D\x85\x20\xFD\xBF\x43\x5D\x20\xC0\x7A\xBF\x36\xDD\x11\x14\x30\x6D\x49\xF6\x53\x63\x4A\xD5\xD4\x9C\xEA\x2A\x82\xCE\x9E\x72\x21\xB7\xA6\xF9\xDD\x3B\xA4\x33\xB5\x4A\x2D\xB6\x23\xCC\xF6\x43\x4B\xD0\x20\x70\x3F\x04\xC6\x11\x9D\x5E\x2A\xF9\x80\x8F\x9F\xAD\x2E\x6A\xFD\x3B\xCE\xF8\x37\x6D\x42\x91\xEF\xE3\x74\x95\xF4\x51\xC3\x17\x70\x3E\x2D\x47\x78\x94\xEA\x3B\xCE\xAF\x9C\x1F\xC9\xD2\x90\x47\x3F\xE7\x57\xD7\x8F\x56\x2D\xF7\xB9\x15\xCE\x8D\x85\xBD\xA8\x3B\x54\x85\xCD\x89\xF0\xD5\x2F\x49\xE9\x69\x71\xDC\x2A\xCA\xB1\x1A\x25\x88\xDB\x3F\x07\xB0\x4D\x82\x82\xED\x28\x07\x3F\x18\x15\x1B\x7C\x4A\xF8\x06\xB5\xC3\x65\x65\x74\xC9\xA4\x05\x16\xDD\x45\x2C\x1A\x6F\x35\x1F\xD0\x38\xC7\x84\xD4\x21\xC2\xB6\x26\x7C\x89\x0C\x9F\x33\xFB\xEC\x4B\x56\x18\x35\x64\xBB\x8F\xC0\xFE\x07\xBB\x82\x1C\x82\xB8\xC1\x66\x06\xCD\x3A\xF9\x0E\x86\x10\xE5\x63\x2B\x76\xDD\x1E\x74\xB2\x62\xAC\xD4\x31\x24\x08\x8D\xEE\xBE\x93\x8E\xBE\x25\xD5\xF1\x23\x1B\x54\x19\x78\xF4\x1F\xD3\x2C\x1E\x81\xF9\x11\xF0\xDC\x60\xFF\x50\x8C\xE7\x8D\x23\xA1\x95\xB0\xDE\x9E\xD9\xD4\xE9\xCE\x38\xED\xEF\x99\x3D\x44\xDD\x40\xB7\x04\x0C\xDC\x60\x77\xA7\x0C\x0A\x9F\x94\x87\x54\xC3\xBC\x56\xB5\xE8\x95\xC2\x61\x78\x7B\xEA\x72\x5B\x76\x07\xF1\xB5\x83\xCF\x8D\xE2\xCD\x19\xE5\x02\x4E\x59\x16\x86\xED\x47\xB0\x94\x21\x5A\x76\x53\x9F\x00\x14\x27\x26\x68\xAA\x9D\xFD\x35\x91\xC5\xD2\x3B\x85\x00\xBC\x1C\x0F\x4D\x25\xF6\x36\x92\xDC\xA8\xB0\xC5\x87\x3F\xE7\xE7\x43\xE1\x47\xC3\x4E\xBA\xC2\x3C\xAD\xCC\xC6\x61\x3A\xC9\xD6\x68\x7B\xA7\x52\xF1\x1C\x39\xE9\x94\x11\x57\x60\x5A\xF5\x9E\xB6\x73\x2D\x71\x0A\x10\x66\xB7\x62\xF3\x11\xBA\x67\xC9\x75\xA6\xDC\x1D\x5F\xFD\xEC\x12\xE4\x08\x82\x9F\x27\x73\x61\x7F\x84\x13\x73\xA9\xD7\x4D\x52\x02\xFC\xC0\x98\xF6\xFF\xC1\xE9\xE1\x9F\x9E\x3C'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()


class Test4(AbstractTest):
    # Date generated: 2026-12-06-13:49:41.755
    # Current statement coverage: 0.19
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:324;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x144 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x03 | hdr.bridged.unicast = 0x0 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x1 | hdr.bridged._pad1 = 0x00 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 1;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0000 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0xE1 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Constant Table Branch: Ingress.uplink_sent.sent | Key(s): 1, |pktvar_1(bit<1>)|, |pktvar_27(bit<8>)| | Chosen action: record()]
    [MethodCall]: uplink_sent_record_0/record();
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: true
    [AssignmentStatement]: value = 0; // any block (block + 1 is never 0 but for NONE)| Computed: value = 0;
    [AssignmentStatement]: state = AWAIT_OPENING;| Computed: state = 3;
    [AssignmentStatement]: action record() { ig_md.awaiting = record_block.execute(ig_md.shadow ++ ig_md.slot[13 - 1:0]); }| Computed: ig_md.awaiting = 3;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: record_round()]
    [MethodCall]: uplink_wait_record_round_0/record_round();
    [MethodCall]: uplink_wait_await_answer/await_answer.execute(ig_md.cell);
    [AssignmentStatement]: value.state = (bit<32>) ig_md.awaiting; // AWAIT_DATA or AWAIT_OPENING (sent_block)| Computed: value.state = 3;
    [AssignmentStatement]: value.fingerprint = hdr.agg.fingerprint;| Computed: value.fingerprint = 0;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || 3 >= 2; Result: true
    [MethodCall]: uplink_uplinks/uplinks.apply();
    [Table Branch: Ingress.uplink.uplinks Choosing default action: NoAction_44/NoAction;]
    [MethodCall]: NoAction_44/NoAction();
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Constant Table Branch: Ingress.opening_compare.first | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, 0, 0, 3 | Chosen action: read_first_key()]
    [MethodCall]: opening_compare_read_first_key_0/read_first_key();
    [AssignmentStatement]: code = value.key;| Computed: code = 4294967200;
    [AssignmentStatement]: bit<32> k1 = read_key.execute(ig_md.cell);| Computed: opening_compare_k1/k1 = 4294967200;
    [AssignmentStatement]: hdr.agg.block = k1;| Computed: hdr.agg.block = 4294967200;
    [AssignmentStatement]: hdr.agg.exp = ~k1[7:0];| Computed: hdr.agg.exp = 95;
    [MethodCall]: opening_flags_flags/flags.apply();
    [Constant Table Branch: Ingress.opening_flags.flags | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, |pktvar_35(bit<32>)|, 0, 0, 3 | Chosen action: read()]
    [MethodCall]: opening_flags_read_0/read();
    [AssignmentStatement]: flags = (bit<8>) value.flags;| Computed: flags = 146;
    [AssignmentStatement]: action read() { ig_md.first_flags = read_flags.execute(ig_md.cell); }| Computed: ig_md.first_flags = 146;
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, 3, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, 3, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): |pktvar_0(bit<8>)|, |pktvar_1(bit<1>)|, 3, |pktvar_30(bit<8>)| | Chosen action: to_group()]
    [MethodCall]: harvested_to_group_0/to_group();
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.ANSWER;| Computed: hdr.bridged.kind = 2;
    [AssignmentStatement]: ig_tm_md.mcast_grp_a = hdr.bridged.mgid;| Computed: ig_tm_md.mcast_grp_a = 0;
    [AssignmentStatement]: ig_md.event = EV_RESULT_MULTICAST;| Computed: ig_md.event = 1;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: true
    [MethodCall]: opening_result_result/result.apply();
    [Constant Table Branch: Ingress.opening_result.result | Key(s): 2, |Ingress.opening_compare.first_key_key(bit<32>)|, (bit<8>)|Ingress.opening_flags.first_flags_flags(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: empty(8w0) | Arg(s): 0]
    [MethodCall]: opening_result_empty_0/empty(0);
    [AssignmentStatement]: hdr.agg.flags = ig_md.first_flags ^ toggle;| Computed: hdr.agg.flags = 146;
    [AssignmentStatement]: hdr.agg.block = BLOCK_NONE;| Computed: hdr.agg.block = 4294967295;
    [AssignmentStatement]: hdr.agg.next_block = BLOCK_NONE;| Computed: hdr.agg.next_block = 4294967295;
    [MethodCall]: hdr.vals_a.setInvalid();
    [MethodCall]: hdr.vals_b.setInvalid();
    [AssignmentStatement]: hdr.agg.count = 0;| Computed: hdr.agg.count = 0;
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:2;  unicast:0;  _pad0:0;  opening:1;  _pad1:0;  ingress_port:0;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:0;  worker_id:0;  flags:146;  shadow:0;  slot:0;  epoch:0;  block:4294967295;  next_block:4294967295;  exp:95;  next_exp:0;  count:0;  session:0;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Invalid emit: { v00 = TaintedExpression(bit<32>), v01 = TaintedExpression(bit<32>), v02 = TaintedExpression(bit<32>), v03 = TaintedExpression(bit<32>), v04 = TaintedExpression(bit<32>), v05 = TaintedExpression(bit<32>), v06 = TaintedExpression(bit<32>), v07 = TaintedExpression(bit<32>), v08 = TaintedExpression(bit<32>), v09 = TaintedExpression(bit<32>), v10 = TaintedExpression(bit<32>), v11 = TaintedExpression(bit<32>), v12 = TaintedExpression(bit<32>), v13 = TaintedExpression(bit<32>), v14 = TaintedExpression(bit<32>), v15 = TaintedExpression(bit<32>), v16 = TaintedExpression(bit<32>), v17 = TaintedExpression(bit<32>), v18 = TaintedExpression(bit<32>), v19 = TaintedExpression(bit<32>), v20 = TaintedExpression(bit<32>), v21 = TaintedExpression(bit<32>), v22 = TaintedExpression(bit<32>), v23 = TaintedExpression(bit<32>), v24 = TaintedExpression(bit<32>), v25 = TaintedExpression(bit<32>), v26 = TaintedExpression(bit<32>), v27 = TaintedExpression(bit<32>), v28 = TaintedExpression(bit<32>), v29 = TaintedExpression(bit<32>), v30 = TaintedExpression(bit<32>), v31 = TaintedExpression(bit<32>) }]
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Invalid emit: { v00 = TaintedExpression(bit<32>), v01 = TaintedExpression(bit<32>), v02 = TaintedExpression(bit<32>), v03 = TaintedExpression(bit<32>), v04 = TaintedExpression(bit<32>), v05 = TaintedExpression(bit<32>), v06 = TaintedExpression(bit<32>), v07 = TaintedExpression(bit<32>), v08 = TaintedExpression(bit<32>), v09 = TaintedExpression(bit<32>), v10 = TaintedExpression(bit<32>), v11 = TaintedExpression(bit<32>), v12 = TaintedExpression(bit<32>), v13 = TaintedExpression(bit<32>), v14 = TaintedExpression(bit<32>), v15 = TaintedExpression(bit<32>), v16 = TaintedExpression(bit<32>), v17 = TaintedExpression(bit<32>), v18 = TaintedExpression(bit<32>), v19 = TaintedExpression(bit<32>), v20 = TaintedExpression(bit<32>), v21 = TaintedExpression(bit<32>), v22 = TaintedExpression(bit<32>), v23 = TaintedExpression(bit<32>), v24 = TaintedExpression(bit<32>), v25 = TaintedExpression(bit<32>), v26 = TaintedExpression(bit<32>), v27 = TaintedExpression(bit<32>), v28 = TaintedExpression(bit<32>), v29 = TaintedExpression(bit<32>), v30 = TaintedExpression(bit<32>), v31 = TaintedExpression(bit<32>) }]
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = "Taint";
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_sent.sent_block', 0x00000000, 0)
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x00000000), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_compare.first_key', [('Ingress.opening_compare.first_key.key', 0xFFFFFFA0), ('Ingress.opening_compare.first_key.code', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_flags.first_flags', [('Ingress.opening_flags.first_flags.block', 0x00000000), ('Ingress.opening_flags.first_flags.flags', 0x108A6692)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)

    def sendPacket(self):
        ig_port = 324
        pkt = b'\x03\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xE1\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xB2\x8F\xFB\x96\x3A\xB5\xA9\xB3\x2B\x99\x8D\x49\x1B\x86\xE3\x59\x02\x36\x82\xA0\xC9\x9A\x1C\x6A\xD9\x99\x48\x93\x20\x4B\x1B\x35\xA1\x53\x50\xD4\x2F\x3D\x2E\x28\x62\xB2\x6D\x9A\xCE\xAC\xA4\x15\x0E\xA8\x5D\xF9\x49\xE0\xD5\x41\x34\x33\x02\x60\x67\x91\x51\xC9\x41\xED\xA9\xFA\x0C\xE3\x23\xDE\x15\x9F\xB9\x00\x1A\x58\xD4\x93\xAF\xFA\x6A\xEB\x29\x7C\x73\x66\x40\x14\x9E\xAD\xD7\x74\x90\x0C\xB9\xDC\x70\x6B\x91\xD0\x24\x04\x10\x40\x69\x0D\xCC\xFF\x8B\x0C\x52\xB1\x6A\x9C\xAE\x13\x52\x96\xBE\x36\xCC\xC9\xB5\xBA\xF4\x30\xF6\x6E\xDD\x2F\x1B\x4A\xF6\x8B\x3C\xD9\x6D\x93\xEE\x73\x58\xD0\xAA\x65\xB9\xE4\x94\x5A\xA9\x3C\x3A\x8B\x89\x50\xB3\xE2\x35\xDD\x22\x1D\x5F\xCE\xAF\x2D\xEA\x3F\xAA\xD0\xF9\x6F\x05\x69\xDC\x37\xE8\x9E\x7A\x97\xEE\x65\xC2\xF3\xEC\xBD\x96\x03\xF9\xFD\x17\x50\x48\xCC\xA4\x99\x5F\x4B\x0D\xF3\x36\x09\xC6\x7D\x81\x41\x3D\x20\x64\x04\xB0\x49\x24\xDE\xEF\x93\xBA\xB4\x53\xCC\x71\x48\xE6\x58\xA6\x5D\x27\x8B\xDD\x62\x8C\x6E\x12\x60\x46\x75\xBA\xB6\x83\xF7\x39\xDF\x34\xE7\xC7\xCA\x62\x06\x1D\x44\x96\xD8\x40\x84\x40\x3D\xD2\x3B\x67\xE0\xFB\x22\x1E\xE5\x72\x9F\x54\x94\xFE\xE1\x9A\x5A\xC6\x0F\xE0\xF0\xAA\xE2\x5E\x48\x0E\xDC\x7F\x58\x40\xA9\x52\x88\xCC\xF4\x01\xCF\x3A\xC8\x2B\xE2\xBC\x92\x1B\x21\x89\x02\x59\x80\xC9\x95\x34\x55\x02\x1E\x49\x1A\xFA\xEB\xC5\x2D\x1B\x32\xB8\x78\xDA\x75\x9A\x03\xD8\x48\xAB\x55\x8D\x29\xA1\xD3\xBD\xD6\xE2\xF6\x18\xE3\x45\xF2\xAE\x2C\xFD\x75\xA4\xC2\x70\x05\x82\xA6\x5B'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()


class Test5(AbstractTest):
    # Date generated: 2026-12-06-13:49:41.781
    # Current statement coverage: 0.19
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:68;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x044 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x03 | hdr.bridged.unicast = 0x0 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x1 | hdr.bridged._pad1 = 0x00 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 1;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0000 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0xD7 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Constant Table Branch: Ingress.uplink_sent.sent | Key(s): 1, |pktvar_1(bit<1>)|, |pktvar_27(bit<8>)| | Chosen action: record()]
    [MethodCall]: uplink_sent_record_0/record();
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: true
    [AssignmentStatement]: value = 0; // any block (block + 1 is never 0 but for NONE)| Computed: value = 0;
    [AssignmentStatement]: state = AWAIT_OPENING;| Computed: state = 3;
    [AssignmentStatement]: action record() { ig_md.awaiting = record_block.execute(ig_md.shadow ++ ig_md.slot[13 - 1:0]); }| Computed: ig_md.awaiting = 3;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: record_round()]
    [MethodCall]: uplink_wait_record_round_0/record_round();
    [MethodCall]: uplink_wait_await_answer/await_answer.execute(ig_md.cell);
    [AssignmentStatement]: value.state = (bit<32>) ig_md.awaiting; // AWAIT_DATA or AWAIT_OPENING (sent_block)| Computed: value.state = 3;
    [AssignmentStatement]: value.fingerprint = hdr.agg.fingerprint;| Computed: value.fingerprint = 0;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || 3 >= 2; Result: true
    [MethodCall]: uplink_uplinks/uplinks.apply();
    [Table Branch: Ingress.uplink.uplinks Choosing default action: NoAction_44/NoAction;]
    [MethodCall]: NoAction_44/NoAction();
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Constant Table Branch: Ingress.opening_compare.first | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, 0, 0, 3 | Chosen action: read_first_key()]
    [MethodCall]: opening_compare_read_first_key_0/read_first_key();
    [AssignmentStatement]: code = value.key;| Computed: code = 1160237455;
    [AssignmentStatement]: bit<32> k1 = read_key.execute(ig_md.cell);| Computed: opening_compare_k1/k1 = 1160237455;
    [AssignmentStatement]: hdr.agg.block = k1;| Computed: hdr.agg.block = 1160237455;
    [AssignmentStatement]: hdr.agg.exp = ~k1[7:0];| Computed: hdr.agg.exp = 112;
    [MethodCall]: opening_flags_flags/flags.apply();
    [Constant Table Branch: Ingress.opening_flags.flags | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, |pktvar_35(bit<32>)|, 0, 0, 3 | Chosen action: read()]
    [MethodCall]: opening_flags_read_0/read();
    [AssignmentStatement]: flags = (bit<8>) value.flags;| Computed: flags = 210;
    [AssignmentStatement]: action read() { ig_md.first_flags = read_flags.execute(ig_md.cell); }| Computed: ig_md.first_flags = 210;
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, 3, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, 3, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): |pktvar_0(bit<8>)|, |pktvar_1(bit<1>)|, 3, |pktvar_30(bit<8>)| | Chosen action: to_group()]
    [MethodCall]: harvested_to_group_0/to_group();
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.ANSWER;| Computed: hdr.bridged.kind = 2;
    [AssignmentStatement]: ig_tm_md.mcast_grp_a = hdr.bridged.mgid;| Computed: ig_tm_md.mcast_grp_a = 0;
    [AssignmentStatement]: ig_md.event = EV_RESULT_MULTICAST;| Computed: ig_md.event = 1;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: true
    [MethodCall]: opening_result_result/result.apply();
    [Table Branch: Ingress.opening_result.result Choosing default action: opening_result_values_0/values;]
    [MethodCall]: opening_result_values_0/values(2);
    [AssignmentStatement]: hdr.agg.flags = ig_md.first_flags ^ toggle;| Computed: hdr.agg.flags = 208;
    [AssignmentStatement]: hdr.agg.block = hdr.agg.block >> 8;| Computed: hdr.agg.block = 4532177;
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:2;  unicast:0;  _pad0:0;  opening:1;  _pad1:0;  ingress_port:0;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:0;  worker_id:0;  flags:208;  shadow:0;  slot:0;  epoch:0;  block:4532177;  next_block:0;  exp:112;  next_exp:0;  count:0;  session:0;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = "Taint";
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_sent.sent_block', 0x00000000, 0)
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x00000000), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_compare.first_key', [('Ingress.opening_compare.first_key.key', 0x4527D18F), ('Ingress.opening_compare.first_key.code', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_flags.first_flags', [('Ingress.opening_flags.first_flags.block', 0x00000000), ('Ingress.opening_flags.first_flags.flags', 0x88AC36D2)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)

    def sendPacket(self):
        ig_port = 68
        pkt = b'\x03\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xD7\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x66\xC7\x5D\x05\xEE\x62\xCB\x69\x2A\xEE\xCE\x3D\x7E\xE7\x1C\x61\xD1\x7C\x62\x5C\x1C\xEA\x02\x73\x6C\x79\x65\x77\xA6\x09\xFF\xAB\xB8\xD0\x70\x43\xA2\xD3\xE7\x52\x9B\x38\xD9\x01\x31\x9D\x68\xDD\x4E\x86\x2E\xE6\x89\x09\xF3\xB2\xB3\xE1\x3F\xCA\x16\x1B\xA6\xC1\x4D\x10\xE1\x09\x56\x14\x12\xDB\xBA\x74\xA8\x13\x21\x1A\xE4'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()


class Test6(AbstractTest):
    # Date generated: 2026-12-06-13:49:41.815
    # Current statement coverage: 0.2
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:68;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x044 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x03 | hdr.bridged.unicast = 0x0 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x1 | hdr.bridged._pad1 = 0x00 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 1;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0000 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0xC8 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Constant Table Branch: Ingress.uplink_sent.sent | Key(s): 1, |pktvar_1(bit<1>)|, |pktvar_27(bit<8>)| | Chosen action: record()]
    [MethodCall]: uplink_sent_record_0/record();
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: true
    [AssignmentStatement]: value = 0; // any block (block + 1 is never 0 but for NONE)| Computed: value = 0;
    [AssignmentStatement]: state = AWAIT_OPENING;| Computed: state = 3;
    [AssignmentStatement]: action record() { ig_md.awaiting = record_block.execute(ig_md.shadow ++ ig_md.slot[13 - 1:0]); }| Computed: ig_md.awaiting = 3;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: record_round()]
    [MethodCall]: uplink_wait_record_round_0/record_round();
    [MethodCall]: uplink_wait_await_answer/await_answer.execute(ig_md.cell);
    [AssignmentStatement]: value.state = (bit<32>) ig_md.awaiting; // AWAIT_DATA or AWAIT_OPENING (sent_block)| Computed: value.state = 3;
    [AssignmentStatement]: value.fingerprint = hdr.agg.fingerprint;| Computed: value.fingerprint = 0;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || 3 >= 2; Result: true
    [MethodCall]: uplink_uplinks/uplinks.apply();
    [Table Branch: Ingress.uplink.uplinks Choosing default action: NoAction_44/NoAction;]
    [MethodCall]: NoAction_44/NoAction();
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Constant Table Branch: Ingress.opening_compare.first | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, 0, 0, 3 | Chosen action: read_first_key()]
    [MethodCall]: opening_compare_read_first_key_0/read_first_key();
    [AssignmentStatement]: code = value.key;| Computed: code = 2561989947;
    [AssignmentStatement]: bit<32> k1 = read_key.execute(ig_md.cell);| Computed: opening_compare_k1/k1 = 2561989947;
    [AssignmentStatement]: hdr.agg.block = k1;| Computed: hdr.agg.block = 2561989947;
    [AssignmentStatement]: hdr.agg.exp = ~k1[7:0];| Computed: hdr.agg.exp = 196;
    [MethodCall]: opening_flags_flags/flags.apply();
    [Constant Table Branch: Ingress.opening_flags.flags | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, |pktvar_35(bit<32>)|, 0, 0, 3 | Chosen action: read()]
    [MethodCall]: opening_flags_read_0/read();
    [AssignmentStatement]: flags = (bit<8>) value.flags;| Computed: flags = 117;
    [AssignmentStatement]: action read() { ig_md.first_flags = read_flags.execute(ig_md.cell); }| Computed: ig_md.first_flags = 117;
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, 3, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, 3, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): |pktvar_0(bit<8>)|, |pktvar_1(bit<1>)|, 3, |pktvar_30(bit<8>)| | Chosen action: to_group()]
    [MethodCall]: harvested_to_group_0/to_group();
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.ANSWER;| Computed: hdr.bridged.kind = 2;
    [AssignmentStatement]: ig_tm_md.mcast_grp_a = hdr.bridged.mgid;| Computed: ig_tm_md.mcast_grp_a = 0;
    [AssignmentStatement]: ig_md.event = EV_RESULT_MULTICAST;| Computed: ig_md.event = 1;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: true
    [MethodCall]: opening_result_result/result.apply();
    [Constant Table Branch: Ingress.opening_result.result | Key(s): 2, |Ingress.opening_compare.first_key_key(bit<32>)|, (bit<8>)|Ingress.opening_flags.first_flags_flags(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: repeat(8w1) | Arg(s): 1]
    [MethodCall]: opening_result_repeat_0/repeat(1);
    [AssignmentStatement]: hdr.agg.flags = ig_md.first_flags ^ toggle;| Computed: hdr.agg.flags = 116;
    [AssignmentStatement]: hdr.agg.next_block = hdr.agg.block >> 8;| Computed: hdr.agg.next_block = 10007773;
    [AssignmentStatement]: hdr.agg.next_exp = hdr.agg.exp;| Computed: hdr.agg.next_exp = 196;
    [AssignmentStatement]: hdr.agg.block = hdr.agg.block >> 8;| Computed: hdr.agg.block = 10007773;
    [MethodCall]: hdr.vals_a.setInvalid();
    [MethodCall]: hdr.vals_b.setInvalid();
    [AssignmentStatement]: hdr.agg.count = 0;| Computed: hdr.agg.count = 0;
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:2;  unicast:0;  _pad0:0;  opening:1;  _pad1:0;  ingress_port:0;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:0;  worker_id:0;  flags:116;  shadow:0;  slot:0;  epoch:0;  block:10007773;  next_block:10007773;  exp:196;  next_exp:196;  count:0;  session:0;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Invalid emit: { v00 = TaintedExpression(bit<32>), v01 = TaintedExpression(bit<32>), v02 = TaintedExpression(bit<32>), v03 = TaintedExpression(bit<32>), v04 = TaintedExpression(bit<32>), v05 = TaintedExpression(bit<32>), v06 = TaintedExpression(bit<32>), v07 = TaintedExpression(bit<32>), v08 = TaintedExpression(bit<32>), v09 = TaintedExpression(bit<32>), v10 = TaintedExpression(bit<32>), v11 = TaintedExpression(bit<32>), v12 = TaintedExpression(bit<32>), v13 = TaintedExpression(bit<32>), v14 = TaintedExpression(bit<32>), v15 = TaintedExpression(bit<32>), v16 = TaintedExpression(bit<32>), v17 = TaintedExpression(bit<32>), v18 = TaintedExpression(bit<32>), v19 = TaintedExpression(bit<32>), v20 = TaintedExpression(bit<32>), v21 = TaintedExpression(bit<32>), v22 = TaintedExpression(bit<32>), v23 = TaintedExpression(bit<32>), v24 = TaintedExpression(bit<32>), v25 = TaintedExpression(bit<32>), v26 = TaintedExpression(bit<32>), v27 = TaintedExpression(bit<32>), v28 = TaintedExpression(bit<32>), v29 = TaintedExpression(bit<32>), v30 = TaintedExpression(bit<32>), v31 = TaintedExpression(bit<32>) }]
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Invalid emit: { v00 = TaintedExpression(bit<32>), v01 = TaintedExpression(bit<32>), v02 = TaintedExpression(bit<32>), v03 = TaintedExpression(bit<32>), v04 = TaintedExpression(bit<32>), v05 = TaintedExpression(bit<32>), v06 = TaintedExpression(bit<32>), v07 = TaintedExpression(bit<32>), v08 = TaintedExpression(bit<32>), v09 = TaintedExpression(bit<32>), v10 = TaintedExpression(bit<32>), v11 = TaintedExpression(bit<32>), v12 = TaintedExpression(bit<32>), v13 = TaintedExpression(bit<32>), v14 = TaintedExpression(bit<32>), v15 = TaintedExpression(bit<32>), v16 = TaintedExpression(bit<32>), v17 = TaintedExpression(bit<32>), v18 = TaintedExpression(bit<32>), v19 = TaintedExpression(bit<32>), v20 = TaintedExpression(bit<32>), v21 = TaintedExpression(bit<32>), v22 = TaintedExpression(bit<32>), v23 = TaintedExpression(bit<32>), v24 = TaintedExpression(bit<32>), v25 = TaintedExpression(bit<32>), v26 = TaintedExpression(bit<32>), v27 = TaintedExpression(bit<32>), v28 = TaintedExpression(bit<32>), v29 = TaintedExpression(bit<32>), v30 = TaintedExpression(bit<32>), v31 = TaintedExpression(bit<32>) }]
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = "Taint";
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_sent.sent_block', 0x00000000, 0)
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x00000000), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_compare.first_key', [('Ingress.opening_compare.first_key.key', 0x98B4DD3B), ('Ingress.opening_compare.first_key.code', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_flags.first_flags', [('Ingress.opening_flags.first_flags.block', 0x00000000), ('Ingress.opening_flags.first_flags.flags', 0xF28ADE75)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)

    def sendPacket(self):
        ig_port = 68
        pkt = b'\x03\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xC8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xE1\x31\x22\x73\xA4\xC8\x9B\x11\x84\xB2\xAE\x10\xBC\x33\x6B\x31\x86\xA1\xCA\x17\xF4\xAB\x31\xB6\x0A\x57\xC5\x08\x4D\x17\x76\xA0\x7D\xF4\xF3\x98\x79\xC2\xF0\xC3\x9D\xA0\x79\xE6\xCC\xCE\x35\x4D\xE0\xC2\xBB\xF9\xDA\x6B\x6C\x27\xEF\x1F\xCE\x98\x28\xCD\xFC\x73\xE0\x7F\x83\xD1\x1C\x1B\x1E\x1B\x8F\xDC\x10\xFF\x2B\x3B\x80\xED\x99\x85\xD4\x92\x1A\x6F\x0A\x95\x5C\x3A\x42\x2C\xBA\x75\xA4\x2D\x94\xE7\x9C\x84\xDE\x3B\x57\xC7\x54\xD8\xB8\x7F\x4B\xC8\x26\x23\x82\xCD\x25\xAA\x02\xA0\x1F\x0D\x38\x5C\x27\x3A\x93\x88\x6A\x46\x85\x36\xD6\x0E\x95\x38\x17\x66\x2E\xEA\xC6\x59\x57\x40\x45\x7A\x7B\xB8\xC7\x93\x00\x05\xA9\xE1\x17\xF4\x5F\x3D\x87\xF2\x21\x29\x11\x0C\x67\xB3\xAE\x2E\x2B\x70\x7C\xCF\x25\x2F\x64\xB4\xA6\x2A\xB4\x4F\x77\xD0\xFC\x69\xA1\xF3\xFF\xBC\xF6\x69\xE0\xCC\x95\x1A\x1D\x2C\x4A\x9B\x6A\x85\xFB\xDB\x41\xD1\x95\x2C\xBD\x74\xDA\x26\xB2\x29\x80\x50\x7A\xFC\x7C\x5B\x3D\xB1\x09\x3A\x30\xF8\x84\x68\x1D\xAD\xF6\x16\x65\x3B\xF8\x20\xB7\xF5\xB2\x3A\x57\xAC\x6E\xA4\x12\x5D\xFE\xEB\x92\xA7\x78\x60\xFC\x1C\x28\xD8\x26\x01\xF8\x93\x08\x39\x14\xEF\xD6\x9B\x29\xE2\xF1\xA1\x53\xEE\x8E\x73\x2E\x0F\x38\x0D\xFC\x5F\x0D\x1B\xB1\xF2\xF0\x28\x60\x3F\x55\x58\xB9\x29\x74\xC3\x1E\x6D\x2D\x73\xA2\x85\xD5\xF5\xFA\xEA\x99\x92\xE8\xD6\xBE\x13\xD2\x84\x6B\xA6\x3A\xD1\xD1\x9C\x60\x4F\xBA\xCE\xD3\x34\x59\x00\x3D\x93\xA6\x46\xEF\xE5\x0A\xD6\x42\x02\x64\xAB\x1D\x55\x5C\x46\x8F\x4A\x43\xC9\x9C\x7F\x7B\xD5\x83\xA0\xD8\xDC\x7F\xE1\x5E\x30\x8D\x73\xEE\x34\xFB\x44\x5F\xD9\x87\xB0\xB2\xC6\x1F\x83\xE5\x3D\x33\x8E\xFA\xF0\xC1\xE3\x08\x12\x86\xDC\x07\x7D\xF6\xE3\x0D\x38\x21\x53\x74\x11\x68\x4E\x48\xCB\x20\x85\xA5\x26\x99\x24\xD9\x70\x39\x06\xFC\x4B\xAA\xA6\x69\xE9\x73\xE4\x19\xD1\x66\x7B\xFC\x7F\x58\xB7\x85\x5C\x2D\x4E\x39\xF0\xF9\x07\xEC\x46\x20\xD7\xAD\x2F\x7D\xF0\x5A\xDD\x3E\x3A\x85\xD8\x44\x83\x25\x9D\x3E\x0B\x7A\x69\x23\x6E\xFF\xE8\x2E\xEB\xC7\xD3\x9B\x5D\xD6\xA7\xF9\x1F\xD0\xD1\x15\xE9\x28\x68\x98\xC5\xB6\x75\x29\x50\x80\xE8\xE0\x80\x6B\x3B\x60\x88\x9D\x81\x7D\xCC\xB6\x98\x90\x44\x42\x6F\x18\xFD\xDD\x09\x6C\xFB\x7F\xB5\xAB\x48\x15\xCF\x48\x4F\x82\xA5\x6E\x95\xE8\x7B\xA5\xD1\xAF\xD4\x00\xA5\xD1\x3B\x05\x43\xA8\xFF\xE1\xD9\x08\xC3\xA0\x25\x94\x2F\x4A\xDF\xDF\xE7\xA0\xD0\x07\x3F\x43\xE3\xAE\x10\x42\x1E\x94\xBC\xB3\x7D\x5C\xF4\x1F\x2C\x65\xEB\x63\xA3\x99\x5E\x72\x3F\xF6\x36\xCB\x92\xE0\x18\x1C\x66\x9F\xA9\x26\xFF\xF0\xDE\x72\xE8\xC7\x70\x71\x43\xB9\x80\xF5\xBB\x57\x45\x9F\xBE\xCD\x63\xFE\xB6\x0C\x1F\x01\xDC\x76\xEC\xA1\xFD\x6D\xB3\xD4\x8E\x18\x5E\xA6\xE7\xE3\x21\x9B\xB2\x2D\x68\xD5\x9F\x5B\xE4\x26\xD6\x7A\x50\x74\x30\x08\xA1\x0D\x9D\x84\x94\x01\x28\x60\xFF\x61\x13\xE9\x50\xF7\x25\x43\x4D\xE9\xB7\x38\xA2\x99\xEA\x4F\x6A\xEF\x82\xB6\xA2\xDC\xCB\xC4\x7D\x47\xE3\xE1\xF0\x5C\xE7\xC8\x6D\x7D\xC6\xB6\x00\x72\xF3\x81\x6F\x95\x47\xDA\xF5\x60\x00\xC5\xC8\xFE\x1B\x30\xA9\xAD\x89\xE3\x7A\x4C\x9B\xDB\x2C\xB2\x02\xA7\x3B\x67\xB0\x28\x60\x76\x9E\x56\xE7\xBD\xB8\x16\x3D\x85\x20\x2A\x08\x84\x09\x94\xE0\xA2\xC6\x1C\xA1\x07\xA7\x58\x36\x3A\x09\x7C\xD5\x21\xFE\x8E\xB0\xF6\xE7\x99\x83\x07\xC7\x8D\x53\x07\x67\x03\x32\x28\xFD\xCF\xB4\x59\xCD\x9C\x1C\xC0\x16\x14\xE8\xAD\x79\x58\x52\x44\xAB\xC2\x33\x4C\x7A\x62\xF5\xB4\x95\xD9\xB1\x79\x73\x38\xE2\x8B\xFB\x6D\xAE\x8B\x73\xD0\xCD\x61\xD6\x0F\xE4\x92\xBF\x37\x5C\x76\x63\x1B\x4E\xB0\x65\x14\xEB\xC3\xFC\xA8\x48\xC4\xC1\x3E\x9A\x15\xF5\x6D\x5B\x5E\x07\x1C\xCF\x22\x5C\x6B\xA4\x16\x1D\x03\xF9\xF5\x92\xD2\x45\x58\x75\x65\xBF\xB0\x95\x7E\x63\x81\x11\x14\xE3\xA0\xAE\x15\xBC\x1A\x04\xB1\x72\xA4\x9A\x7E\xA0\x0E\x14\x11\x29\xF4\xBC\x40\x23\xC7\x24\xB7\x5F\x77\x02\xE3\x44\x52\xA0\x62\x0D\x61\xA8\x04\x50\xF0\xD2\xF2\x4F\x80\xD1\x59\x44\xE6\x6D\xC3\xCA\x58\x47\x04\x0B\x6B\xD8\x89\xB9\x11\xE8\xDD\xF7\x90\x57\xAB\x12\xAC\xBC\x58\xF0\xA8\xC4\x26\x6D\xD2\x75\x61\xC6\x67\xB2\x61\x84\x6D\x63\x48\xAE\x96\xCD\x8E\xFF\xAA\x0B\xBA\x4D\xBF\xA2\x3F\xD9\x73\xD0\xE5\xDE\x2D\x1B\xE8\xA7\x56\x5C\x7C\x7F\xE2\x6D\xB9\xF6\xB3\x74\xFC\x81\x0F\x14\xDB\x7A\x5D\xB1\xC4\xA5\xC1\x44\x5E\xD4\xE5\x81\x77\x46\x0B\x38\xAF\xD0\xD6\x15\x36\x03\xFA'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()


class Test7(AbstractTest):
    # Date generated: 2026-12-06-13:49:42.260
    # Current statement coverage: 0.24
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:452;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x1C4 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x00 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x04 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 0;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x4D05 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0xDB | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0xF66E | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Table Branch: Ingress.uplink_sent.sent Choosing default action: NoAction_42/NoAction;]
    [MethodCall]: NoAction_42/NoAction();
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: read_awaiting()]
    [MethodCall]: uplink_wait_read_awaiting_0/read_awaiting();
    [AssignmentStatement]: state = (bit<8>) value.state;| Computed: state = 77;
    [AssignmentStatement]: action read_awaiting() { ig_md.awaiting = read_state.execute(ig_md.cell); }| Computed: ig_md.awaiting = 77;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)| >= 2; Result: true
    [MethodCall]: uplink_uplinks/uplinks.apply();
    [Table Branch: Ingress.uplink.uplinks | Key(s): |pktvar_28(bit<16>)|| Chosen action: Ingress.uplink.to_parent]
    [MethodCall]: uplink_to_parent_0/to_parent(|Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_job(bit<16>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_rank(bit<8>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_session_2(bit<32>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_port(bit<9>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_mac_2(bit<48>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_ip_2(bit<32>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_udp_port_2(bit<16>)|);
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.UPSTREAM;| Computed: hdr.bridged.kind = 4;
    [AssignmentStatement]: hdr.ethernet.dst_addr = mac;| Computed: hdr.ethernet.dst_addr = 0;
    [AssignmentStatement]: hdr.ipv4.dst_addr = ip;| Computed: hdr.ipv4.dst_addr = 0;
    [AssignmentStatement]: hdr.udp.dst_port = udp_port;| Computed: hdr.udp.dst_port = 0;
    [AssignmentStatement]: hdr.agg.msg_type = MSG_DATA;| Computed: hdr.agg.msg_type = 1;
    [AssignmentStatement]: hdr.agg.job_id = up_job;| Computed: hdr.agg.job_id = 0;
    [AssignmentStatement]: hdr.agg.worker_id = up_rank;| Computed: hdr.agg.worker_id = 0;
    [AssignmentStatement]: hdr.agg.session = up_session;| Computed: hdr.agg.session = 93815;
    [AssignmentStatement]: ig_tm_md.ucast_egress_port = port;| Computed: ig_tm_md.ucast_egress_port = 300;
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Table Branch: Ingress.opening_compare.first Choosing default action: NoAction_7/NoAction;]
    [MethodCall]: NoAction_7/NoAction();
    [MethodCall]: opening_flags_flags/flags.apply();
    [Table Branch: Ingress.opening_flags.flags Choosing default action: NoAction_8/NoAction;]
    [MethodCall]: NoAction_8/NoAction();
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): 4, |pktvar_1(bit<1>)|, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: poison()]
    [MethodCall]: harvested_poison_0/poison();
    [AssignmentStatement]: ig_md.event = EV_UPSTREAM;| Computed: ig_md.event = 12;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [AssignmentStatement]: hdr.agg.fingerprint = hdr.agg.fingerprint ^ POISON;| Computed: hdr.agg.fingerprint = 4294967295;
    [AssignmentStatement]: hdr.agg.flags = hdr.agg.flags & ~FLAG_MISMATCH;| Computed: hdr.agg.flags = 217;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: false
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:4;  unicast:1;  _pad0:0;  opening:0;  _pad1:4;  ingress_port:0;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:1;  job_id:0;  worker_id:0;  flags:217;  shadow:0;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:63086;  session:93815;  blocks:0;  fingerprint:4294967295;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = 300;
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen If Statement]: Condition: true && 1 == 0; Result: false
    [P4Testgen MethodCall]: *.StartEgress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*eg_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    _pad0:0;  egress_port:300;  egress_rid:0;  }
    [P4Testgen MethodCall]: *.copy_in("EgressParser");
    [Parser] EgressParser
    [State] start
    [MethodCall]: pkt.extract<egress_intrinsic_metadata_t>(eg_intr_md);
    [ExtractSuccess] eg_intr_md@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2752; | Extract Size: 32 -> eg_intr_md._pad0 = 0x00 | eg_intr_md.egress_port = 0x12C | eg_intr_md.egress_rid = Taint
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.dest_worker = 0;
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.update_checksum = 0;
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2768; | Extract Size: 48 -> hdr.bridged.kind = 0x04 | hdr.bridged.unicast = 0x0 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x00 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [State] parse_answer
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2832; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2880; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2784; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@2720 | Condition: |*packetLen_bits(bit<32>)| >= 3008; | Extract Size: 288 -> hdr.agg.version = 0x80 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x006C | hdr.agg.worker_id = 0x80 | hdr.agg.flags = 0x00 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x7B | hdr.agg.next_exp = 0x37 | hdr.agg.count = 0x0000 | hdr.agg.session = 0xB73B_8000 | hdr.agg.blocks = 0x0000_7FFF | hdr.agg.fingerprint = 0xFFFF_8000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("EgressParser");
    [P4Testgen MethodCall]: *.copy_in("Egress");
    [Control Egress start]
    [If Statement]: hdr.bridged.kind == bridged_kind_t.ANSWER Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 2; Result: false
    [If Statement]: hdr.bridged.kind == bridged_kind_t.UPSTREAM Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 4; Result: true
    [If Statement]: hdr.agg.count == 0 Condition: |pktvar_38(bit<16>)|[0:0] ++ |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_session_2(bit<32>)|[31:17] == 0; Result: true
    [MethodCall]: upstream_lengths();
    [AssignmentStatement]: hdr.udp.length = udp_length;| Computed: hdr.udp.length = 44;
    [AssignmentStatement]: hdr.udp.checksum = 0;| Computed: hdr.udp.checksum = 0;
    [AssignmentStatement]: hdr.ipv4.total_len = ipv4_length;| Computed: hdr.ipv4.total_len = 64;
    [AssignmentStatement]: eg_md.update_checksum = 1;| Computed: eg_md.update_checksum = 1;
    [P4Testgen MethodCall]: *.copy_out("Egress");
    [P4Testgen MethodCall]: *.copy_in("EgressDeparser");
    [Control EgressDeparser start]
    [If Statement]: eg_md.update_checksum == 1 Condition: 1 == 1; Result: true
    [AssignmentStatement]: hdr.ipv4.hdr_checksum = ipv4_checksum.update({| Computed: hdr.ipv4.hdr_checksum = "Taint";
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:64;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:44;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:128;  msg_type:0;  job_id:108;  worker_id:128;  flags:0;  shadow:0;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:123;  next_exp:55;  count:0;  session:3074129920;  blocks:32767;  fingerprint:4294934528;  }
    [P4Testgen MethodCall]: *.copy_out("EgressDeparser");
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x2FCA554D), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)
        # Table Ingress.uplink.uplinks
        self.insertTableEntry(
            'Ingress.uplink.uplinks',
            [
                gc.KeyTuple('hdr.agg.job_id', 0x4D05),
            ],
            'Ingress.uplink.to_parent',
            [
                gc.DataTuple('up_job', 0x0000),
                gc.DataTuple('up_rank', 0x00),
                gc.DataTuple('up_session', 0x00016E77),
                gc.DataTuple('port', 0x12C),
                gc.DataTuple('mac', 0x000000000000),
                gc.DataTuple('ip', 0x00000000),
                gc.DataTuple('udp_port', 0x0000),
            ]
        )

    def sendPacket(self):
        ig_port = 452
        pkt = b'\x00\x80\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x4D\x05\x00\xDB\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xF6\x6E\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x6C\x3A\x5F\x46\x2C\xB6\xB2\x3F\x8E\x0C\x32\x94\x18\x8C\x70\xD0\x17\x48\x07\xAC\x77\x7F\xE5\x75\x46\x1A\x9E\xA6\x2E\xF8\x20\x9F\x61\xF7\x01\xD4\x95\x10\xEE\x90\x7A\x2F\xF3\xDB\xFC\x40\x7F\x55\xE4\x11\x62\x7C\x03\x80\xA4\x1A\xCB\x8F\xE0\x01\x57\x65\xE6\xCE\xC5\x5D\x25\xA4\xF4\xD9\x0F\x22\x75\x8C\x7F\xEA\x2F\x97\x62\x93\xE9\x05\x27\x73\x01\xD5\xD3\xC0\xEC\x9D\xDA\xAF\xD2\xA9\xEC\xB2\xAC\x01\xD8\xAC\x26\xFB\xCD\xF9\x99\x07\xCD\x03\x3A\x00\x12\x73\x64\xEF\x70\xCF\x5B\x6B\x8C\xEE\xA8\x67\xFA\x84\xE2\x94\x26\xDC\xE7\xC8\x59\x05\xDD\xC4\x01\x65\x94\xA0\x61\x21\x5D\xAF\x95\x5B\x02\x97\x2F\xC5\x28\x8C\x2A\xDE\xFE\xF3\xFF\xAC\x81\x5E\x40\xB0\x91\x17\xDE\x81\x28\x2B\x13\x04\xA0\x4C\x59\x50\x00\x17\x34\x23\xBE\xDF\xB9\x1F\xF4\x5E\xD0\xDE\xC6\x41\xC1\x76\xBF\x62\x26\x40\xD6\x95\x34\xC1\x40\x91\x14\x09\x7E\x98\xDA\x86\x1E\x0E\xA0\xA2\xB1\x40\xB2\x56\xB5\x91\xB1\x76\x81\xEE\x46\x38\x61\x45\x3C\x2A\x70\x2D\x28\xFC\x00\x8D\xDC\xFE\x72\xB6\x8F\x51\xE8\x6D\xC0\x50\x21\xBA\x37\xC2\x1E\x86\x37\x1C\xA5\x76\x6B\x02\xC9\x9A\xA9\x51\xE9\xA5\xEC\x23\x3D\xDD\x81\x9D\x11\xE2\xE5\x75\x18\x7D\x19\x70\x95\xF3\x63\x77\xF8\x06\xE9\x95\xD5\x0E\x0C\xBA\xE7\x41\xE3\x35\x96\xCF\x7F\x7D\xF8\x6A\xFA\xC5\x87\x67\xE5\x5A\x5E\x9B\x52\xFA\xFC\x45\x1A\x03\x5C\xE7\x76\x54\x1C\x09\xB5\x7A\x14\xF5\xFA\x0E\x69\x43\x0C\xAB\x32\x12\x24\x9F\xF3\x5B\x55\xA1\xF3\x1C\x3D\x2A\x80\xD7\xAB\xD3\x01\x40\x4D\x32\x25\xF3\x0E\xC4\x79\x3B\xBE\x6A\x71\x5A\x21\xF9\x08\x9B\x87\xF4\x88\xA7\x61'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        eg_port = 300
        exp_pkt = b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x58\x00\x01\x00\x00\x00\xD9\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xF6\x6E\x00\x01\x6E\x77\x00\x00\x00\x00\xFF\xFF\xFF\xFF\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x6C\x3A\x5F\x46\x2C\xB6\xB2\x3F\x8E\x0C\x32\x94\x18\x8C\x70\xD0\x17\x48\x07\xAC\x77\x7F\xE5\x75\x46\x1A\x9E\xA6\x2E\xF8\x20\x9F\x61\xF7\x01\xD4\x95\x10\xEE\x90\x7A\x2F\xF3\xDB\xFC\x40\x7F\x55\xE4\x11\x62\x7C\x03\x80\xA4\x1A\xCB\x8F\xE0\x01\x57\x65\xE6\xCE\xC5\x5D\x25\xA4\xF4\xD9\x0F\x22\x75\x8C\x7F\xEA\x2F\x97\x62\x93\xE9\x05\x27\x73\x01\xD5\xD3\xC0\xEC\x9D\xDA\xAF\xD2\xA9\xEC\xB2\xAC\x01\xD8\xAC\x26\xFB\xCD\xF9\x99\x07\xCD\x03\x3A\x00\x12\x73\x64\xEF\x70\xCF\x5B\x6B\x8C\xEE\xA8\x67\xFA\x84\xE2\x94\x26\xDC\xE7\xC8\x59\x05\xDD\xC4\x01\x65\x94\xA0\x61\x21\x5D\xAF\x95\x5B\x02\x97\x2F\xC5\x28\x8C\x2A\xDE\xFE\xF3\xFF\xAC\x81\x5E\x40\xB0\x91\x17\xDE\x81\x28\x2B\x13\x04\xA0\x4C\x59\x50\x00\x17\x34\x23\xBE\xDF\xB9\x1F\xF4\x5E\xD0\xDE\xC6\x41\xC1\x76\xBF\x62\x26\x40\xD6\x95\x34\xC1\x40\x91\x14\x09\x7E\x98\xDA\x86\x1E\x0E\xA0\xA2\xB1\x40\xB2\x56\xB5\x91\xB1\x76\x81\xEE\x46\x38\x61\x45\x3C\x2A\x70\x2D\x28\xFC\x00\x8D\xDC\xFE\x72\xB6\x8F\x51\xE8\x6D\xC0\x50\x21\xBA\x37\xC2\x1E\x86\x37\x1C\xA5\x76\x6B\x02\xC9\x9A\xA9\x51\xE9\xA5\xEC\x23\x3D\xDD\x81\x9D\x11\xE2\xE5\x75\x18\x7D\x19\x70\x95\xF3\x63\x77\xF8\x06\xE9\x95\xD5\x0E\x0C\xBA\xE7\x41\xE3\x35\x96\xCF\x7F\x7D\xF8\x6A\xFA\xC5\x87\x67\xE5\x5A\x5E\x9B\x52\xFA\xFC\x45\x1A\x03\x5C\xE7\x76\x54\x1C\x09\xB5\x7A\x14\xF5\xFA\x0E\x69\x43\x0C\xAB\x32\x12\x24\x9F\xF3\x5B\x55\xA1\xF3\x1C\x3D\x2A\x80\xD7\xAB\xD3\x01\x40\x4D\x32\x25\xF3\x0E\xC4\x79\x3B\xBE\x6A\x71\x5A\x21\xF9\x08\x9B\x87\xF4\x88\xA7\x61'
        exp_pkt = Mask(exp_pkt)
        exp_pkt.set_do_not_care(192, 16)
        verify_packet(self, exp_pkt, eg_port)

    def runTest(self):
        self.runTestImpl()


class Test8(AbstractTest):
    # Date generated: 2026-12-06-13:49:42.450
    # Current statement coverage: 0.24
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:324;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x144 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x00 | hdr.bridged.unicast = 0x0 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x1 | hdr.bridged._pad1 = 0x00 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0xF6C2
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 1;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0xAA31 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0xB4 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Constant Table Branch: Ingress.uplink_sent.sent | Key(s): 1, |pktvar_1(bit<1>)|, |pktvar_27(bit<8>)| | Chosen action: record()]
    [MethodCall]: uplink_sent_record_0/record();
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: true
    [AssignmentStatement]: value = 0; // any block (block + 1 is never 0 but for NONE)| Computed: value = 0;
    [AssignmentStatement]: state = AWAIT_OPENING;| Computed: state = 3;
    [AssignmentStatement]: action record() { ig_md.awaiting = record_block.execute(ig_md.shadow ++ ig_md.slot[13 - 1:0]); }| Computed: ig_md.awaiting = 3;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: record_round()]
    [MethodCall]: uplink_wait_record_round_0/record_round();
    [MethodCall]: uplink_wait_await_answer/await_answer.execute(ig_md.cell);
    [AssignmentStatement]: value.state = (bit<32>) ig_md.awaiting; // AWAIT_DATA or AWAIT_OPENING (sent_block)| Computed: value.state = 3;
    [AssignmentStatement]: value.fingerprint = hdr.agg.fingerprint;| Computed: value.fingerprint = 0;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || 3 >= 2; Result: true
    [MethodCall]: uplink_uplinks/uplinks.apply();
    [Table Branch: Ingress.uplink.uplinks | Key(s): |pktvar_28(bit<16>)|| Chosen action: Ingress.uplink.to_parent]
    [MethodCall]: uplink_to_parent_0/to_parent(|Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_job(bit<16>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_rank(bit<8>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_up_session_2(bit<32>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_port(bit<9>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_mac_2(bit<48>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_ip_2(bit<32>)|, |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_udp_port_2(bit<16>)|);
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.UPSTREAM;| Computed: hdr.bridged.kind = 4;
    [AssignmentStatement]: hdr.ethernet.dst_addr = mac;| Computed: hdr.ethernet.dst_addr = 0;
    [AssignmentStatement]: hdr.ipv4.dst_addr = ip;| Computed: hdr.ipv4.dst_addr = 0;
    [AssignmentStatement]: hdr.udp.dst_port = udp_port;| Computed: hdr.udp.dst_port = 0;
    [AssignmentStatement]: hdr.agg.msg_type = MSG_DATA;| Computed: hdr.agg.msg_type = 1;
    [AssignmentStatement]: hdr.agg.job_id = up_job;| Computed: hdr.agg.job_id = 0;
    [AssignmentStatement]: hdr.agg.worker_id = up_rank;| Computed: hdr.agg.worker_id = 0;
    [AssignmentStatement]: hdr.agg.session = up_session;| Computed: hdr.agg.session = 0;
    [AssignmentStatement]: ig_tm_md.ucast_egress_port = port;| Computed: ig_tm_md.ucast_egress_port = 353;
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Constant Table Branch: Ingress.opening_compare.first | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, 0, 0, 3 | Chosen action: read_first_key()]
    [MethodCall]: opening_compare_read_first_key_0/read_first_key();
    [AssignmentStatement]: code = value.key;| Computed: code = 2733262452;
    [AssignmentStatement]: bit<32> k1 = read_key.execute(ig_md.cell);| Computed: opening_compare_k1/k1 = 2733262452;
    [AssignmentStatement]: hdr.agg.block = k1;| Computed: hdr.agg.block = 2733262452;
    [AssignmentStatement]: hdr.agg.exp = ~k1[7:0];| Computed: hdr.agg.exp = 139;
    [MethodCall]: opening_flags_flags/flags.apply();
    [Constant Table Branch: Ingress.opening_flags.flags | Key(s): 1, 0, |pktvar_3(bit<1>)|, 0, |pktvar_35(bit<32>)|, 0, 0, 3 | Chosen action: read()]
    [MethodCall]: opening_flags_read_0/read();
    [AssignmentStatement]: flags = (bit<8>) value.flags;| Computed: flags = 93;
    [AssignmentStatement]: action read() { ig_md.first_flags = read_flags.execute(ig_md.cell); }| Computed: ig_md.first_flags = 93;
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, 3, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, 3, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): 4, |pktvar_1(bit<1>)|, 3, |pktvar_30(bit<8>)| | Chosen action: up()]
    [MethodCall]: harvested_up_0/up();
    [AssignmentStatement]: ig_md.event = EV_UPSTREAM;| Computed: ig_md.event = 12;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: true
    [MethodCall]: opening_result_result/result.apply();
    [Constant Table Branch: Ingress.opening_result.result | Key(s): 4, |Ingress.opening_compare.first_key_key(bit<32>)|, (bit<8>)|Ingress.opening_flags.first_flags_flags(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: up_repeat()]
    [MethodCall]: opening_result_up_repeat_0/up_repeat();
    [AssignmentStatement]: hdr.agg.flags = ig_md.first_flags;| Computed: hdr.agg.flags = 93;
    [AssignmentStatement]: hdr.agg.block = hdr.agg.block >> 8;| Computed: hdr.agg.block = 10676806;
    [MethodCall]: hdr.vals_a.setInvalid();
    [MethodCall]: hdr.vals_b.setInvalid();
    [AssignmentStatement]: hdr.agg.count = 0;| Computed: hdr.agg.count = 0;
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:4;  unicast:0;  _pad0:0;  opening:1;  _pad1:0;  ingress_port:0;  mgid:63170;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:1;  job_id:0;  worker_id:0;  flags:93;  shadow:0;  slot:0;  epoch:0;  block:10676806;  next_block:0;  exp:139;  next_exp:0;  count:0;  session:0;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Invalid emit: { v00 = TaintedExpression(bit<32>), v01 = TaintedExpression(bit<32>), v02 = TaintedExpression(bit<32>), v03 = TaintedExpression(bit<32>), v04 = TaintedExpression(bit<32>), v05 = TaintedExpression(bit<32>), v06 = TaintedExpression(bit<32>), v07 = TaintedExpression(bit<32>), v08 = TaintedExpression(bit<32>), v09 = TaintedExpression(bit<32>), v10 = TaintedExpression(bit<32>), v11 = TaintedExpression(bit<32>), v12 = TaintedExpression(bit<32>), v13 = TaintedExpression(bit<32>), v14 = TaintedExpression(bit<32>), v15 = TaintedExpression(bit<32>), v16 = TaintedExpression(bit<32>), v17 = TaintedExpression(bit<32>), v18 = TaintedExpression(bit<32>), v19 = TaintedExpression(bit<32>), v20 = TaintedExpression(bit<32>), v21 = TaintedExpression(bit<32>), v22 = TaintedExpression(bit<32>), v23 = TaintedExpression(bit<32>), v24 = TaintedExpression(bit<32>), v25 = TaintedExpression(bit<32>), v26 = TaintedExpression(bit<32>), v27 = TaintedExpression(bit<32>), v28 = TaintedExpression(bit<32>), v29 = TaintedExpression(bit<32>), v30 = TaintedExpression(bit<32>), v31 = TaintedExpression(bit<32>) }]
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Invalid emit: { v00 = TaintedExpression(bit<32>), v01 = TaintedExpression(bit<32>), v02 = TaintedExpression(bit<32>), v03 = TaintedExpression(bit<32>), v04 = TaintedExpression(bit<32>), v05 = TaintedExpression(bit<32>), v06 = TaintedExpression(bit<32>), v07 = TaintedExpression(bit<32>), v08 = TaintedExpression(bit<32>), v09 = TaintedExpression(bit<32>), v10 = TaintedExpression(bit<32>), v11 = TaintedExpression(bit<32>), v12 = TaintedExpression(bit<32>), v13 = TaintedExpression(bit<32>), v14 = TaintedExpression(bit<32>), v15 = TaintedExpression(bit<32>), v16 = TaintedExpression(bit<32>), v17 = TaintedExpression(bit<32>), v18 = TaintedExpression(bit<32>), v19 = TaintedExpression(bit<32>), v20 = TaintedExpression(bit<32>), v21 = TaintedExpression(bit<32>), v22 = TaintedExpression(bit<32>), v23 = TaintedExpression(bit<32>), v24 = TaintedExpression(bit<32>), v25 = TaintedExpression(bit<32>), v26 = TaintedExpression(bit<32>), v27 = TaintedExpression(bit<32>), v28 = TaintedExpression(bit<32>), v29 = TaintedExpression(bit<32>), v30 = TaintedExpression(bit<32>), v31 = TaintedExpression(bit<32>) }]
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = 353;
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen If Statement]: Condition: true && 1 == 0; Result: false
    [P4Testgen MethodCall]: *.StartEgress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*eg_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    _pad0:0;  egress_port:353;  egress_rid:0;  }
    [P4Testgen MethodCall]: *.copy_in("EgressParser");
    [Parser] EgressParser
    [State] start
    [MethodCall]: pkt.extract<egress_intrinsic_metadata_t>(eg_intr_md);
    [ExtractSuccess] eg_intr_md@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2752; | Extract Size: 32 -> eg_intr_md._pad0 = 0x00 | eg_intr_md.egress_port = 0x161 | eg_intr_md.egress_rid = Taint
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.dest_worker = 0;
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.update_checksum = 0;
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2768; | Extract Size: 48 -> hdr.bridged.kind = 0x80 | hdr.bridged.unicast = 0x0 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x3D | hdr.bridged.ingress_port = 0x161 | hdr.bridged.mgid = 0x0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("EgressParser");
    [P4Testgen MethodCall]: *.copy_in("Egress");
    [Control Egress start]
    [If Statement]: hdr.bridged.kind == bridged_kind_t.ANSWER Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 2; Result: false
    [If Statement]: hdr.bridged.kind == bridged_kind_t.UPSTREAM Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 4; Result: false
    [If Statement]: eg_intr_md.egress_port == hdr.bridged.ingress_port Condition: |Ingress.uplink.uplinks_Ingress.uplink.to_parent_arg_port(bit<9>)| == |pktvar_6(bit<16>)|[9:1]; Result: true
    [MethodCall]: drop_0/drop();
    [AssignmentStatement]: eg_dprsr_md.drop_ctl = 1;| Computed: eg_dprsr_md.drop_ctl = 1;
    [P4Testgen MethodCall]: *.copy_out("Egress");
    [P4Testgen MethodCall]: *.copy_in("EgressDeparser");
    [Control EgressDeparser start]
    [If Statement]: eg_md.update_checksum == 1 Condition: 0 == 1; Result: false
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Invalid emit: { dst_addr = TaintedExpression(bit<48>), src_addr = TaintedExpression(bit<48>), ether_type = TaintedExpression(bit<16>) }]
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Invalid emit: { version = TaintedExpression(bit<4>), ihl = TaintedExpression(bit<4>), diffserv = TaintedExpression(bit<8>), total_len = TaintedExpression(bit<16>), identification = TaintedExpression(bit<16>), flags = TaintedExpression(bit<3>), frag_offset = TaintedExpression(bit<13>), ttl = TaintedExpression(bit<8>), protocol = TaintedExpression(bit<8>), hdr_checksum = TaintedExpression(bit<16>), src_addr = TaintedExpression(bit<32>), dst_addr = TaintedExpression(bit<32>) }]
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Invalid emit: { src_port = TaintedExpression(bit<16>), dst_port = TaintedExpression(bit<16>), length = TaintedExpression(bit<16>), checksum = TaintedExpression(bit<16>) }]
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Invalid emit: { version = TaintedExpression(bit<8>), msg_type = TaintedExpression(bit<8>), job_id = TaintedExpression(bit<16>), worker_id = TaintedExpression(bit<8>), flags = TaintedExpression(bit<8>), shadow = TaintedExpression(bit<1>), slot = TaintedExpression(bit<15>), epoch = TaintedExpression(bit<32>), block = TaintedExpression(bit<32>), next_block = TaintedExpression(bit<32>), exp = TaintedExpression(bit<8>), next_exp = TaintedExpression(bit<8>), count = TaintedExpression(bit<16>), session = TaintedExpression(bit<32>), blocks = TaintedExpression(bit<32>), fingerprint = TaintedExpression(bit<32>) }]
    [P4Testgen MethodCall]: *.copy_out("EgressDeparser");
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_sent.sent_block', 0x00000000, 0)
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x00000000), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_compare.first_key', [('Ingress.opening_compare.first_key.key', 0xA2EA4674), ('Ingress.opening_compare.first_key.code', 0x00000000)], 0)
        self.setRegisterValue('Ingress.opening_flags.first_flags', [('Ingress.opening_flags.first_flags.block', 0x00000000), ('Ingress.opening_flags.first_flags.flags', 0x9CEA235D)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)
        # Table Ingress.uplink.uplinks
        self.insertTableEntry(
            'Ingress.uplink.uplinks',
            [
                gc.KeyTuple('hdr.agg.job_id', 0xAA31),
            ],
            'Ingress.uplink.to_parent',
            [
                gc.DataTuple('up_job', 0x0000),
                gc.DataTuple('up_rank', 0x00),
                gc.DataTuple('up_session', 0x00000000),
                gc.DataTuple('port', 0x161),
                gc.DataTuple('mac', 0x000000000000),
                gc.DataTuple('ip', 0x00000000),
                gc.DataTuple('udp_port', 0x0000),
            ]
        )

    def sendPacket(self):
        ig_port = 324
        pkt = b'\x00\x01\x00\x00\xF6\xC2\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xAA\x31\x00\xB4\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x33\xDD\xBB\x68\x39\xB6\xB6\x28\xEA\xDB\xA1\xC5\xD8\x7A\x34\xF9\xDD\xFD\x7D\x60\x39\xE1\xDF\x20\x4F\x4E\x2D\x11\x66\x64\x97\x7A\x60\x42\x92\x07\x3C\xAB\x8D\xB4\xBF\xCF\xAA\x19\xC8\xDE\x49\xEC\x67\xA0\x75\x9E\x2E\x97\xB3\x6F\x70\x36\x15\x7C\x18\x2B\x2E\xD5\xB8\xFE\xAA\x79\x4D\x63\x6F\x4D\xF4\xE4\x05\x11\xC9\xBC\xD2\x8D\xCB\x61\xD2\x84\x87\x98\xD9\xB6\x18\xB5\x58\xA7\xAB\x88\x97\xEA\xD6\x5F\x4A\x9A\x0F\xD9\xBD\x35\x26\xF4\x88\xAF\x8D\x8C\x0B\x3B\x50\xD7\xB1\x2B\x07\xB4\xAE\x14\x9D\x95\x4C\xB0\xA8\xC7\x6D\xCC\xBE\x27\xB7\xA8\xF9\xE3\x08\xAC\xB0\x3A\x5C\xEB\xB2\xD2\x38\x1C\x65\x46\xFA\x2F\x4C\x21\x9B\x06\xD1\x15\xD3\xBB\xE3\xB0\x19\x60\x88\x7C\x36\x7E\x46\xD4\x44\x24\x7C\x14\xE9\x45\xCF\x97\xCE\x32\xEE\x40\x54\x8A\x92\x26\x81\x36\xD0\x0D\x9F\x2E\xBE\x7F\xD2\x38\xAD\x74\x40\x29\xC0\x3A\x7D\xBE\x95\xCA\xE5\x0E\xB4\xDC\xBB\xBB\xB5\xF2\xF3\xF9\xFA\xA8\x5F\x4F\x03\x28\x97\x73\x30\xFF\x3F\xC4\x6C\xC1\xFF\xD7\xF6\x98\x4D\x36\xB4\x99\x84\x09\x3D\x2C\x89\x5A\x81\x42\xDB\x61\x58\x68\xAC\xCE\xC5\x52\xAE\x86\x36\xF2\x12\x6D\x80\x31\x95\x43\x0E\x12\xFD\xC6\x17\xB5\xC7\x9D\xA2\xAA\xDF\x4A\x23\x67\xD2\x3F\xF7\x75\x51\xBF\x50\x6A\xB1\x3F\x36\x2E\x52\x31\xED\xFA\x1E\x02\xC1\xF0\xB3\xDB\x17\x91\x76\x3F\x5D\xE6\x61'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()


class Test9(AbstractTest):
    # Date generated: 2026-12-06-13:49:42.985
    # Current statement coverage: 0.25
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:452;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x1C4 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x38 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x78 | hdr.bridged.ingress_port = 0x10C | hdr.bridged.mgid = 0xEA19
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 0;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0000 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0x00 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Table Branch: Ingress.uplink_sent.sent Choosing default action: NoAction_42/NoAction;]
    [MethodCall]: NoAction_42/NoAction();
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: read_awaiting()]
    [MethodCall]: uplink_wait_read_awaiting_0/read_awaiting();
    [AssignmentStatement]: state = (bit<8>) value.state;| Computed: state = 0;
    [AssignmentStatement]: action read_awaiting() { ig_md.awaiting = read_state.execute(ig_md.cell); }| Computed: ig_md.awaiting = 0;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)| >= 2; Result: false
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Table Branch: Ingress.opening_compare.first Choosing default action: NoAction_7/NoAction;]
    [MethodCall]: NoAction_7/NoAction();
    [MethodCall]: opening_flags_flags/flags.apply();
    [Table Branch: Ingress.opening_flags.flags Choosing default action: NoAction_8/NoAction;]
    [MethodCall]: NoAction_8/NoAction();
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Table Branch: Ingress.harvested.harvest_exit Choosing default action: harvested_to_sender_0/to_sender;]
    [MethodCall]: harvested_to_sender_0/to_sender(0);
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.ANSWER;| Computed: hdr.bridged.kind = 2;
    [AssignmentStatement]: ig_tm_md.ucast_egress_port = hdr.bridged.ingress_port;| Computed: ig_tm_md.ucast_egress_port = 268;
    [AssignmentStatement]: hdr.agg.flags = hdr.agg.flags | mismatch;| Computed: hdr.agg.flags = 0;
    [AssignmentStatement]: ig_md.event = EV_RESULT_UNICAST;| Computed: ig_md.event = 2;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: false
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:2;  unicast:1;  _pad0:0;  opening:0;  _pad1:120;  ingress_port:268;  mgid:59929;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:0;  worker_id:0;  flags:0;  shadow:0;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:0;  session:0;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = 268;
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen If Statement]: Condition: true && 1 == 0; Result: false
    [P4Testgen MethodCall]: *.StartEgress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*eg_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    _pad0:0;  egress_port:268;  egress_rid:0;  }
    [P4Testgen MethodCall]: *.copy_in("EgressParser");
    [Parser] EgressParser
    [State] start
    [MethodCall]: pkt.extract<egress_intrinsic_metadata_t>(eg_intr_md);
    [ExtractSuccess] eg_intr_md@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2752; | Extract Size: 32 -> eg_intr_md._pad0 = 0x00 | eg_intr_md.egress_port = 0x10C | eg_intr_md.egress_rid = Taint
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.dest_worker = 0;
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.update_checksum = 0;
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2768; | Extract Size: 48 -> hdr.bridged.kind = 0x78 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x03 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x3A | hdr.bridged.ingress_port = 0x10C | hdr.bridged.mgid = 0x8000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("EgressParser");
    [P4Testgen MethodCall]: *.copy_in("Egress");
    [Control Egress start]
    [If Statement]: hdr.bridged.kind == bridged_kind_t.ANSWER Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 2; Result: false
    [If Statement]: hdr.bridged.kind == bridged_kind_t.UPSTREAM Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 4; Result: false
    [If Statement]: eg_intr_md.egress_port == hdr.bridged.ingress_port Condition: |pktvar_5(bit<9>)| == |pktvar_6(bit<16>)|[9:1]; Result: true
    [MethodCall]: drop_0/drop();
    [AssignmentStatement]: eg_dprsr_md.drop_ctl = 1;| Computed: eg_dprsr_md.drop_ctl = 1;
    [P4Testgen MethodCall]: *.copy_out("Egress");
    [P4Testgen MethodCall]: *.copy_in("EgressDeparser");
    [Control EgressDeparser start]
    [If Statement]: eg_md.update_checksum == 1 Condition: 0 == 1; Result: false
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Invalid emit: { dst_addr = TaintedExpression(bit<48>), src_addr = TaintedExpression(bit<48>), ether_type = TaintedExpression(bit<16>) }]
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Invalid emit: { version = TaintedExpression(bit<4>), ihl = TaintedExpression(bit<4>), diffserv = TaintedExpression(bit<8>), total_len = TaintedExpression(bit<16>), identification = TaintedExpression(bit<16>), flags = TaintedExpression(bit<3>), frag_offset = TaintedExpression(bit<13>), ttl = TaintedExpression(bit<8>), protocol = TaintedExpression(bit<8>), hdr_checksum = TaintedExpression(bit<16>), src_addr = TaintedExpression(bit<32>), dst_addr = TaintedExpression(bit<32>) }]
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Invalid emit: { src_port = TaintedExpression(bit<16>), dst_port = TaintedExpression(bit<16>), length = TaintedExpression(bit<16>), checksum = TaintedExpression(bit<16>) }]
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Invalid emit: { version = TaintedExpression(bit<8>), msg_type = TaintedExpression(bit<8>), job_id = TaintedExpression(bit<16>), worker_id = TaintedExpression(bit<8>), flags = TaintedExpression(bit<8>), shadow = TaintedExpression(bit<1>), slot = TaintedExpression(bit<15>), epoch = TaintedExpression(bit<32>), block = TaintedExpression(bit<32>), next_block = TaintedExpression(bit<32>), exp = TaintedExpression(bit<8>), next_exp = TaintedExpression(bit<8>), count = TaintedExpression(bit<16>), session = TaintedExpression(bit<32>), blocks = TaintedExpression(bit<32>), fingerprint = TaintedExpression(bit<32>) }]
    [P4Testgen MethodCall]: *.copy_out("EgressDeparser");
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x29BF8D00), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)

    def sendPacket(self):
        ig_port = 452
        pkt = b'\x38\x80\xF1\x0C\xEA\x19\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xE4\x4F\x5C\x3B\x0C\x2B\x6C\x7B\x2A\x37\x81\xED\x39\x4E\x36\x57\x44\xBC\x9A\x5B\x40\xBA\x38\x26\x52\x3F\x03\xE9\x02\x87\x09\x0D\xC8\xE3\xCA\xDE\xFB\xEF\xB7\x9F\x20\x04\x5A\xBA\xDC\xFC\x69\x35\xA4\x92\x83\xCC\x84\x25\x95\x1C\x33\xA1\x89\x4C\x08\xD0\x7C\xC9\x7B\x45\xDE\x7C\xA1\x2D\xFC\xBA\x7E\x03\x19\xB9\x3E\xA0\x56\x9F\xDC\x39\x52\x63\xDF\x92\x1A\xCD\x6B\x54\x4A\xB1\x92\xE4\xBE\xA1\xC5\x05\xDE\xE9\xB0\xE7\x2A\xFB\x97\xB8\x61\x80\x32\x7B\x75\xBE\x30\x4B\x32\xA5\x2A\x52\x50\x0E\xF7\xEB\xDA\x52\x15\x72\x46\x7F\x22\x26\xDC\xA6\x71\xC0\xCD\x11\x78\x0E\x26\xA5\x28\xF0\x70\x10\xFA\x7A\x00\xC6\x58\x59\x84\x22\x8F\x66\x02\x80\x35\xEB\xBA\x63\x5B\xCF\x7D\xDB\xA1\xCA\x6B\xC2\x5F\x3E\x5C\x8D\xE1\x35\x78\x79\xC4\x76\x7E\x44\x27\xF9\x6A\xFD\xB1\x2B\xA5\x42\xEC\x29\x41\x3F\x8A\xFB\xA4\xA2\xE3\xFB\x3C\x09\x9B\x88\x7E\xBC\xE8\x4B\x1D\x07\x73\x07\x0A\x66\x48\xDD\x1D\xDA\x8B\xB5\xE4\x5C\xF8\xA8\x75\x44\x18\x6B\xA6\xB4\x39\xCE\x7B\x90\xE8\x8B\xA9\xA5\x1A\x01\x3E\x50\x66\x3B\x5F\x18\x71\x9D\x37\xAE\xF2\x56\x87\x80\x61\xC0\x6C\x47\xD0\x98\x87\xA0\xE3\xF8\x41\x73\x04\x06\xBB\x95\xD8\x20\xC2\x49\xCD\x27\xCB\x0E\xDA\x19\x1E\x31\x70\x44\x10\x24\xC2\x10\x54\x30\x6B\xFD\x40\x4C\x1C\x7A\x98\xBE\xEF\xEC\x7B\x6B\xA4\xB3\x1A\xCE\x73\xB2\x13\xE5\x80\xC4\xF2\xCB\x95\x84\x49\x40\x47\x3A\xA2\x71\x2F\x05\x9D\xDC\x7A\x19\x74\xB4\xAA\x56\x98\x01\xF4\x24\x2D\x4B\xE2\xB9\xEE\x81\x5B\x23\xE5\x7F\x24\xF0\x27\x71\x4B\x3A\x92\x7F\x68\x4D\x01\x77\x0E\x42\x40\x50\x5E\x1B\x1D\xE2\x50\x0B\xDF\x5F\xE7\xDE\x48\x7A\x01\x7B\xF0\x1D\x4B\x02\x55\x2F\x0E\xBD\xCA\xE2\x80\x02\x6A\xE9\x09\xB1\x5C\xDD\xEF\x25\x0B\x52\xF5\x9F\xDD\x96\xCF\x6F\x5A\x82\xF5\x17\xD5\x68\xEA\x51\x40\xBD\xDC\x2D\x55\xEB\x5C\x7F\xA4\x57\x2D\x88\x8B\x4C\x98\x80\x0F\xDB\xEE\xE6\x59\x28\x37\x22\x0C\x62\xCC\xF8\x08\x0B\xE6\xCF\xD1\x61\x6A\xC7\x39\x5E\xC6\x55\x5C\x09\x86\xDF\xC3\xB4\x38\xBF\x28\xC8\x2F\x55\xF9\x05\xFE\xAC\xA5\x67\x16\xC8\x96\x5C\x9A\x2E\xF8\x80\x55\x93\x23\x69\xBB\x3F\x79\xBF\xC6\x1F\x60\x02\x8B\x2F\x39\x16\xFD\x8B\x42\xB2\xBD\x5F\x98\x5A\x9A\xEF\x3B\x71\x3B\xCC\xED\x94\x74\xA5\x0C\x2A\x93\x92\x9F\x47\xB5\xD9\xCC\x22\x55\x0E\x15\xBE\x5F\x6C\x77\x2F\x72\x7D\x1D\x79\x84\x9D\xC8\x3E\xE3\x03\xBE\x9F\xE3\x53\xBC\xE2\x64\xEE\xA0\xF0\xF3\xB2\x05\xED\x7B\x40\x3E\xA6\x86\x07\xB8\x73\xB3\xEE\x1D\x06\xFA\x17\x2D\x6C\xDA\x40\x22\xA4\xED\x98\x8E\x76\x19\xAC\xBF\xE1\x4E\xD1\x62\x52\x07\x1F\x17\x5B\x53\x1B\x7F\x5B\xD6\x8B\x86\x60\xCB\xEB\x43\x69\x2D\x95\xA5\x66\x54\x69\x84\xB5\x6B\xA6\x29\x96\xC5\x60\x9B\x67\xDB\x5F\xBD\x9E\xE2\x7A\x83\x29\xB2\x97\x64\x03\x07\x6A\x53\xFB\xAE\xF3\x47\x18\x48\x03\x5C\x21\x08\xD7\xA2\xEA\x76\x26\x41\xD8\x01\x0C\xED\x66\x06\xA3\x12\xBB\xCB\xE4\xAB\x0E\xB9\xC3\xB5\xA2\x98\xD4\x8F\x7D\xE9\x38\x79\x58\x11\x13\x2B\xEF\x40\xFB\x95\xCB\x7E\x0B\x62\x74\x5A\x88\xA9\x45\x49\x01\x6B\xAC\x58\xC0\xFE\xEA\x4A\x27\xFE\x40\x7C\xD0\x8B\xFE\xEE\x91\x29\x3F\xAF\x67\x7F\x52\x62\x74\xDC\x46\xD7\x7C\x10\x87\x37\x69\x9A\x3F\x18\x42\xA5\x0C\x38\x4A\xCE\x1D\xF8\xC9\x33\x54\x1D\xDF\xEA\xFE\x03\xC6\x3F\xC7\x6E\x96\x0C\x4E\x12\xCE\xB5\xFB\xF9\x56\x56\x51\x12\x0F\x0B\x0A\x48\xA6\xBD\x55\x23\xC0\x0F\x0C\xD2\xB0\x3C\x69\xFF\x9F\x0A\x36\xBD\x40\x6F\xD0\xF9\x04\x33\x76\xA0\xDD\xC4\xB7\xE5\x63\x1B\x33\xC3\x1E\xCE\x21\xD5\x3D\x66\x60\x6C\xCB\xA6\x76\x99\x88\x95\x50\xE9\xB2\x7D\xFE\xC3\xD7\x60\x8C\x50\x4B\x9D\xB5\xEB\x53\x26\x35\x81\x87\x19\xB5\x46\xDC\xC9\xC0\xC2\x91\xDC\xA1\x13\x21\x99\x85\x1A\xCF\x9C\xCF\xEE\x73\x4F\xC5\xC5\xE9\x25\x20\xA6\x4B\x13\x34\x6B\x6C\x84\x34\xCD\x0D\xFA\xB9\xC8\xC0\xD4\x26\x8C\x8E\xC4\x2D\x89\x06\xDE\x40'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()


class Test10(AbstractTest):
    # Date generated: 2026-12-06-13:49:43.774
    # Current statement coverage: 0.28
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:452;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x1C4 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x03 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x02 | hdr.bridged.ingress_port = 0x085 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 0;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0000 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0x00 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Table Branch: Ingress.uplink_sent.sent Choosing default action: NoAction_42/NoAction;]
    [MethodCall]: NoAction_42/NoAction();
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: read_awaiting()]
    [MethodCall]: uplink_wait_read_awaiting_0/read_awaiting();
    [AssignmentStatement]: state = (bit<8>) value.state;| Computed: state = 1;
    [AssignmentStatement]: action read_awaiting() { ig_md.awaiting = read_state.execute(ig_md.cell); }| Computed: ig_md.awaiting = 1;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)| >= 2; Result: false
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Table Branch: Ingress.opening_compare.first Choosing default action: NoAction_7/NoAction;]
    [MethodCall]: NoAction_7/NoAction();
    [MethodCall]: opening_flags_flags/flags.apply();
    [Table Branch: Ingress.opening_flags.flags Choosing default action: NoAction_8/NoAction;]
    [MethodCall]: NoAction_8/NoAction();
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): |pktvar_0(bit<8>)|, |pktvar_1(bit<1>)|, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: to_sender(8w2) | Arg(s): 2]
    [MethodCall]: harvested_to_sender_0/to_sender(2);
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.ANSWER;| Computed: hdr.bridged.kind = 2;
    [AssignmentStatement]: ig_tm_md.ucast_egress_port = hdr.bridged.ingress_port;| Computed: ig_tm_md.ucast_egress_port = 133;
    [AssignmentStatement]: hdr.agg.flags = hdr.agg.flags | mismatch;| Computed: hdr.agg.flags = 2;
    [AssignmentStatement]: ig_md.event = EV_RESULT_UNICAST;| Computed: ig_md.event = 2;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: false
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:2;  unicast:1;  _pad0:0;  opening:0;  _pad1:2;  ingress_port:133;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:0;  worker_id:0;  flags:2;  shadow:0;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:0;  session:0;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = 133;
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen If Statement]: Condition: true && 1 == 0; Result: false
    [P4Testgen MethodCall]: *.StartEgress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*eg_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    _pad0:0;  egress_port:133;  egress_rid:0;  }
    [P4Testgen MethodCall]: *.copy_in("EgressParser");
    [Parser] EgressParser
    [State] start
    [MethodCall]: pkt.extract<egress_intrinsic_metadata_t>(eg_intr_md);
    [ExtractSuccess] eg_intr_md@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2752; | Extract Size: 32 -> eg_intr_md._pad0 = 0x00 | eg_intr_md.egress_port = 0x085 | eg_intr_md.egress_rid = Taint
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.dest_worker = 0;
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.update_checksum = 0;
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2768; | Extract Size: 48 -> hdr.bridged.kind = 0x02 | hdr.bridged.unicast = 0x0 | hdr.bridged._pad0 = 0x21 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x40 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [State] parse_answer
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2832; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2880; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2784; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@2720 | Condition: |*packetLen_bits(bit<32>)| >= 3008; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0001 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0x00 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("EgressParser");
    [P4Testgen MethodCall]: *.copy_in("Egress");
    [Control Egress start]
    [If Statement]: hdr.bridged.kind == bridged_kind_t.ANSWER Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 2; Result: true
    [If Statement]: hdr.bridged.unicast == 1 Condition: |pktvar_5(bit<9>)|[8:8] == 1; Result: false
    [MethodCall]: to_replica();
    [AssignmentStatement]: eg_md.dest_worker = (worker_id_t) eg_intr_md.egress_rid;| Computed: eg_md.dest_worker = "Taint";
    [MethodCall]: result_dest_0/result_dest.apply();
    [Table Branch: Egress.result_dest Choosing default action: drop;]
    [MethodCall]: drop();
    [AssignmentStatement]: eg_dprsr_md.drop_ctl = 1;| Computed: eg_dprsr_md.drop_ctl = 1;
    [Tainted If Statement]: 
    [MethodCall]: header_only();
    [MethodCall]: hdr.vals_a.setInvalid();
    [MethodCall]: hdr.vals_b.setInvalid();
    [AssignmentStatement]: hdr.agg.count = 0;| Computed: hdr.agg.count = 0;
    [Tainted If Statement]: 
    [MethodCall]: finish_answer();
    [AssignmentStatement]: hdr.agg.worker_id = eg_md.dest_worker;| Computed: hdr.agg.worker_id = "Taint";
    [AssignmentStatement]: hdr.udp.length = udp_length;| Computed: hdr.udp.length = 44;
    [AssignmentStatement]: hdr.udp.checksum = 0; // allowed for IPv4 (docs/protocol.md section 1)| Computed: hdr.udp.checksum = 0;
    [AssignmentStatement]: hdr.ipv4.total_len = ipv4_length;| Computed: hdr.ipv4.total_len = 64;
    [AssignmentStatement]: eg_md.update_checksum = 1;| Computed: eg_md.update_checksum = 1;
    [MethodCall]: finish_answer_1/finish_answer();
    [AssignmentStatement]: hdr.agg.worker_id = eg_md.dest_worker;| Computed: hdr.agg.worker_id = "Taint";
    [AssignmentStatement]: hdr.udp.length = udp_length;| Computed: hdr.udp.length = 300;
    [AssignmentStatement]: hdr.udp.checksum = 0; // allowed for IPv4 (docs/protocol.md section 1)| Computed: hdr.udp.checksum = 0;
    [AssignmentStatement]: hdr.ipv4.total_len = ipv4_length;| Computed: hdr.ipv4.total_len = 320;
    [AssignmentStatement]: eg_md.update_checksum = 1;| Computed: eg_md.update_checksum = 1;
    [P4Testgen MethodCall]: *.copy_out("Egress");
    [P4Testgen MethodCall]: *.copy_in("EgressDeparser");
    [Control EgressDeparser start]
    [Tainted If Statement]: 
    [AssignmentStatement]: hdr.ipv4.hdr_checksum = ipv4_checksum.update({| Computed: hdr.ipv4.hdr_checksum = "Taint";
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:1;  worker_id:0;  flags:0;  shadow:0;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:0;  session:0;  blocks:0;  fingerprint:0;  }
    [P4Testgen MethodCall]: *.copy_out("EgressDeparser");
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x03473D01), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)

    def sendPacket(self):
        ig_port = 452
        pkt = b'\x03\x80\x04\x85\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xF2\xCA\xD4\x23\x3C\xBD\xC2\xAC\x79\x2D\xF1\xDC\x4C\x6D\x16\xE8\x27\x71\xEE\xC3\x95\x6B\x9D\x57\x15\x2F\x15\xDC\x7F\xE7\x40\xB6\x41\x0E\x8B\x12\x00\x07\x8F\x32\x2F\x2B\x9A\x1A\xD7\x4D\xD3\x4D\xD5\x1C\x29\xCD\xD3\xA0\xC2\x1C\xE2\x99\xD8\xDF\x52\x3B\x6A\xE8\x3D\xE7\x39\x8F\x31\x84\x62\x02\xC3\x5C\x4E\xA1\xE3\xCD\x24\x02\x47\xBB\xB4\x74\xB8\xA4\x0A\x55\xC7\x76\xA8\xB1\xA6\xC4\xD3\x8A\x49\x3B\xA5\x4F\xA4\x48\xF1\x50\x23\x57\x00\x5F\x4A\x1A\xFA\x7D\x6B\x51\x2F\x73\x6B\x4C\x92\xA0\x76\x62\xD7\xC1\x86\x83\x4B\xC9\x14\x00\xE1\xDE\xE0\xAD\xE0\xE6\x60\x08\xF0\x16\x1E\x88\x15\xDA\xB0\x51\xE1\xCC\x1E\x6A\x85\x94\x9F\xFB\x2D\xF0\xE3\xFB\x9E\x13\x3A\xF8\x52\x7E\x23\xBD\xF1\x5E\x3D\x7F\x79\x68\xCE\xAE\xE4\x48\xDD\xE8\x7C\xA9\x11\xF5\x4B\xDB\x7E\x45\x69\xF6\xA8\x20\xD3\xBE\x2E\x5B\xC4\x9E\xE0\xDF\x82\x66\x64\x1D\x04\xAF\x74\x99\x4A\x3B\x0C\x35\xAA\x96\x35\x45\xBC\x0F\xFB\xB8\xBF\x6E\x66\x32\xDA\x9C\xC5\xF0\x26\x58\x65\x11\x2C\xC6\x47\x2E\xD3\xD4\xA6\x34\x41\x5F\x44\x8F\x86\x95\x1F\x6C\xAF\xF5\x5E\xB2\x40\xE6\x21\xCD\x88\xA8\x70\xFB\xF2\x8C\x15\xC5\x0C\xB8\x56\x28\x1E\xF3\x3F\x58\x02\x7F\x57\xD3\x43\xC7\x10\x82\x88\xB3\x39\xDC\x54\x19\x58\x2F\x3B\x1A\x83\xE2\xFA\xA9\xB0\xF6\x4A\xC1\xF3\x12\xBB\x8E\x64\x88\x6D\x9C\xF3\x86\x41\x50\x75\x4B\xCF\x2B\xB3\x9D\x46\x05\x83\x40\x6C\xC3\x30\x4A\x38\x15\x24\x9B\xCA\xF1\xD1\x97\x75\x8D\x75\xE0\x19\x79\xE5\xA9\x19\x59\xFF\x93\xB4\xD1\xFD\x61\x51\x90\x92\xF2\x5C\xC8\xA6\xBD\xA4\x01\x7B\x07\xEF\x7B\x67\x73\x7A\xA2\x75\xD4\x27\xD6\x00\x40\x8A\x26\xE2\x2F\x22\xFB\xCE\xAD\x41\xFC\xF6\x72\x8F\xE4\xAC\x1F\xA7\x10\xA3\xCB\xE6\xB1\xD6\xEF\x30\x24\xF3\xBC\x99\x16\xC2\x85\x4B\xB6\xFD\x8F\xD1\x39\x6B\xD4\x06\x12\xFA\x72\xA9\x80\xCC\x10\x58\x1B\x06\xDD\x38\x8C\x30\x69\xF0\xFD\x33\x15\x86\xAE\xE6\x06\xB5\x0C\x11\x41\x15\x5F\x30\xB1\xD6\xD7\xD5\x3D\x90\x61\x75\x85\x37\x15\xAC\xC3\x00\xBA\x77\x0C\x05\x2A\x5A\x48\xAB\x8A\xBB\x27\x78\x7E\x10\x64\x5E\x6D\xDE\xF6\x18\x2C\x2C\xDD\x9D\x99\x30\xDA\xF0\x06\xDA\xF1\x89\xD4\xBF\xDA\xA0\xC5\xC9\x85\xE3\xE3\x1E\xA0\xBF\xFF\x17\x26\xAC\xD1\xDA\xD7\x4D\x5F\x46\x82\x56\xF5\xAB\x29\xE2\x18\xA7\xF6\xD7\x67\xD1\xC5\x37\x17\x6F\x3B\xD6\x03\xD3\xC5\x14\x0D\xC8\x0B\x58\x02\x25\x87\xFF\x5C\x5F\x57\x55\x65\xF7\x1C\xA5\x83\x78\x2C\xE2\x98\xDA\x27\x6B\x32\xBB\xA7\xBB\x45\x91\xD2\x48\x0B\x5A\x21\x57\x8C\xF7\xF0\x52\x34\x90\x22\x71\xA2\x40\xA5\x28\x3D\xB6\x0D\x4D\x9F\x80\xE5\x72\x9A\xF7\xAE\x63\x65\xAC\xD3\x60\xDC\x1B\x51\xBD\x7F\x0C\xA3\x71\x45\x28\x9A\x9C\x51\xBD\x5A\x79\xA3\x51\x9B\x46\x7D\x8E\x86\xD4\x47\x4B\xF6\xCB\x12\x73\xB1\xFE\x51\x5B\x92\x2D\xA1\x55\x0B\x58\xF7\x33\xE0\xB7\x98\x18\x6F\x03\x33\x09\xD1\x16\xC9\xB4\x99\x58\x92\x87\xDE\xBF\x07\x4F\x01\x2F\xE9\xF3\xD6\xFF\xCD\x00\xA4\x36\x61\x2F\x77\xAB\x73\x9E\xA9\x19\xF4\x30\x7A\x39\x5F\xA3\x94\xD6\xF2\xA3\x8A\xB3\x58\x1D\x06\x7C\x99\x04\x6B\x22\x9B\x9F\x56\xF5\xD2\x48\x42\xEC\x77\xDC\xD2\xD4\xEC\xA8\x34\x75\xC7\x18\x6A\x41\xBD\x27\xA5\x84\x4B\xE5\xA6\x71\x11\x28\xD3\xA7\x1D\xAA\x4F\xCD\xFD\x80\xCC\x72\x61\x77\x4B\x94\xAB\x35\x21\xE3\xC0\xF1\xB4\x94\x4F\xE0\xDD\xFC\xD7\x46\x40\x8C\xC5\xC7\xAE\x6D\x97\xDE\xB7\xB1\x5E\x52\xAB\x14\xFC\xAD\x8B\x40\xB1\x80\x1F\x4C\x83\x12\x2D\x3A\x26\x3D\x48\xE5\x20\xAA\x53\x7B\x59\xE8\x88\x3D\x0C\xC2\xCC\x56\x82\xA5\x55\xB2\x43\x80\x8B\xBB\x64\x67\x76\xAB\xAD\x79\x2F\x5D\xAA\xD7\x0B\xA5\xC5\x60\xC9\xCE\xB4\x7A\xA4\xB9\xF5\xA6\x82\xEF\x30\x1E\xFB\x0F\x17\x8E\x38\x87\x91\xDD\x9E\x90\x7C\x20\x04\x2C\x06\x51\x5A\x49\x31\x51\x6D\x72\x87\x67\xEF\x77\xB1\x40\x59\x9A\x08\x51\x73\x4C\x14\x97\x5E\x72\x0A\xE8\xD9\x70\x62\x7B\xC4\x8B\x92\x6C\x6D\xC5\xE1\xC4\xE4\x2B\xBE\xC9\x38\x1A\x76\xAD\xA7\x37\x56\x7A\x44\xD8\xFE\x4D\x85\x64\x18\x36\xCC\xD5\xF4\x43\x3F\x78\x38\x8A\xCE\x9E\xC1\x27\x52\x86\x02\x6D\xE8\x00\xAE\x61\x84\xB4\x52\xA5\x2C\x0D\x42\x9E\xE0\x03\xDF\x9D\xFB\x83\xAF\x8A\x28\x10\x1C\x3E\x03\x6F\x61\xE8\x3A\x80\x58\xEB\xAE\xC5\x4C\x8E\x2A\x44\x6A\xEA\x78\x65\x82\xA9\x2C\x19\xA9\x08\xB4\x39\x4F\xBF\x8D\x01\x56\xAD\xDE\xB2\x78\xFA\xFF\x64\x90\xA3\xF1\x1F\x74\xED\x04\x21\xA6\x67\xCF\x8B\x6D\x57\xA2\x04\xF7\x80\x6C\xE7\x3D\xD7\x51\x62\x17\x9E\x9A\x1D\x2F\x98\x54\xAD\xE2\xA1\x6C\xFC\x46\x6D\x38\x08\x50\x16\x13\x47\x92\xDF\xC0\x52\x52\x18\x5B\xEF\x3E\xB5\x7B\x55\x3E\x4B\xD9\x04\x3E\x8C\x94\x85\x04\xBA\x8F\x05\x6A\xD1\xE8\xAD\x86\x31\x0D\x70\x0C\x26\xD2\x5F\x89\xA3\x26\xB6\xDF\x94\x92\xA5\xC5\x45\x1D\x2C\xDC\x35\x8A\x2C\x43\x62\x31\x8D\x14\x67\xA3\x0B\xCA\xEF\x70\xB8\xC2\x61\x8D\x33\xF0\x7A\x92\xEA\x29\x71\x44\xFE\xFB\x0F\x83\x3D\x03\x93'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()


class Test11(AbstractTest):
    # Date generated: 2026-12-06-13:49:44.035
    # Current statement coverage: 0.29
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:452;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x1C4 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x03 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x02 | hdr.bridged.ingress_port = 0x1C9 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 0;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0000 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0x00 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x563B | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0xDE1B_AF55 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 22075;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Table Branch: Ingress.uplink_sent.sent Choosing default action: NoAction_42/NoAction;]
    [MethodCall]: NoAction_42/NoAction();
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 5691;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 5691;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: read_awaiting()]
    [MethodCall]: uplink_wait_read_awaiting_0/read_awaiting();
    [AssignmentStatement]: state = (bit<8>) value.state;| Computed: state = 1;
    [AssignmentStatement]: action read_awaiting() { ig_md.awaiting = read_state.execute(ig_md.cell); }| Computed: ig_md.awaiting = 1;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)| >= 2; Result: false
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Table Branch: Ingress.opening_compare.first Choosing default action: NoAction_7/NoAction;]
    [MethodCall]: NoAction_7/NoAction();
    [MethodCall]: opening_flags_flags/flags.apply();
    [Table Branch: Ingress.opening_flags.flags Choosing default action: NoAction_8/NoAction;]
    [MethodCall]: NoAction_8/NoAction();
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): |pktvar_0(bit<8>)|, |pktvar_1(bit<1>)|, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: to_sender(8w2) | Arg(s): 2]
    [MethodCall]: harvested_to_sender_0/to_sender(2);
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.ANSWER;| Computed: hdr.bridged.kind = 2;
    [AssignmentStatement]: ig_tm_md.ucast_egress_port = hdr.bridged.ingress_port;| Computed: ig_tm_md.ucast_egress_port = 457;
    [AssignmentStatement]: hdr.agg.flags = hdr.agg.flags | mismatch;| Computed: hdr.agg.flags = 2;
    [AssignmentStatement]: ig_md.event = EV_RESULT_UNICAST;| Computed: ig_md.event = 2;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: false
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:2;  unicast:1;  _pad0:0;  opening:0;  _pad1:2;  ingress_port:457;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:0;  worker_id:0;  flags:2;  shadow:0;  slot:22075;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:0;  session:3726356309;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = 457;
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen If Statement]: Condition: true && 1 == 0; Result: false
    [P4Testgen MethodCall]: *.StartEgress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*eg_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    _pad0:0;  egress_port:457;  egress_rid:0;  }
    [P4Testgen MethodCall]: *.copy_in("EgressParser");
    [Parser] EgressParser
    [State] start
    [MethodCall]: pkt.extract<egress_intrinsic_metadata_t>(eg_intr_md);
    [ExtractSuccess] eg_intr_md@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2752; | Extract Size: 32 -> eg_intr_md._pad0 = 0x00 | eg_intr_md.egress_port = 0x1C9 | eg_intr_md.egress_rid = Taint
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.dest_worker = 0;
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.update_checksum = 0;
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2768; | Extract Size: 48 -> hdr.bridged.kind = 0x02 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x32 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x40 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [State] parse_answer
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2832; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2880; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2784; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@2720 | Condition: |*packetLen_bits(bit<32>)| >= 3008; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0001 | hdr.agg.worker_id = 0x2B | hdr.agg.flags = 0x1D | hdr.agg.shadow = 0x1 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x6F0D | hdr.agg.session = 0xD7AA_8000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("EgressParser");
    [P4Testgen MethodCall]: *.copy_in("Egress");
    [Control Egress start]
    [If Statement]: hdr.bridged.kind == bridged_kind_t.ANSWER Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 2; Result: true
    [If Statement]: hdr.bridged.unicast == 1 Condition: |pktvar_5(bit<9>)|[8:8] == 1; Result: true
    [MethodCall]: to_sender();
    [AssignmentStatement]: eg_md.dest_worker = hdr.agg.worker_id;| Computed: eg_md.dest_worker = 43;
    [MethodCall]: result_dest_0/result_dest.apply();
    [Table Branch: Egress.result_dest Choosing default action: drop;]
    [MethodCall]: drop();
    [AssignmentStatement]: eg_dprsr_md.drop_ctl = 1;| Computed: eg_dprsr_md.drop_ctl = 1;
    [If Statement]: hdr.agg.count != 0 && hdr.agg.flags[2:2] == 1 ... Condition: |pktvar_38(bit<16>)|[0:0] ++ |pktvar_39(bit<32>)|[31:17] != 0 && |pktvar_32(bit<15>)|[8:1][2:2] == 1 && |pktvar_32(bit<15>)|[8:1][7:3] != (bit<5>)((|pktvar_30(bit<8>)| | 2)[0:0] ++ |pktvar_31(bit<1>)| ++ |pktvar_32(bit<15>)|[14:9]); Result: true
    [MethodCall]: header_only();
    [MethodCall]: hdr.vals_a.setInvalid();
    [MethodCall]: hdr.vals_b.setInvalid();
    [AssignmentStatement]: hdr.agg.count = 0;| Computed: hdr.agg.count = 0;
    [If Statement]: hdr.agg.count == 0 Condition: 0 == 0; Result: true
    [MethodCall]: finish_answer();
    [AssignmentStatement]: hdr.agg.worker_id = eg_md.dest_worker;| Computed: hdr.agg.worker_id = 43;
    [AssignmentStatement]: hdr.udp.length = udp_length;| Computed: hdr.udp.length = 44;
    [AssignmentStatement]: hdr.udp.checksum = 0; // allowed for IPv4 (docs/protocol.md section 1)| Computed: hdr.udp.checksum = 0;
    [AssignmentStatement]: hdr.ipv4.total_len = ipv4_length;| Computed: hdr.ipv4.total_len = 64;
    [AssignmentStatement]: eg_md.update_checksum = 1;| Computed: eg_md.update_checksum = 1;
    [P4Testgen MethodCall]: *.copy_out("Egress");
    [P4Testgen MethodCall]: *.copy_in("EgressDeparser");
    [Control EgressDeparser start]
    [If Statement]: eg_md.update_checksum == 1 Condition: 1 == 1; Result: true
    [AssignmentStatement]: hdr.ipv4.hdr_checksum = ipv4_checksum.update({| Computed: hdr.ipv4.hdr_checksum = "Taint";
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:64;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:44;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:1;  worker_id:43;  flags:29;  shadow:1;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:0;  session:3618275328;  blocks:0;  fingerprint:0;  }
    [P4Testgen MethodCall]: *.copy_out("EgressDeparser");
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x0F808101), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 5691)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 5691)

    def sendPacket(self):
        ig_port = 452
        pkt = b'\x03\x80\x05\xC9\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x56\x3B\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xDE\x1B\xAF\x55\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xE3\xEB\x07\xAC\x3E\x49\xCA\x31\x0D\x83\x3E\x2C\xFB\x52\xF1\x27\x80\xD8\xB6\x92\x14\xD4\xC0\x5D\xD1\x3D\xF6\x9F\x7D\xE9\x6D\x80\x09\x0D\x7A\x95\x9E\x56\x50\x33\x52\xFC\x3C\x25\xC4\xB9\xA6\xB1\xFE\x34\x06\xB0\x62\x8B\x78\x1E\x7C\x3F\x13\x5B\xCC\x9B\x9D\x89\x38\x69\xF7\x10\x36\x92\x91\x17\xAE\xB6\xE2\x37\x55\x76\xEE\xA7\x8B\xA1\xE5\x62\x23\xCA\xEA\x91\x50\xA5\x9D\x9E\x1D\x82\x5C\xFC\x7E\xA1\x2D\x17\xBF\x45\x97\x93\x56\xE8\xA5\x53\x4D\x5B\x3C\xBB\x40\x82\x72\x7D\x20\xF5\x8F\x5E\xE0\x96\xB7\xA4\x58\x5B\x3F\xE8\x9A\x69\xF9\xBE\x97\x7A\xEC\x82\xBF\x54\x79\x85\x3B\x8A\xB8\x65\xB7\x4A\xE3\x5D\x9E\xDF\xED\xAB\x3A\x58\xED\x2C\x84\x13\x93\x92\x2D\xCD\x43\xAA\xA7\xC4\x48\x57\xFA\xC6\xED\x00\x45\xDA\x38\x08\xF0\xDB\x7E\x64\x82\x47\x70\x06\xB7\xB1\xD4\x27\x97\x69\x45\xA6\xD1\x39\x11\x29\x80\xC3\xE9\xE2\x72\xAC\x96\x7F\xF9\xB3\xDC\x4F\x65\x71\x40\xE0\x62\x52\xDB\xBF\xCF\x30\xC5\xF3\x28\xE5\x7E\x65\xBC\x94\xE9\x54\x33\xCE\x0C\xCB\xA4\x6F\x41\xB4\x8E\x5A\xE9\xF8\x7A\xA6\x55\xD3\xED\xBF\xCC\xED\xEF\xEA\xA4\x13\xDB\x16\xF5\x4E\x59\xDF\x6E\x19\x1C\xD2\x17\x22\xF4\x4F\xAC\x21\xF0\x43\x71\xD8\xB9\xE6\x72\x5A\x39\xE9\x95\xB5\xDF\xDE\x6E\xA5\x50\x2E\xD3\x6D\x5F\xB5\xD9\xCF\xE1\xF6\x26\x2E\x99\x68\xD5\x3A\x2E\x81\xD8\x7A\x78\xED\x77\x42\x3D\x73\x9B\xA0\x4F\x87\x97\x3D\x5B\xEF\x30\xA7\xAE\xA6\x03\x00\x11\x28\xB5\x1C\xF5\xE3\x9F\x17\x77\xF4\x98\x1F\x05\x73\xFD\xB2\x25\x1C\x8A\x24\x40\x5F\x94\xC7\x9C\x8C\x5B\xCA\xEB\x52\x63\x4C\x65\xAB\x65\x38\xB4\x3B\x5B\x16\x7F\x7A\xE9\xD3\x2F\x13\xC8\x38\xD7\x0F\x0B\xE3\x14\xCB\xEB\x40\xAD\xF6\x67\x8B\xE0\x22\xC1\x2E\x85\x28\xCE\x25\x2E\x3A\x3B\x64\xC1\x9A\xD7\xF3\x46\x5E\xFB\xB5\xF9\x80\x01\xD0\x08\x69\xDB\x6C\xD3\x46\x82\x38\x37\x08\xB2\xD5\xF7\x6E\x01\xF3\x62\x42\x27\x1A\x16\x62\x85\xF6\x21\x1E\x0B\xAC\xCC\x8D\x47\xAC\x53\xDD\x31\x8B\x1E\xE7\xC8\xE7\x87\xF9\x19\x43\x6D\x2D\xDE\x05\x83\xC8\x52\x94\xC0\x4D\x3E\x86\xCA\x43\xB3\x2D\x5C\x91\x88\x35\x9E\x0C\xC4\x77\xE4\x51\x64\x0B\xF1\x70\x98\x92\x11\xBF\x8E\x74\x62\x17\xD0\x19\xAC\xDC\x87\x1F\xE7\x3C\xE1\x2E\xA4\x94\xB9\x99\x30\xB2\x65\x17\xC8\xE0\xC8\x84\xDA\x19\xB3\x14\x90\x7D\x67\x17\xA9\xF8\x5E\xD1\x82\x5C\xF2\x2E\x65\x3D\x1C\x23\xE0\x50\xC9\x8F\x96\x43\x27\xAA\x8A\xDC\x56\xE5\x4E\xDB\x83\x05\x3E\xC7\x05\x45\x1E\x74\x84\x3F\x9B\xEC\x16\x07\xA0\xFB\xC2\xD0\x72\x1C\x54\x21\x90\x0B\x54\x81\x6E\xDC\xF0\xC9\xBD\xA6\xD4\x82\xD8\xB0\xD8\x16\xA3\x98\xF7\xC2\x29\x2C\x3D\xC4\x2E\x75\xF5\x56\xEB\xA6\xB2\x77\xE0\xED\xE5\xBA\xF8\x01\x39\xA0\x31\xBC\xFC\xF2\x7A\xA6\x4A\xB8\x7C\xF2\xD7\x1C\x3D\x1C\xCD\xD4\xA9\x93\xA5\xF9\x57\xC1\x53\x16\x1F\x49\x69\x2A\xFE\x96\x20\x8B\xCA\x3F\x27\x5E\xAE\x79\xDD\xF0'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()


class Test12(AbstractTest):
    # Date generated: 2026-12-06-13:49:44.586
    # Current statement coverage: 0.29
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:452;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x1C4 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x03 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x04 | hdr.bridged.ingress_port = 0x0F9 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 0;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0000 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0x00 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0xA1AF | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Table Branch: Ingress.uplink_sent.sent Choosing default action: NoAction_42/NoAction;]
    [MethodCall]: NoAction_42/NoAction();
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: read_awaiting()]
    [MethodCall]: uplink_wait_read_awaiting_0/read_awaiting();
    [AssignmentStatement]: state = (bit<8>) value.state;| Computed: state = 1;
    [AssignmentStatement]: action read_awaiting() { ig_md.awaiting = read_state.execute(ig_md.cell); }| Computed: ig_md.awaiting = 1;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)| >= 2; Result: false
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Table Branch: Ingress.opening_compare.first Choosing default action: NoAction_7/NoAction;]
    [MethodCall]: NoAction_7/NoAction();
    [MethodCall]: opening_flags_flags/flags.apply();
    [Table Branch: Ingress.opening_flags.flags Choosing default action: NoAction_8/NoAction;]
    [MethodCall]: NoAction_8/NoAction();
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): |pktvar_0(bit<8>)|, |pktvar_1(bit<1>)|, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_30(bit<8>)| | Chosen action: to_sender(8w2) | Arg(s): 2]
    [MethodCall]: harvested_to_sender_0/to_sender(2);
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.ANSWER;| Computed: hdr.bridged.kind = 2;
    [AssignmentStatement]: ig_tm_md.ucast_egress_port = hdr.bridged.ingress_port;| Computed: ig_tm_md.ucast_egress_port = 249;
    [AssignmentStatement]: hdr.agg.flags = hdr.agg.flags | mismatch;| Computed: hdr.agg.flags = 2;
    [AssignmentStatement]: ig_md.event = EV_RESULT_UNICAST;| Computed: ig_md.event = 2;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: false
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:2;  unicast:1;  _pad0:0;  opening:0;  _pad1:4;  ingress_port:249;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:0;  worker_id:0;  flags:2;  shadow:0;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:41391;  session:0;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = 249;
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen If Statement]: Condition: true && 1 == 0; Result: false
    [P4Testgen MethodCall]: *.StartEgress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*eg_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    _pad0:0;  egress_port:249;  egress_rid:0;  }
    [P4Testgen MethodCall]: *.copy_in("EgressParser");
    [Parser] EgressParser
    [State] start
    [MethodCall]: pkt.extract<egress_intrinsic_metadata_t>(eg_intr_md);
    [ExtractSuccess] eg_intr_md@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2752; | Extract Size: 32 -> eg_intr_md._pad0 = 0x00 | eg_intr_md.egress_port = 0x0F9 | eg_intr_md.egress_rid = Taint
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.dest_worker = 0;
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.update_checksum = 0;
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2768; | Extract Size: 48 -> hdr.bridged.kind = 0x04 | hdr.bridged.unicast = 0x0 | hdr.bridged._pad0 = 0x3E | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x40 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [State] parse_answer
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2832; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2880; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2784; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@2720 | Condition: |*packetLen_bits(bit<32>)| >= 3008; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0001 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0x00 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x50 | hdr.agg.next_exp = 0xD7 | hdr.agg.count = 0x8000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("EgressParser");
    [P4Testgen MethodCall]: *.copy_in("Egress");
    [Control Egress start]
    [If Statement]: hdr.bridged.kind == bridged_kind_t.ANSWER Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 2; Result: false
    [If Statement]: hdr.bridged.kind == bridged_kind_t.UPSTREAM Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 4; Result: true
    [If Statement]: hdr.agg.count == 0 Condition: |pktvar_38(bit<16>)|[0:0] ++ |pktvar_39(bit<32>)|[31:17] == 0; Result: false
    [MethodCall]: upstream_lengths_1/upstream_lengths();
    [AssignmentStatement]: hdr.udp.length = udp_length;| Computed: hdr.udp.length = 300;
    [AssignmentStatement]: hdr.udp.checksum = 0;| Computed: hdr.udp.checksum = 0;
    [AssignmentStatement]: hdr.ipv4.total_len = ipv4_length;| Computed: hdr.ipv4.total_len = 320;
    [AssignmentStatement]: eg_md.update_checksum = 1;| Computed: eg_md.update_checksum = 1;
    [P4Testgen MethodCall]: *.copy_out("Egress");
    [P4Testgen MethodCall]: *.copy_in("EgressDeparser");
    [Control EgressDeparser start]
    [If Statement]: eg_md.update_checksum == 1 Condition: 1 == 1; Result: true
    [AssignmentStatement]: hdr.ipv4.hdr_checksum = ipv4_checksum.update({| Computed: hdr.ipv4.hdr_checksum = "Taint";
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:320;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:300;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:1;  worker_id:0;  flags:0;  shadow:0;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:80;  next_exp:215;  count:32768;  session:0;  blocks:0;  fingerprint:0;  }
    [P4Testgen MethodCall]: *.copy_out("EgressDeparser");
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x95832B01), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)

    def sendPacket(self):
        ig_port = 452
        pkt = b'\x03\x80\x08\xF9\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xA1\xAF\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xCA\x16\x2D\xC0\x1C\x2D\xF9\x46\x89\x27\x15\x9F\x50\xBD\xCD\xC3\x1A\x15\xE4\x93\x9C\xC1\x28\x27\x18\x01\xFD\x22\xF0\xDB\x60\x7A\x0E\xA4\xC4\xCD\xC1\x78\x5D\x25\xB8\x1F\x7E\x48\x92\x42\x1A\x5F\xE5\x3C\xC5\xA4\x62\x89\x67\x88\x1C\x78\xFB\x4E\xC5\x6A\x3D\x4E\xB9\xEB\xCD\x9F\x05\x8D\x2C\xA6\x46\x27\xA1\xD4\x56\x0C\x51\x26\xAC\x60\xD6\x71\x89\x38\xDE\xAF\x25\x91\xA5\xFA\x15\xFA\x38\x55\x1D\xBD\xFC\xFB\x53\x56\x9B\xE7\xF2\xEF\x17\xE6\xC2\x51\x5D\x18\x5B\x9D\xDA\x33\xF6\x96\xFF\xC1\x82\xA2\xEE\xC4\x88\x8D\x21\xA2\x4F\x95\xEC\xB9\x63\xA5\x26\xA6\xD8\x85\xFE\xB0\xE8\x05\x93\x32\x52\x51\x50\x59\x15\x07\x63\xB6\xF6\xAE\x54\x69\x1E\x68\x37\x48\x57\x74\x41\xFF\xB5\xA7\xA3\x8D\xFF\x4B\x31\xB5\xA4\x34\x6A\x06\xBD\x7F\xC8\xD9\x35\xD5\xE5\xC9\x0D\x57\x5B\xFC\x6E\x7A\xDD\x1C\xF3\xDC\x8B\xE1\x01\x96\xFE\xF9\x0C\xC7\xA9\xC6\x4B\xCA\xCD\xD4\x95\x3C\xDC\x2B\x30\xA7\x15\x9C\xFC\x4C\x3B\x4D\xEE\x13\x2D\x86\x2F\xC6\x6F\x7F\xC7\x1F\x40\x7F\x1B\xB5\x1F\x7A\x48\xB0\x84\x71\xD5\xDC\x4B\x07\x37\x4D\x6F\xF8\x7A\x8F\x8C\x95\xB0\xC0\x48\xB0\x0C\x03\xF1\x8D\x6E\x9E\x92\x16\x2C\xCC\x33\x35\xAF\x4C\x37\x38\x93\x88\x16\x23\xCB\x82\xFC\x23\xAA\xDB\x62\xD3\xDA\x1B\x1D\xBD\x2A\x18\x73\x73\x8D\xC2\xAD\xC5\xE9\x86\x59\x4E\x4C\xE0\x5B\x92\x9A\x2A\x89\x46\x64\x22\x85\x89\xE7\xE3\x36\x1B\xF3\xBA\x5E\xD3\x60\x47\x30\xAF\xAF\x8B\x1F\x08\xFB\xCC\x24\x29\x00\x49\x0F\xB2\x0A\xE2\xF7\xCB\x39\xDE\x07\xFC\xD3\x50\xBA\xF1\x6A\x20\xCA\xE7\x3C\xD2\xFB\xCB\x09\xAB\xCD\xEA\x48\x6D\xAF\x82'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        eg_port = 249
        exp_pkt = b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x58\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xA1\xAF\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xCA\x16\x2D\xC0\x1C\x2D\xF9\x46\x89\x27\x15\x9F\x50\xBD\xCD\xC3\x1A\x15\xE4\x93\x9C\xC1\x28\x27\x18\x01\xFD\x22\xF0\xDB\x60\x7A\x0E\xA4\xC4\xCD\xC1\x78\x5D\x25\xB8\x1F\x7E\x48\x92\x42\x1A\x5F\xE5\x3C\xC5\xA4\x62\x89\x67\x88\x1C\x78\xFB\x4E\xC5\x6A\x3D\x4E\xB9\xEB\xCD\x9F\x05\x8D\x2C\xA6\x46\x27\xA1\xD4\x56\x0C\x51\x26\xAC\x60\xD6\x71\x89\x38\xDE\xAF\x25\x91\xA5\xFA\x15\xFA\x38\x55\x1D\xBD\xFC\xFB\x53\x56\x9B\xE7\xF2\xEF\x17\xE6\xC2\x51\x5D\x18\x5B\x9D\xDA\x33\xF6\x96\xFF\xC1\x82\xA2\xEE\xC4\x88\x8D\x21\xA2\x4F\x95\xEC\xB9\x63\xA5\x26\xA6\xD8\x85\xFE\xB0\xE8\x05\x93\x32\x52\x51\x50\x59\x15\x07\x63\xB6\xF6\xAE\x54\x69\x1E\x68\x37\x48\x57\x74\x41\xFF\xB5\xA7\xA3\x8D\xFF\x4B\x31\xB5\xA4\x34\x6A\x06\xBD\x7F\xC8\xD9\x35\xD5\xE5\xC9\x0D\x57\x5B\xFC\x6E\x7A\xDD\x1C\xF3\xDC\x8B\xE1\x01\x96\xFE\xF9\x0C\xC7\xA9\xC6\x4B\xCA\xCD\xD4\x95\x3C\xDC\x2B\x30\xA7\x15\x9C\xFC\x4C\x3B\x4D\xEE\x13\x2D\x86\x2F\xC6\x6F\x7F\xC7\x1F\x40\x7F\x1B\xB5\x1F\x7A\x48\xB0\x84\x71\xD5\xDC\x4B\x07\x37\x4D\x6F\xF8\x7A\x8F\x8C\x95\xB0\xC0\x48\xB0\x0C\x03\xF1\x8D\x6E\x9E\x92\x16\x2C\xCC\x33\x35\xAF\x4C\x37\x38\x93\x88\x16\x23\xCB\x82\xFC\x23\xAA\xDB\x62\xD3\xDA\x1B\x1D\xBD\x2A\x18\x73\x73\x8D\xC2\xAD\xC5\xE9\x86\x59\x4E\x4C\xE0\x5B\x92\x9A\x2A\x89\x46\x64\x22\x85\x89\xE7\xE3\x36\x1B\xF3\xBA\x5E\xD3\x60\x47\x30\xAF\xAF\x8B\x1F\x08\xFB\xCC\x24\x29\x00\x49\x0F\xB2\x0A\xE2\xF7\xCB\x39\xDE\x07\xFC\xD3\x50\xBA\xF1\x6A\x20\xCA\xE7\x3C\xD2\xFB\xCB\x09\xAB\xCD\xEA\x48\x6D\xAF\x82'
        exp_pkt = Mask(exp_pkt)
        exp_pkt.set_do_not_care(192, 16)
        verify_packet(self, exp_pkt, eg_port)

    def runTest(self):
        self.runTestImpl()


class Test13(AbstractTest):
    # Date generated: 2026-12-06-13:49:45.412
    # Current statement coverage: 0.3
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:324;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x144 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0xC5 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x02 | hdr.bridged.ingress_port = 0x168 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 0;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0xDB41 | hdr.agg.worker_id = 0x5F | hdr.agg.flags = 0x68 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x3952 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x4D81_9E3B | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 14674;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Table Branch: Ingress.uplink_sent.sent Choosing default action: NoAction_42/NoAction;]
    [MethodCall]: NoAction_42/NoAction();
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 6482;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 6482;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: read_awaiting()]
    [MethodCall]: uplink_wait_read_awaiting_0/read_awaiting();
    [AssignmentStatement]: state = (bit<8>) value.state;| Computed: state = 1;
    [AssignmentStatement]: action read_awaiting() { ig_md.awaiting = read_state.execute(ig_md.cell); }| Computed: ig_md.awaiting = 1;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)| >= 2; Result: false
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Table Branch: Ingress.opening_compare.first Choosing default action: NoAction_7/NoAction;]
    [MethodCall]: NoAction_7/NoAction();
    [MethodCall]: opening_flags_flags/flags.apply();
    [Table Branch: Ingress.opening_flags.flags Choosing default action: NoAction_8/NoAction;]
    [MethodCall]: NoAction_8/NoAction();
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, (bit<8>)|Ingress.uplink_wait.awaiting_state(bit<32>)|;, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Table Branch: Ingress.harvested.harvest_exit Choosing default action: harvested_to_sender_0/to_sender;]
    [MethodCall]: harvested_to_sender_0/to_sender(0);
    [AssignmentStatement]: hdr.bridged.kind = bridged_kind_t.ANSWER;| Computed: hdr.bridged.kind = 2;
    [AssignmentStatement]: ig_tm_md.ucast_egress_port = hdr.bridged.ingress_port;| Computed: ig_tm_md.ucast_egress_port = 360;
    [AssignmentStatement]: hdr.agg.flags = hdr.agg.flags | mismatch;| Computed: hdr.agg.flags = 104;
    [AssignmentStatement]: ig_md.event = EV_RESULT_UNICAST;| Computed: ig_md.event = 2;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: false
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:2;  unicast:1;  _pad0:0;  opening:0;  _pad1:2;  ingress_port:360;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:56129;  worker_id:95;  flags:104;  shadow:0;  slot:14674;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:0;  session:1300340283;  blocks:0;  fingerprint:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = 360;
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen If Statement]: Condition: true && 1 == 0; Result: false
    [P4Testgen MethodCall]: *.StartEgress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*eg_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    _pad0:0;  egress_port:360;  egress_rid:0;  }
    [P4Testgen MethodCall]: *.copy_in("EgressParser");
    [Parser] EgressParser
    [State] start
    [MethodCall]: pkt.extract<egress_intrinsic_metadata_t>(eg_intr_md);
    [ExtractSuccess] eg_intr_md@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2752; | Extract Size: 32 -> eg_intr_md._pad0 = 0x00 | eg_intr_md.egress_port = 0x168 | eg_intr_md.egress_rid = Taint
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.dest_worker = 0;
    [AssignmentStatement]: eg_md = { ... };| Computed: eg_md.update_checksum = 0;
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2768; | Extract Size: 48 -> hdr.bridged.kind = 0x02 | hdr.bridged.unicast = 0x1 | hdr.bridged._pad0 = 0x1A | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x00 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [State] parse_answer
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2832; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2880; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@2720 | Condition: |*packetLen_bits(bit<32>)| >= 2784; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@2720 | Condition: |*packetLen_bits(bit<32>)| >= 3008; | Extract Size: 288 -> hdr.agg.version = 0x6D | hdr.agg.msg_type = 0xA0 | hdr.agg.job_id = 0xAFB4 | hdr.agg.worker_id = 0x1C | hdr.agg.flags = 0xA9 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x26C0 | hdr.agg.session = 0xCF1D_8000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("EgressParser");
    [P4Testgen MethodCall]: *.copy_in("Egress");
    [Control Egress start]
    [If Statement]: hdr.bridged.kind == bridged_kind_t.ANSWER Condition: |pktvar_3(bit<1>)| ++ |pktvar_4(bit<7>)| == 2; Result: true
    [If Statement]: hdr.bridged.unicast == 1 Condition: |pktvar_5(bit<9>)|[8:8] == 1; Result: true
    [MethodCall]: to_sender();
    [AssignmentStatement]: eg_md.dest_worker = hdr.agg.worker_id;| Computed: eg_md.dest_worker = 28;
    [MethodCall]: result_dest_0/result_dest.apply();
    [Table Branch: Egress.result_dest | Key(s): |pktvar_28(bit<16>)|[0:0] ++ |pktvar_29(bit<8>)| ++ |pktvar_30(bit<8>)|[7:1];, |pktvar_30(bit<8>)|[0:0] ++ |pktvar_31(bit<1>)| ++ |pktvar_32(bit<15>)|[14:9];| Chosen action: Egress.set_result_dest]
    [MethodCall]: set_result_dest(|Egress.result_dest_Egress.set_result_dest_arg_mac(bit<48>)|, |Egress.result_dest_Egress.set_result_dest_arg_ip(bit<32>)|, |Egress.result_dest_Egress.set_result_dest_arg_udp_port(bit<16>)|);
    [AssignmentStatement]: hdr.ethernet.dst_addr = mac;| Computed: hdr.ethernet.dst_addr = 0;
    [AssignmentStatement]: hdr.ipv4.dst_addr = ip;| Computed: hdr.ipv4.dst_addr = 0;
    [AssignmentStatement]: hdr.udp.dst_port = udp_port;| Computed: hdr.udp.dst_port = 0;
    [If Statement]: hdr.agg.count != 0 && hdr.agg.flags[2:2] == 1 ... Condition: |pktvar_38(bit<16>)|[0:0] ++ |pktvar_39(bit<32>)|[31:17] != 0 && |pktvar_32(bit<15>)|[8:1][2:2] == 1 && |pktvar_32(bit<15>)|[8:1][7:3] != (bit<5>)(|pktvar_30(bit<8>)|[0:0] ++ |pktvar_31(bit<1>)| ++ |pktvar_32(bit<15>)|[14:9]); Result: false
    [If Statement]: hdr.agg.count == 0 Condition: |pktvar_38(bit<16>)|[0:0] ++ |pktvar_39(bit<32>)|[31:17] == 0; Result: false
    [MethodCall]: finish_answer_1/finish_answer();
    [AssignmentStatement]: hdr.agg.worker_id = eg_md.dest_worker;| Computed: hdr.agg.worker_id = 28;
    [AssignmentStatement]: hdr.udp.length = udp_length;| Computed: hdr.udp.length = 300;
    [AssignmentStatement]: hdr.udp.checksum = 0; // allowed for IPv4 (docs/protocol.md section 1)| Computed: hdr.udp.checksum = 0;
    [AssignmentStatement]: hdr.ipv4.total_len = ipv4_length;| Computed: hdr.ipv4.total_len = 320;
    [AssignmentStatement]: eg_md.update_checksum = 1;| Computed: eg_md.update_checksum = 1;
    [P4Testgen MethodCall]: *.copy_out("Egress");
    [P4Testgen MethodCall]: *.copy_in("EgressDeparser");
    [Control EgressDeparser start]
    [If Statement]: eg_md.update_checksum == 1 Condition: 1 == 1; Result: true
    [AssignmentStatement]: hdr.ipv4.hdr_checksum = ipv4_checksum.update({| Computed: hdr.ipv4.hdr_checksum = "Taint";
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:320;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:300;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:109;  msg_type:160;  job_id:44980;  worker_id:28;  flags:169;  shadow:0;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:9920;  session:3474817024;  blocks:0;  fingerprint:0;  }
    [P4Testgen MethodCall]: *.copy_out("EgressDeparser");
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x0EA8C501), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 6482)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 6482)
        # Table Egress.result_dest
        self.insertTableEntry(
            'Egress.result_dest',
            [
                gc.KeyTuple('hdr.agg.job_id', 0xAFB4),
                gc.KeyTuple('eg_md.dest_worker', 0x1C),
            ],
            'Egress.set_result_dest',
            [
                gc.DataTuple('mac', 0x000000000000),
                gc.DataTuple('ip', 0x00000000),
                gc.DataTuple('udp_port', 0x0000),
            ]
        )

    def sendPacket(self):
        ig_port = 324
        pkt = b'\xC5\x80\x05\x68\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xDB\x41\x5F\x68\x39\x52\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x4D\x81\x9E\x3B\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x84\xBF\x35\x05\x2A\xC9\xAE\xDD\x7E\x4B\x74\x2C\x82\xCF\x75\x8A\x35\xC1\x0E\x72\x9E\x20\x77\xD3\xA4\x97\x4E\xEF\xB2\x68\xA0\x5A\x7A\x3F\xDC\x2E\xB6\x4C\x8C\x82\xBD\xBA\x93\x9E\x53\xD0\x61\x80\x56\x24\xF6\x96\x9A\x7F\x09\x77\x5F\x74\x2E\xB7\x5E\x59\xBF\x7D\x1C\x0B\x3B\x82\x5F\xB6\x47\xF4\xF8\x07\x53\x65\x8F\x24\x41\xAC\x93\xEC\xED\xB9\x43\x09\x2D\xF4\x69\x7B\xC3\x22\x14\x9B\x05\x97\x99\x20\x20\xC1\x8A\x01\x90\x9D\x63\x4B\x43\x5F\xC5\x69\x8C\x72\x7E\x8D\xED\xC9\xF3\xDB\xDC\xAD\x21\xB0\x6F\xB2\x25\x79\x74\x5E\x0A\x4C\x11\x48\x99\xCD\x70\xB3\x29\xA9\xD7\x45\xC1\xC2\x0F\xC8\x55\xFF\x13\xBA\x7B\x4F\xC8\xF5\xF8\x20\xBB\xCF\xFB\x07\xC1\x3F\x50\x3E\xF6\x8D\x2B\x4D\xAE\xBD\xAC\xC9\xBD\xCD\x12\xB2\x9B\xBE\x11\x29\x29\x15\xFA\x09\x76\x43\xF8\x6C\x57\xD2\x0A\x05\xEE\x30\xB6\xAC\x93\x82\xCF\xE9\x75\x9D\x0A\x88\x6E\xF0\x0D\x5C\xD4\xEA\x61\xA1\x24\x7A\x9B\x91\x44\x89\x4A\xBA\x24\x6C\xF4\x2D\x46\x31\xB8\x02\x7D\x43\x5F\xA6\xE4\x35\xF6\x55\x0A\xA2\x0C\xA2\x1E\xC1\xAC\xA2'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        eg_port = 360
        exp_pkt = b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x58\x00\x00\xDB\x41\x5F\x68\x39\x52\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x4D\x81\x9E\x3B\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x84\xBF\x35\x05\x2A\xC9\xAE\xDD\x7E\x4B\x74\x2C\x82\xCF\x75\x8A\x35\xC1\x0E\x72\x9E\x20\x77\xD3\xA4\x97\x4E\xEF\xB2\x68\xA0\x5A\x7A\x3F\xDC\x2E\xB6\x4C\x8C\x82\xBD\xBA\x93\x9E\x53\xD0\x61\x80\x56\x24\xF6\x96\x9A\x7F\x09\x77\x5F\x74\x2E\xB7\x5E\x59\xBF\x7D\x1C\x0B\x3B\x82\x5F\xB6\x47\xF4\xF8\x07\x53\x65\x8F\x24\x41\xAC\x93\xEC\xED\xB9\x43\x09\x2D\xF4\x69\x7B\xC3\x22\x14\x9B\x05\x97\x99\x20\x20\xC1\x8A\x01\x90\x9D\x63\x4B\x43\x5F\xC5\x69\x8C\x72\x7E\x8D\xED\xC9\xF3\xDB\xDC\xAD\x21\xB0\x6F\xB2\x25\x79\x74\x5E\x0A\x4C\x11\x48\x99\xCD\x70\xB3\x29\xA9\xD7\x45\xC1\xC2\x0F\xC8\x55\xFF\x13\xBA\x7B\x4F\xC8\xF5\xF8\x20\xBB\xCF\xFB\x07\xC1\x3F\x50\x3E\xF6\x8D\x2B\x4D\xAE\xBD\xAC\xC9\xBD\xCD\x12\xB2\x9B\xBE\x11\x29\x29\x15\xFA\x09\x76\x43\xF8\x6C\x57\xD2\x0A\x05\xEE\x30\xB6\xAC\x93\x82\xCF\xE9\x75\x9D\x0A\x88\x6E\xF0\x0D\x5C\xD4\xEA\x61\xA1\x24\x7A\x9B\x91\x44\x89\x4A\xBA\x24\x6C\xF4\x2D\x46\x31\xB8\x02\x7D\x43\x5F\xA6\xE4\x35\xF6\x55\x0A\xA2\x0C\xA2\x1E\xC1\xAC\xA2'
        exp_pkt = Mask(exp_pkt)
        exp_pkt.set_do_not_care(192, 16)
        verify_packet(self, exp_pkt, eg_port)

    def runTest(self):
        self.runTestImpl()


class Test14(AbstractTest):
    # Date generated: 2026-12-06-13:49:45.524
    # Current statement coverage: 0.3
    '''
    [P4Testgen MethodCall]: *.StartIngress();
    [P4Testgen MethodCall]: *.prepend_to_prog_header(0);
    [PrependToProgramHeader]: 0
    [P4Testgen MethodCall]: *.prepend_to_prog_header(*ig_intr_md);
    [PrependToProgramHeader]: {$headerValid:true;;    resubmit_flag:0;  _pad1:0;  packet_version:0;  _pad2:0;  ingress_port:452;  ingress_mac_tstamp:0;  }
    [P4Testgen MethodCall]: *.copy_in("IngressParser");
    [Parser] IngressParser
    [State] start
    [MethodCall]: pkt.extract<ingress_intrinsic_metadata_t>(ig_intr_md);
    [ExtractSuccess] ig_intr_md@0 | Condition: |*packetLen_bits(bit<32>)| >= 64; | Extract Size: 64 -> ig_intr_md.resubmit_flag = 0x0 | ig_intr_md._pad1 = 0x0 | ig_intr_md.packet_version = 0x0 | ig_intr_md._pad2 = 0x0 | ig_intr_md.ingress_port = 0x1C4 | ig_intr_md.ingress_mac_tstamp = Taint
    [AssignmentStatement]: ig_md.harvest = 0;| Computed: ig_md.harvest = 0;
    [AssignmentStatement]: ig_md.admitted = 0;| Computed: ig_md.admitted = 0;
    [AssignmentStatement]: ig_md.accepted = 0;| Computed: ig_md.accepted = 0;
    [AssignmentStatement]: ig_md.count_event = 0;| Computed: ig_md.count_event = 0;
    [AssignmentStatement]: ig_md.from_parent = 0;| Computed: ig_md.from_parent = 0;
    [MethodCall]: pkt.advance(64);
    [Advance Condition: |*packetLen_bits(bit<32>)| >= 64;]
    [State] parse_harvest
    [MethodCall]: pkt.extract<bridged_h>(hdr.bridged);
    [ExtractSuccess] hdr.bridged@0 | Condition: |*packetLen_bits(bit<32>)| >= 48; | Extract Size: 48 -> hdr.bridged.kind = 0x04 | hdr.bridged.unicast = 0x0 | hdr.bridged._pad0 = 0x00 | hdr.bridged.opening = 0x0 | hdr.bridged._pad1 = 0x00 | hdr.bridged.ingress_port = 0x000 | hdr.bridged.mgid = 0x0000
    [AssignmentStatement]: ig_md.harvest = 1;| Computed: ig_md.harvest = 1;
    [AssignmentStatement]: ig_md.opening = hdr.bridged.opening;| Computed: ig_md.opening = 0;
    [MethodCall]: pkt.extract<ethernet_h>(hdr.ethernet);
    [ExtractSuccess] hdr.ethernet@48 | Condition: |*packetLen_bits(bit<32>)| >= 160; | Extract Size: 112 -> hdr.ethernet.dst_addr = 0x0000_0000_0000 | hdr.ethernet.src_addr = 0x0000_0000_0000 | hdr.ethernet.ether_type = 0x0000
    [MethodCall]: pkt.extract<ipv4_h>(hdr.ipv4);
    [ExtractSuccess] hdr.ipv4@160 | Condition: |*packetLen_bits(bit<32>)| >= 320; | Extract Size: 160 -> hdr.ipv4.version = 0x0 | hdr.ipv4.ihl = 0x0 | hdr.ipv4.diffserv = 0x00 | hdr.ipv4.total_len = 0x0000 | hdr.ipv4.identification = 0x0000 | hdr.ipv4.flags = 0x0 | hdr.ipv4.frag_offset = 0x0000 | hdr.ipv4.ttl = 0x00 | hdr.ipv4.protocol = 0x00 | hdr.ipv4.hdr_checksum = 0x0000 | hdr.ipv4.src_addr = 0x0000_0000 | hdr.ipv4.dst_addr = 0x0000_0000
    [MethodCall]: pkt.extract<udp_h>(hdr.udp);
    [ExtractSuccess] hdr.udp@320 | Condition: |*packetLen_bits(bit<32>)| >= 384; | Extract Size: 64 -> hdr.udp.src_port = 0x0000 | hdr.udp.dst_port = 0x0000 | hdr.udp.length = 0x0000 | hdr.udp.checksum = 0x0000
    [MethodCall]: pkt.extract<agg_h>(hdr.agg);
    [ExtractSuccess] hdr.agg@384 | Condition: |*packetLen_bits(bit<32>)| >= 672; | Extract Size: 288 -> hdr.agg.version = 0x00 | hdr.agg.msg_type = 0x00 | hdr.agg.job_id = 0x0000 | hdr.agg.worker_id = 0x00 | hdr.agg.flags = 0x26 | hdr.agg.shadow = 0x0 | hdr.agg.slot = 0x0000 | hdr.agg.epoch = 0x0000_0000 | hdr.agg.block = 0x0000_0000 | hdr.agg.next_block = 0x0000_0000 | hdr.agg.exp = 0x00 | hdr.agg.next_exp = 0x00 | hdr.agg.count = 0x0000 | hdr.agg.session = 0x0000_0000 | hdr.agg.blocks = 0x0000_0000 | hdr.agg.fingerprint = 0x0000_0000
    [AssignmentStatement]: ig_md.shadow = hdr.agg.shadow; // the RESULT keeps the round's pool: the pairs' cell| Computed: ig_md.shadow = 0;
    [AssignmentStatement]: ig_md.slot = (bit<16>) hdr.agg.slot;| Computed: ig_md.slot = 0;
    [MethodCall]: pkt.extract<values_h>(hdr.vals_a);
    [ExtractSuccess] hdr.vals_a@672 | Condition: |*packetLen_bits(bit<32>)| >= 1696; | Extract Size: 1024 -> hdr.vals_a.v00 = 0x0000_0000 | hdr.vals_a.v01 = 0x0000_0000 | hdr.vals_a.v02 = 0x0000_0000 | hdr.vals_a.v03 = 0x0000_0000 | hdr.vals_a.v04 = 0x0000_0000 | hdr.vals_a.v05 = 0x0000_0000 | hdr.vals_a.v06 = 0x0000_0000 | hdr.vals_a.v07 = 0x0000_0000 | hdr.vals_a.v08 = 0x0000_0000 | hdr.vals_a.v09 = 0x0000_0000 | hdr.vals_a.v10 = 0x0000_0000 | hdr.vals_a.v11 = 0x0000_0000 | hdr.vals_a.v12 = 0x0000_0000 | hdr.vals_a.v13 = 0x0000_0000 | hdr.vals_a.v14 = 0x0000_0000 | hdr.vals_a.v15 = 0x0000_0000 | hdr.vals_a.v16 = 0x0000_0000 | hdr.vals_a.v17 = 0x0000_0000 | hdr.vals_a.v18 = 0x0000_0000 | hdr.vals_a.v19 = 0x0000_0000 | hdr.vals_a.v20 = 0x0000_0000 | hdr.vals_a.v21 = 0x0000_0000 | hdr.vals_a.v22 = 0x0000_0000 | hdr.vals_a.v23 = 0x0000_0000 | hdr.vals_a.v24 = 0x0000_0000 | hdr.vals_a.v25 = 0x0000_0000 | hdr.vals_a.v26 = 0x0000_0000 | hdr.vals_a.v27 = 0x0000_0000 | hdr.vals_a.v28 = 0x0000_0000 | hdr.vals_a.v29 = 0x0000_0000 | hdr.vals_a.v30 = 0x0000_0000 | hdr.vals_a.v31 = 0x0000_0000
    [MethodCall]: pkt.extract<values_h>(hdr.vals_b);
    [ExtractSuccess] hdr.vals_b@1696 | Condition: |*packetLen_bits(bit<32>)| >= 2720; | Extract Size: 1024 -> hdr.vals_b.v00 = 0x0000_0000 | hdr.vals_b.v01 = 0x0000_0000 | hdr.vals_b.v02 = 0x0000_0000 | hdr.vals_b.v03 = 0x0000_0000 | hdr.vals_b.v04 = 0x0000_0000 | hdr.vals_b.v05 = 0x0000_0000 | hdr.vals_b.v06 = 0x0000_0000 | hdr.vals_b.v07 = 0x0000_0000 | hdr.vals_b.v08 = 0x0000_0000 | hdr.vals_b.v09 = 0x0000_0000 | hdr.vals_b.v10 = 0x0000_0000 | hdr.vals_b.v11 = 0x0000_0000 | hdr.vals_b.v12 = 0x0000_0000 | hdr.vals_b.v13 = 0x0000_0000 | hdr.vals_b.v14 = 0x0000_0000 | hdr.vals_b.v15 = 0x0000_0000 | hdr.vals_b.v16 = 0x0000_0000 | hdr.vals_b.v17 = 0x0000_0000 | hdr.vals_b.v18 = 0x0000_0000 | hdr.vals_b.v19 = 0x0000_0000 | hdr.vals_b.v20 = 0x0000_0000 | hdr.vals_b.v21 = 0x0000_0000 | hdr.vals_b.v22 = 0x0000_0000 | hdr.vals_b.v23 = 0x0000_0000 | hdr.vals_b.v24 = 0x0000_0000 | hdr.vals_b.v25 = 0x0000_0000 | hdr.vals_b.v26 = 0x0000_0000 | hdr.vals_b.v27 = 0x0000_0000 | hdr.vals_b.v28 = 0x0000_0000 | hdr.vals_b.v29 = 0x0000_0000 | hdr.vals_b.v30 = 0x0000_0000 | hdr.vals_b.v31 = 0x0000_0000
    [State] accept
    [P4Testgen MethodCall]: *.copy_out("IngressParser");
    [P4Testgen MethodCall]: *.copy_in("Ingress");
    [Control Ingress start]
    [P4Testgen If Statement]: Condition: true; Result: true
    [MethodCall]: uplink_sent_sent/sent.apply();
    [Constant Table Branch: Ingress.uplink_sent.sent | Key(s): 1, |pktvar_1(bit<1>)|, |pktvar_27(bit<8>)| | Chosen action: record()]
    [MethodCall]: uplink_sent_record_0/record();
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: false
    [AssignmentStatement]: value = hdr.agg.block + 1;| Computed: value = 1;
    [AssignmentStatement]: state = AWAIT_DATA;| Computed: state = 2;
    [AssignmentStatement]: action record() { ig_md.awaiting = record_block.execute(ig_md.shadow ++ ig_md.slot[13 - 1:0]); }| Computed: ig_md.awaiting = 2;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: locate_cell();
    [AssignmentStatement]: ig_md.slot_index = ig_md.slot[13 - 1:0];| Computed: ig_md.slot_index = 0;
    [AssignmentStatement]: ig_md.cell = ig_md.shadow ++ ig_md.slot[13 - 1:0];| Computed: ig_md.cell = 0;
    [If Statement]: ig_md.harvest == 0 && !hdr.agg.isValid() Condition: 1 == 0 && !true; Result: false
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [MethodCall]: uplink_wait_check/check.apply();
    [Constant Table Branch: Ingress.uplink_wait.check | Key(s): 1, |pktvar_1(bit<1>)|, 0, 0, |pktvar_27(bit<8>)|, |pktvar_30(bit<8>)|, 0, 0, (bit<16>)|pktvar_32(bit<15>)|;, 0, 0, 0, 0, 0 | Chosen action: record_round()]
    [MethodCall]: uplink_wait_record_round_0/record_round();
    [MethodCall]: uplink_wait_await_answer/await_answer.execute(ig_md.cell);
    [AssignmentStatement]: value.state = (bit<32>) ig_md.awaiting; // AWAIT_DATA or AWAIT_OPENING (sent_block)| Computed: value.state = 2;
    [AssignmentStatement]: value.fingerprint = hdr.agg.fingerprint;| Computed: value.fingerprint = 0;
    [If Statement]: ig_md.harvest == 0 Condition: 1 == 0; Result: false
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [If Statement]: hdr.bridged.unicast == 0 || ig_md.awaiting >= AWAIT_DATA Condition: |pktvar_1(bit<1>)| == 0 || 2 >= 2; Result: true
    [MethodCall]: uplink_uplinks/uplinks.apply();
    [Table Branch: Ingress.uplink.uplinks Choosing default action: NoAction_44/NoAction;]
    [MethodCall]: NoAction_44/NoAction();
    [MethodCall]: opening_compare_candidate/candidate.apply();
    [Table Branch: Ingress.opening_compare.candidate Choosing default action: NoAction_6/NoAction;]
    [MethodCall]: NoAction_6/NoAction();
    [MethodCall]: opening_compare_first/first.apply();
    [Table Branch: Ingress.opening_compare.first Choosing default action: NoAction_7/NoAction;]
    [MethodCall]: NoAction_7/NoAction();
    [MethodCall]: opening_flags_flags/flags.apply();
    [Table Branch: Ingress.opening_flags.flags Choosing default action: NoAction_8/NoAction;]
    [MethodCall]: NoAction_8/NoAction();
    [MethodCall]: value_op_value_op/value_op.apply();
    [Constant Table Branch: Ingress.value_op.value_op | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, 2, |pktvar_38(bit<16>)| | Chosen action: set_value_op(3w4) | Arg(s): 4]
    [MethodCall]: value_op_set_value_op_0/set_value_op(4);
    [AssignmentStatement]: ig_md.value_op = op;| Computed: ig_md.value_op = 4;
    [MethodCall]: values_value_31_pair_by_case/pair_by_case.apply();
    [Constant Table Branch: Ingress.values.value_31.pair_by_case | Key(s): 1, 0, 0, |pktvar_3(bit<1>)|, |pktvar_35(bit<32>)|, 0, 0, 2, |pktvar_38(bit<16>)| | Chosen action: harvest()]
    [MethodCall]: values_value_31_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v31 = 0;
    [MethodCall]: values_value_00_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_00.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_00_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v00 = 0;
    [MethodCall]: values_value_01_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_01.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_01_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v01 = 0;
    [MethodCall]: values_value_02_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_02.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_02_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v02 = 0;
    [MethodCall]: values_value_03_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_03.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_03_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v03 = 0;
    [MethodCall]: values_value_04_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_04.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_04_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v04 = 0;
    [MethodCall]: values_value_05_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_05.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_05_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v05 = 0;
    [MethodCall]: values_value_06_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_06.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_06_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v06 = 0;
    [MethodCall]: values_value_07_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_07.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_07_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v07 = 0;
    [MethodCall]: values_value_08_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_08.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_08_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v08 = 0;
    [MethodCall]: values_value_09_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_09.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_09_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v09 = 0;
    [MethodCall]: values_value_10_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_10.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_10_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v10 = 0;
    [MethodCall]: values_value_11_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_11.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_11_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v11 = 0;
    [MethodCall]: values_value_12_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_12.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_12_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v12 = 0;
    [MethodCall]: values_value_13_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_13.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_13_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v13 = 0;
    [MethodCall]: values_value_14_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_14.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_14_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v14 = 0;
    [MethodCall]: values_value_15_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_15.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_15_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v15 = 0;
    [MethodCall]: values_value_16_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_16.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_16_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v16 = 0;
    [MethodCall]: values_value_17_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_17.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_17_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v17 = 0;
    [MethodCall]: values_value_18_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_18.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_18_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v18 = 0;
    [MethodCall]: values_value_19_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_19.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_19_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v19 = 0;
    [MethodCall]: values_value_20_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_20.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_20_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v20 = 0;
    [MethodCall]: values_value_21_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_21.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_21_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v21 = 0;
    [MethodCall]: values_value_22_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_22.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_22_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v22 = 0;
    [MethodCall]: values_value_23_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_23.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_23_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v23 = 0;
    [MethodCall]: values_value_24_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_24.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_24_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v24 = 0;
    [MethodCall]: values_value_25_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_25.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_25_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v25 = 0;
    [MethodCall]: values_value_26_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_26.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_26_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v26 = 0;
    [MethodCall]: values_value_27_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_27.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_27_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v27 = 0;
    [MethodCall]: values_value_28_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_28.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_28_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v28 = 0;
    [MethodCall]: values_value_29_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_29.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_29_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v29 = 0;
    [MethodCall]: values_value_30_pair/pair.apply();
    [Constant Table Branch: Ingress.values.value_30.pair | Key(s): 4 | Chosen action: harvest()]
    [MethodCall]: values_value_30_harvest_0/harvest();
    [AssignmentStatement]: first_sum = value.first;| Computed: first_sum = 0;
    [AssignmentStatement]: action harvest() { first = read_first.execute(ig_md.cell); }| Computed: hdr.vals_a.v30 = 0;
    [If Statement]: ig_md.harvest == 1 Condition: 1 == 1; Result: true
    [MethodCall]: harvested_harvest_exit/harvest_exit.apply();
    [Constant Table Branch: Ingress.harvested.harvest_exit | Key(s): |pktvar_0(bit<8>)|, |pktvar_1(bit<1>)|, 2, |pktvar_30(bit<8>)| | Chosen action: poison()]
    [MethodCall]: harvested_poison_0/poison();
    [AssignmentStatement]: ig_md.event = EV_UPSTREAM;| Computed: ig_md.event = 12;
    [AssignmentStatement]: ig_md.count_event = 1;| Computed: ig_md.count_event = 1;
    [AssignmentStatement]: hdr.agg.fingerprint = hdr.agg.fingerprint ^ POISON;| Computed: hdr.agg.fingerprint = 4294967295;
    [AssignmentStatement]: hdr.agg.flags = hdr.agg.flags & ~FLAG_MISMATCH;| Computed: hdr.agg.flags = 36;
    [If Statement]: ig_md.opening == 1 Condition: |pktvar_3(bit<1>)| == 1; Result: false
    [If Statement]: ig_md.count_event == 1 Condition: 1 == 1; Result: true
    [MethodCall]: count_event_1/count_event();
    [MethodCall]: events_0/events.count(ig_md.event);
    [If Statement]: ig_md.admitted == 1 Condition: 0 == 1; Result: false
    [P4Testgen MethodCall]: *.copy_out("Ingress");
    [P4Testgen MethodCall]: *.copy_in("IngressDeparser");
    [Control IngressDeparser start]
    [MethodCall]: pkt.emit<bridged_h>(hdr.bridged);
    [Emit]: {$headerValid:true;;    kind:4;  unicast:0;  _pad0:0;  opening:0;  _pad1:0;  ingress_port:0;  mgid:0;  }
    [MethodCall]: pkt.emit<ethernet_h>(hdr.ethernet);
    [Emit]: {$headerValid:true;;    dst_addr:0;  src_addr:0;  ether_type:0;  }
    [MethodCall]: pkt.emit<ipv4_h>(hdr.ipv4);
    [Emit]: {$headerValid:true;;    version:0;  ihl:0;  diffserv:0;  total_len:0;  identification:0;  flags:0;  frag_offset:0;  ttl:0;  protocol:0;  hdr_checksum:0;  src_addr:0;  dst_addr:0;  }
    [MethodCall]: pkt.emit<udp_h>(hdr.udp);
    [Emit]: {$headerValid:true;;    src_port:0;  dst_port:0;  length:0;  checksum:0;  }
    [MethodCall]: pkt.emit<agg_h>(hdr.agg);
    [Emit]: {$headerValid:true;;    version:0;  msg_type:0;  job_id:0;  worker_id:0;  flags:36;  shadow:0;  slot:0;  epoch:0;  block:0;  next_block:0;  exp:0;  next_exp:0;  count:0;  session:0;  blocks:0;  fingerprint:4294967295;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_a);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [MethodCall]: pkt.emit<values_h>(hdr.vals_b);
    [Emit]: {$headerValid:true;;    v00:0;  v01:0;  v02:0;  v03:0;  v04:0;  v05:0;  v06:0;  v07:0;  v08:0;  v09:0;  v10:0;  v11:0;  v12:0;  v13:0;  v14:0;  v15:0;  v16:0;  v17:0;  v18:0;  v19:0;  v20:0;  v21:0;  v22:0;  v23:0;  v24:0;  v25:0;  v26:0;  v27:0;  v28:0;  v29:0;  v30:0;  v31:0;  }
    [P4Testgen MethodCall]: *.copy_out("IngressDeparser");
    [P4Testgen AssignmentStatement]: *eg_intr_md.egress_port = "Taint";
    [P4Testgen MethodCall]: *.prepend_emit_buffer();
    [Prepending the emit buffer to the program packet]
    [P4Testgen MethodCall]: *.check_tofino_drop();
    [P4Testgen MethodCall]: *.tofino_drop();
    [Packet marked dropped.]
    '''

    def setupCtrlPlane(self):
        self.setRegisterValue('Ingress.uplink_sent.sent_block', 0x00000000, 0)
        self.setRegisterValue('Ingress.uplink_wait.awaiting', [('Ingress.uplink_wait.awaiting.state', 0x00000000), ('Ingress.uplink_wait.awaiting.fingerprint', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_31.sums', [('Ingress.values.value_31.sums.first', 0x00000000), ('Ingress.values.value_31.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_00.sums', [('Ingress.values.value_00.sums.first', 0x00000000), ('Ingress.values.value_00.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_01.sums', [('Ingress.values.value_01.sums.first', 0x00000000), ('Ingress.values.value_01.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_02.sums', [('Ingress.values.value_02.sums.first', 0x00000000), ('Ingress.values.value_02.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_03.sums', [('Ingress.values.value_03.sums.first', 0x00000000), ('Ingress.values.value_03.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_04.sums', [('Ingress.values.value_04.sums.first', 0x00000000), ('Ingress.values.value_04.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_05.sums', [('Ingress.values.value_05.sums.first', 0x00000000), ('Ingress.values.value_05.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_06.sums', [('Ingress.values.value_06.sums.first', 0x00000000), ('Ingress.values.value_06.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_07.sums', [('Ingress.values.value_07.sums.first', 0x00000000), ('Ingress.values.value_07.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_08.sums', [('Ingress.values.value_08.sums.first', 0x00000000), ('Ingress.values.value_08.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_09.sums', [('Ingress.values.value_09.sums.first', 0x00000000), ('Ingress.values.value_09.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_10.sums', [('Ingress.values.value_10.sums.first', 0x00000000), ('Ingress.values.value_10.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_11.sums', [('Ingress.values.value_11.sums.first', 0x00000000), ('Ingress.values.value_11.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_12.sums', [('Ingress.values.value_12.sums.first', 0x00000000), ('Ingress.values.value_12.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_13.sums', [('Ingress.values.value_13.sums.first', 0x00000000), ('Ingress.values.value_13.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_14.sums', [('Ingress.values.value_14.sums.first', 0x00000000), ('Ingress.values.value_14.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_15.sums', [('Ingress.values.value_15.sums.first', 0x00000000), ('Ingress.values.value_15.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_16.sums', [('Ingress.values.value_16.sums.first', 0x00000000), ('Ingress.values.value_16.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_17.sums', [('Ingress.values.value_17.sums.first', 0x00000000), ('Ingress.values.value_17.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_18.sums', [('Ingress.values.value_18.sums.first', 0x00000000), ('Ingress.values.value_18.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_19.sums', [('Ingress.values.value_19.sums.first', 0x00000000), ('Ingress.values.value_19.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_20.sums', [('Ingress.values.value_20.sums.first', 0x00000000), ('Ingress.values.value_20.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_21.sums', [('Ingress.values.value_21.sums.first', 0x00000000), ('Ingress.values.value_21.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_22.sums', [('Ingress.values.value_22.sums.first', 0x00000000), ('Ingress.values.value_22.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_23.sums', [('Ingress.values.value_23.sums.first', 0x00000000), ('Ingress.values.value_23.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_24.sums', [('Ingress.values.value_24.sums.first', 0x00000000), ('Ingress.values.value_24.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_25.sums', [('Ingress.values.value_25.sums.first', 0x00000000), ('Ingress.values.value_25.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_26.sums', [('Ingress.values.value_26.sums.first', 0x00000000), ('Ingress.values.value_26.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_27.sums', [('Ingress.values.value_27.sums.first', 0x00000000), ('Ingress.values.value_27.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_28.sums', [('Ingress.values.value_28.sums.first', 0x00000000), ('Ingress.values.value_28.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_29.sums', [('Ingress.values.value_29.sums.first', 0x00000000), ('Ingress.values.value_29.sums.second', 0x00000000)], 0)
        self.setRegisterValue('Ingress.values.value_30.sums', [('Ingress.values.value_30.sums.first', 0x00000000), ('Ingress.values.value_30.sums.second', 0x00000000)], 0)

    def sendPacket(self):
        ig_port = 452
        pkt = b'\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x26\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x8B\x03\x66\xAB\x9E\x4B\x60\xA8\x20\x56\xB5\xE0\xBF\x2E\x58\x65\x34\x89\xD3\x8A\x98\x61\xD4\x7A\xFF\x17\x26\x98\xD9\x8C\x4A\x07\x87\x80\x68\x66\x6E\x24\x47\x1C\x70\xF4\x34\x0D\xC0\xCF\x4D\xEC\x82\xEE\x56\x0D\xB1\x64\x17\x9C\x01\x49\xA9\x4A\x6F\x54\x31\x6A\x1F\xDA\xB5\xBD\xE1\x92\x4C\x3D\x04\xDD\x9E\x56\x0A\x9B\xE7\x37\xFB\xBE\xEC\x1D\x36\xF1\xC6\xD2\x0C\x5E\x94\xC5\x7D\x72\x74\x45\x9D\x99\x6A\x50\x8B\x0F\xBF\xA4\xFB\x87\xBB\x6D\x3C\x42\xD4\xF6\x5F\x7C\xF8\x4D\xE4\x45\xC3\xFF\xED\x7D\x99\xCF\xD4\x43\x7A\x92\x7C\x57\xE5\x2A\xC5\x54\x9B\x7E\x74\x3D\xA5\xC7\xF8\xC0\x20\x15\xBB\x96\x88\xE6\xAF\x68\x67\xE0\xCE\xA6\x8A\xE4\x39\xB0\xD1\x6F\xC3\x14\x5D\xF0\x51\xDD\x12\xF2\xC8\x1B\xE2\x26\xBD\xF5\x84\x9F\x6D\x42\xC2\x14\xF5\x1E\x19\x72\xAA\xB8\xB6\x18\x7C\x3B\x87\x1E\xFE\x72\xE5\x15\xEF\x0F\x73\x5B\xB7\x9A\xB9\x9A\x3F\x6E\x87\x0F\x84\xA0\x6A\x3D\xE6\xB7\xB1\xFA\xEB\x2D\x47\x12\xA0\xEE\x2C\xA8\x89\x30\xFA\xA7\xF7\xEC\x83\x31\xA0\xA0\xF6\x50\xEF\xD6\x4D\x60\x2C\x3A\xDA\x75\x1E\x8C\xBF\x68\x41\x42\x5B\xD6\x9A\xA0\xC7\x1B\xD6\x86\xC7\x36\xD7\x6F\x93\xC2\x4A\x31\x71\x62\xEE\x98\xBD\xA2\x8A\x34\x86\xBC\xC8\xA8\x78\x81\x27\x22\xB8\x67\x09\x47\x90\xF3\xE7\xCD\x1B\x58\x88\x6B\xBF\x8D\xDB\x86\x25\x08\xB2\x12\xA1\x2B\xBD\xEA\xBF\x6A\x2F\x4B\xB1\xEE\x9B\x69\x36\xCF\x62\x16\x98\x88\x22\xA5\xDE\xB7\x82\x42\xB3\x6D\xB7\x38\x3E\x10\xCB\x0F\x26\x80\xC0\x45\xA2\x10\xA1\x88\x16\x3D\x10\xA5\xB1\x7D\x6E\x09\x58\x9D\x00\x33\x54\x04\xDD\xA5\x0B\x59\x47\xCF\xF6\x8A\x94\xED\x85\x7D\x0B\x27\xE3\x81\xD8\xB9\x05\x68\x43\x2F\xDD\x99\x91\x18\x66\x1B\x44\x02\x5A\x61\x12\x2D\xBF\x3A\x8D\xB7\x5D\x09\xCE\x85\xCA\x0D\xC8\x6C\x0F\xB8\xB4\xE7\xC2\xA8\x4D\x98\x64\xD5\x32\x92\x79\x76\xC7\x08\x53\x02\x63\xF8\x17\x77\xA2\xF1\x6C\xBC\x62\x5B\xEE\xB2\x9D\xA6\xC8\x7B\x4D\xD2\x37\x43\x1F\x6B\xE6\x59\x7E\x9A\x8B\x1A\xA3\xA2\xA8\x78\x20\x40\x9A\xA5\x97\x4C\xC5\x94\xD5\xC9\x58\xD6\x15\x9A\xE7\x00\x0E\xEF\xB4\x14\x4E\xE8\x53\xB2\x0D\x7B\xC0\xB2\xC1\x06\xD6\x15\x9B\xA7\xCD\x51\x1D\x5C\xE2\x33\x17\x50\x18\xF6\x23\x4E\xE2\x7E\x1E\x6C\xA5\xED\x13\x0B\x4B\x39\x65\xD2\x9A\x6E\xD8\x08\x37\x54\xD1\x01\xB9\x2D\xB5\x74\xE0\x05\x0E\x06\xCB\xF2\x13\xA3\x12\x59\x31\x4E\xB4\x89\x68\x0F\xA6\x5D\x2F\xF6\x28\x6B\x44\xD6\x2B\xF1\xAA\xED\x3D\x80\x93\xF3\x8E\x0C\xBE\xD3\x0A\xED\xA4\x7A\x52\xA6\x86\x6A\x9D\xD2\xCD\x0F\x99\xCE\x8D\xEA\x6D\x7E\x15\x6A\x90\x52\xCF\x35\x40\x5A\xA1\x61\x98\x6F\xC8\x57\x75\xA9\xE2\x9F\x07\xE2\x6E\x53\x3C\xCF\x64\x1D\x6C\x17\x1C\x16\x32\xA1\xB5\x06\xA1\x01\x31\x25\x48\x22\x01\xE0\xD2\x6D\xD9\x19\xED\x1F\x86\x6D\xB6\x98\x33\x56\x2C\x1B\x9A\x5E\xB2\x85\x4D\x9E\x9B\xEF\xC5\xAD\xDA\x37\x1A\x19\x41\xAE\xDE\xAE\x61\x8C\x1F\xD8\x9F\xBC\x86\xA1\xC8\xE5\xB3\x17\x1E\x21\x35\xA9\xB6\xB4\x43\x5D\xFC\x18\x34\x7A\xB2\x57\xED\xF5\x10\xCB\x6B\x2B\x3D\x32\x21\x3F\x30\x7E\xAE\x4E\x33\x2D\x29\x7D\x8E\xFB\xB9\x0B\x1D\x64\x39\xAF\xF2\x0C\xF4\x71\xFB\x23\xEA\x99\x59\xCF\x0D\x8A\x62\x10\x87\x71\x06\x96\xF2\x71\x49\xA9\x02\x90\x76\x64\xCD\x46\xA5\x98\x6F\xA7\xDD\x01\x19\x6F\x67\x82\xF3\x24\x7D\xEE\xE1\xFE\x7A\xCA\xDF\x47\x56\xE2\xF8\xA7\x1A\x43\x1C\x57\x00\xAC\xEA\x36\xB9\x2B\x71\x6A\x45\x59\xBB\xD2\xA6\xD8\x74\xE0\x26\x10\xA3\x3F\xE6\xE9\x1E\x29\x1F\x20\xD8\x6E\x7B\x4D\x89\xFB\xB7\x65\x25\x59\x4A\x2E\x4F\x3A\xA9\x8F\x98\x9F\x87\x2F\x68\x62\x9C\x88\x20\x84\x13\xD5\x91\xC4\xCB\xBF\xAC\xAE\x43\xDE\x3A\x9B\xBB\x15\x6B\x5A\xAB\xEF\xB0\xF6\x29\x49\xD8\xFC\x5E\xA7\x44\x2B\x72\xD5\xC6\x0D\xB2\x0D\x0B\xE4\x2C\x7E\xD7\x4D\xF7\xBC\xFB\xD7\x63\xA2\x2D\x2B\x5C\xF8\x39\x53\x55\x31\x46\xF4\x0E\x6C\xE9\xF3\x4B\xB3\x38\x25\x87\x04\xD5\xA5\x82\x8F\xB1\xCC\xA9\xBD\x3D\x65\xEC\x7C\xF8\x26\x91\x66\x1F\xD4\xA3\x38\xCF\x0C\x34\x9C\x4B\x40\xA5\x3B\xC6\x11\x38\x8C\x23\x47\xA2\xAC\xA8\x7A\x23\x54\xF2\xC0\x7F\xAB\xA7\x97\x39\x00\xA2\xD0\xF3\x9A\x32\x2C\xC0\xD5\x16\xC9\x7C\x17\x8D\x7E\xDF\xE5\xE3\xE1\xC1\x41\xC0\xBD\xF4\xAA\xA4\x1E\xB4\x18\xF2\xBC\xA9\x84\x3D\xF4\x42\xD6\xCE\x8B\xAF\x20\x1E\x1A\x1E\xCB\xC0\xF7\xC1\x57\xF3\x17\x16\x95\x92\x1B\x0D\xC0\x2B\xB6\xCA\xBD\xD4\x0F\x8D\x17\x4B\xE3\xF1\xBA\x63\x16\xEC\x20\x23\xC7\x3B\x3E\x9E\xF3\x3B\x32\x43\xA6\x0B\xA8\xF2\x49\x50\x8B\xA7\xE6\xB8\xF8\x2F\xA2\x09\x67\xC6\xF7\x5B\x75\x05\x92\xFC\x3F\x86\xC6\x3D\xAF\xA2\xBC\xA2\xC3\xEF\x20\xA1\x52\xE7\x4F\x5F\xF9\x13\x49\x10\x18\xC1\x58\xF0\x1C\x72\xBD\x05\x8E\xB9\xF9\x54\xAA\xA6\x7F\xFB\x86\x41\xA1\x5D\x92\xA4\x39\xF8\xED\xAE\x3C\xCE\xEE\x84\x13\x40\x01\xCB\xDD\xEE\xF8\x93\x52\xD9\x3D\x00\xB4\x15\x2C\x5E\xF5\xAF\x24\x0A\x0C\x7E\x1D\xAF\x11\x6E\x01\x9C\x69\xDC\x19\x6E\xB5\x21\x88\x81\x43\x9E\x96\xE7\xB8\xAD\xCE\x73\xF4\x52\xDD\x4F\x38\x28\x07\x36\x1D\x6B\x9F\x77\x65\x5C\xB2\x08\xDC'
        send_packet(self, ig_port, pkt)

    def verifyPackets(self):
        pass

    def runTest(self):
        self.runTestImpl()

