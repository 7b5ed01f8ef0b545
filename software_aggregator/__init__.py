"""Software aggregator: the CPU aggregator role of OmniReduce, speaking the
same wire protocol as the P4 program (docs/protocol.md). Embedded default."""
from software_aggregator.config import JobSpec
from software_aggregator.engine import AggregatorEngine, Outgoing
from software_aggregator.server import AggregatorServer

__all__ = ["AggregatorEngine", "AggregatorServer", "JobSpec", "Outgoing"]
