# SPDX-License-Identifier: Apache-2.0
"""p4reduce: block-sparse in-network aggregation for distributed deep learning.

Layers, each importing only from the ones before it:

* `p4reduce.protocol` — wire constants and the aggregation-header codec (docs/protocol.md);
* `p4reduce.transport` — batched UDP socket I/O;
* `p4reduce.hostagent` — the allreduce library (workers);
* `p4reduce.aggregator` — the software aggregator;
* `p4reduce.controller` — the P4Runtime control plane (extra `controller`);
* `p4reduce.cli`, `p4reduce.testbed` — the `p4reduce` command, the demo, and experiment tools.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _dist_version

try:
    __version__ = _dist_version("p4reduce")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"
