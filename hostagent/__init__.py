"""Host agent: block-sparse allreduce of numpy arrays through a p4reduce aggregator."""
from hostagent.agent import AgentFailed, AllreduceStats, HostAgent
from hostagent.config import WorkerConfig

__all__ = ["AgentFailed", "AllreduceStats", "HostAgent", "WorkerConfig"]
