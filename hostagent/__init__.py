"""Host agent: block-sparse allreduce of numpy arrays through a p4reduce aggregator."""
from p4reduce.hostagent.agent import AgentFailed, AllreduceStats, HostAgent
from p4reduce.hostagent.config import WorkerConfig

__all__ = ["AgentFailed", "AllreduceStats", "HostAgent", "WorkerConfig"]
