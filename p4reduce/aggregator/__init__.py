# SPDX-License-Identifier: Apache-2.0
"""Software aggregator: the CPU aggregator role of OmniReduce, speaking the
same wire protocol as the P4 program (docs/protocol.md). Embedded default."""

from p4reduce.aggregator.config import JobSpec
from p4reduce.aggregator.engine import AggregatorEngine, Outgoing
from p4reduce.aggregator.server import AggregatorServer, sharded_servers

__all__ = ["AggregatorEngine", "AggregatorServer", "JobSpec", "Outgoing", "sharded_servers"]
