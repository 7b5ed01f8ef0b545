"""P4Runtime client for the p4reduce switch (grpcio + the official p4runtime stubs)."""
from __future__ import annotations

import json
import pathlib
import queue
import shutil
import subprocess
import threading
from typing import Iterable, Iterator

import grpc
from p4.v1 import p4runtime_pb2 as p4r
from p4.v1 import p4runtime_pb2_grpc

from controller.config import Config, JobConfig
from controller.p4info import P4Info, encode_value, ip_to_int, mac_to_int

INGRESS = "P4ReduceIngress"
EGRESS = "P4ReduceEgress"
WORKERS_TABLE = f"{INGRESS}.worker_check.workers"
L2_TABLE = f"{INGRESS}.forwarding.l2"
RESULT_DEST_TABLE = f"{EGRESS}.result_dest"
EVENTS_COUNTER = f"{INGRESS}.events"
SEEN_BITMAP_SUFFIX = ".seen_bitmap.seen"
SWITCH_SLOTS = 1024
EVENT_NAMES = ["data_counted", "result_multicast", "result_unicast", "retransmit_dropped",
               "unknown_worker", "identity_mismatch", "bad_slot", "malformed", "forwarded"]


class SwitchUnreachable(ConnectionError):
    """No P4Runtime server answered at the address."""


class NotPrimary(RuntimeError):
    """Another controller with a higher election id is primary."""


class SwitchClient:
    """One P4Runtime session with one device, as primary controller."""

    def __init__(self, grpc_addr: str, device_id: int, election_id: int,
                 channel: grpc.Channel, stub: p4runtime_pb2_grpc.P4RuntimeStub,
                 requests: queue.Queue, responses: queue.Queue) -> None:
        self.grpc_addr = grpc_addr
        self.device_id = device_id
        self.election_id = p4r.Uint128(high=0, low=election_id)
        self._channel = channel
        self._stub = stub
        self._requests = requests
        self._responses = responses
        self.p4info: P4Info | None = None
        self.bmv2_json: dict | None = None

    # -- session ----------------------------------------------------------------
    @classmethod
    def connect(cls, grpc_addr: str, device_id: int = 0, election_id: int = 1,
                timeout: float = 5.0) -> SwitchClient:
        channel = grpc.insecure_channel(grpc_addr)
        try:
            grpc.channel_ready_future(channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            channel.close()
            raise SwitchUnreachable(f"no P4Runtime server at {grpc_addr} "
                                    f"(waited {timeout} s)") from None
        stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        requests: queue.Queue = queue.Queue()
        responses: queue.Queue = queue.Queue()
        stream = stub.StreamChannel(_drain(requests))
        threading.Thread(target=_pump, args=(stream, responses), daemon=True,
                         name=f"p4runtime-stream-{grpc_addr}").start()
        client = cls(grpc_addr, device_id, election_id, channel, stub, requests, responses)
        client._arbitrate(timeout)
        return client

    def _arbitrate(self, timeout: float) -> None:
        req = p4r.StreamMessageRequest()
        req.arbitration.device_id = self.device_id
        req.arbitration.election_id.CopyFrom(self.election_id)
        self._requests.put(req)
        try:
            msg = self._responses.get(timeout=timeout)
        except queue.Empty:
            self.close()
            raise SwitchUnreachable(f"{self.grpc_addr}: no arbitration answer within {timeout} s") from None
        if isinstance(msg, grpc.RpcError):
            self.close()
            raise SwitchUnreachable(f"{self.grpc_addr}: stream failed: {msg.details()}") from None
        if not msg.HasField("arbitration"):
            self.close()
            raise SwitchUnreachable(f"{self.grpc_addr}: unexpected first stream message {msg}")
        if msg.arbitration.status.code != grpc.StatusCode.OK.value[0]:
            self.close()
            raise NotPrimary(f"{self.grpc_addr}: not primary for device {self.device_id} "
                             f"(election id {self.election_id.low}): {msg.arbitration.status.message}")

    def close(self) -> None:
        self._requests.put(None)
        self._channel.close()

    def __enter__(self) -> SwitchClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- pipeline ---------------------------------------------------------------
    def push_pipeline(self, p4info_path: str | pathlib.Path, bmv2_json_path: str | pathlib.Path) -> None:
        self.p4info = P4Info.load(p4info_path)
        raw_json = pathlib.Path(bmv2_json_path).read_bytes()
        self.bmv2_json = json.loads(raw_json)
        req = p4r.SetForwardingPipelineConfigRequest(
            device_id=self.device_id, election_id=self.election_id,
            action=p4r.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        req.config.p4info.CopyFrom(self.p4info.proto)
        req.config.p4_device_config = raw_json
        self._stub.SetForwardingPipelineConfig(req)

    def use_pipeline(self, p4info_path: str | pathlib.Path, bmv2_json_path: str | pathlib.Path | None = None) -> None:
        """Use names from a pipeline already on the switch (no push)."""
        self.p4info = P4Info.load(p4info_path)
        if bmv2_json_path is not None:
            self.bmv2_json = json.loads(pathlib.Path(bmv2_json_path).read_text())

    def _info(self) -> P4Info:
        if self.p4info is None:
            raise RuntimeError("push_pipeline() or use_pipeline() first")
        return self.p4info

    # -- writes -----------------------------------------------------------------
    def table_entry(self, table: str, match: dict[str, int], action: str,
                    params: dict[str, int]) -> p4r.Entity:
        info = self._info()
        t = info.table(table)
        a = info.action(action)
        entity = p4r.Entity()
        entry = entity.table_entry
        entry.table_id = t.id
        for name, value in match.items():
            fid, width = info.match_field(table, name)
            fm = entry.match.add(field_id=fid)
            fm.exact.value = encode_value(value, width)
        entry.action.action.action_id = a.id
        for name, value in params.items():
            pid, width = info.param(action, name)
            entry.action.action.params.add(param_id=pid, value=encode_value(value, width))
        return entity

    @staticmethod
    def multicast_group(mgid: int, replicas: Iterable[tuple[int, int]]) -> p4r.Entity:
        entity = p4r.Entity()
        group = entity.packet_replication_engine_entry.multicast_group_entry
        group.multicast_group_id = mgid
        for port, rid in replicas:
            group.replicas.add(egress_port=port, instance=rid)
        return entity

    def write(self, entities: Iterable[p4r.Entity], update_type: int = p4r.Update.INSERT) -> None:
        req = p4r.WriteRequest(device_id=self.device_id, election_id=self.election_id)
        for entity in entities:
            req.updates.add(type=update_type, entity=entity)
        if req.updates:
            self._stub.Write(req)

    def job_entities(self, job: JobConfig) -> list[p4r.Entity]:
        """Worker table entries, result destinations and the multicast group of a job."""
        out = []
        for w in job.workers:
            out.append(self.table_entry(
                WORKERS_TABLE,
                {"standard_metadata.ingress_port": w.port, "hdr.ethernet.srcAddr": mac_to_int(w.mac),
                 "hdr.ipv4.srcAddr": ip_to_int(w.ip), "hdr.udp.srcPort": w.udp_port},
                f"{INGRESS}.worker_check.set_worker",
                {"job_id": job.job_id, "worker_id": w.worker_id, "num_workers": job.num_workers,
                 "mgid": job.mgid, "slot_base": job.slot_base, "num_slots": job.num_slots}))
            out.append(self.table_entry(
                RESULT_DEST_TABLE, {"hdr.agg.job_id": job.job_id, "meta.dest_worker": w.worker_id},
                f"{EGRESS}.set_result_dest",
                {"mac": mac_to_int(w.mac), "ip": ip_to_int(w.ip), "udp_port": w.udp_port}))
        out.append(self.multicast_group(job.mgid, [(w.port, w.worker_id) for w in job.workers]))
        return out

    def install(self, config: Config) -> None:
        """Install every job, L2 entry and the broadcast group of `config`."""
        entities = [e for job in config.jobs for e in self.job_entities(job)]
        for entry in config.l2:
            entities.append(self.table_entry(L2_TABLE, {"hdr.ethernet.dstAddr": mac_to_int(entry.mac)},
                                             f"{INGRESS}.forwarding.to_port", {"port": entry.port}))
        if config.broadcast is not None:
            b = config.broadcast
            entities.append(self.table_entry(L2_TABLE, {"hdr.ethernet.dstAddr": 0xFFFFFFFFFFFF},
                                             f"{INGRESS}.forwarding.flood", {"mgid": b.mgid}))
            entities.append(self.multicast_group(b.mgid, [(p, 0) for p in b.ports]))
        self.write(entities)

    # -- reads ------------------------------------------------------------------
    def read_counters(self) -> dict[str, int]:
        """Packet counts of the `events` counter, by event name (docs/protocol.md section 8)."""
        info = self._info()
        req = p4r.ReadRequest(device_id=self.device_id)
        req.entities.add().counter_entry.counter_id = info.counter_id(EVENTS_COUNTER)
        counts = {name: 0 for name in EVENT_NAMES}
        for resp in self._stub.Read(req):
            for entity in resp.entities:
                c = entity.counter_entry
                if c.index.index < len(EVENT_NAMES):
                    counts[EVENT_NAMES[c.index.index]] = c.data.packet_count
        return counts

    # -- reset ------------------------------------------------------------------
    def reset_commands(self, job: JobConfig) -> list[str]:
        """Thrift CLI commands that clear a job's seen bitmaps (both versions).

        Clearing the bitmap is enough: the next packet of every slot is then a
        first arrival, which overwrites the countdown, look-ahead and values.
        """
        if self.bmv2_json is None:
            raise RuntimeError("the BMv2 JSON is needed to name registers: push_pipeline() first")
        names = [r["name"] for r in self.bmv2_json.get("register_arrays", [])
                 if r["name"].endswith(SEEN_BITMAP_SUFFIX)]
        if not names:
            raise RuntimeError(f"no register named *{SEEN_BITMAP_SUFFIX} in the BMv2 JSON")
        return [f"register_write {name} {version * SWITCH_SLOTS + slot} 0"
                for name in names for version in (0, 1)
                for slot in range(job.slot_base, job.slot_base + job.num_slots)]

    def reset_job(self, job: JobConfig, thrift_port: int, cli: str = "simple_switch_CLI") -> None:
        """Forget all aggregation state of a job (BMv2: through the thrift port,
        since P4Runtime register writes are not implemented there)."""
        exe = shutil.which(cli)
        if exe is None:
            raise FileNotFoundError(f"{cli} not found: it ships with BMv2 and is needed to reset "
                                    "registers")
        proc = subprocess.run([exe, "--thrift-port", str(thrift_port)],
                              input="\n".join(self.reset_commands(job)) + "\n",
                              capture_output=True, text=True, timeout=300)
        if proc.returncode or "Error" in proc.stdout:
            raise RuntimeError(f"register reset failed: {(proc.stderr or proc.stdout)[-500:]}")


def _drain(requests: queue.Queue) -> Iterator[p4r.StreamMessageRequest]:
    while (item := requests.get()) is not None:
        yield item


def _pump(stream, responses: queue.Queue) -> None:
    try:
        for msg in stream:
            responses.put(msg)
    except grpc.RpcError as exc:
        responses.put(exc)
