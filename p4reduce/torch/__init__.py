# SPDX-License-Identifier: Apache-2.0
"""torch.distributed backend "p4reduce": collectives as block-sparse allreduces.

    import p4reduce.torch  # registers the backend
    dist.init_process_group("p4reduce", rank=rank, world_size=world)   # MASTER_ADDR/PORT or init_method

By default the group's rank 0 starts an embedded software aggregator (sparse mode) and
publishes its address through the process group's store; every rank then joins it with a
HostAgent. ``P4REDUCE_AGGREGATOR=HOST:PORT`` (or ``pg_options=p4reduce.torch.Options(...)``)
points every rank at an external software aggregator or a switch instead, with
``P4REDUCE_JOB``, ``P4REDUCE_MODE``, ``P4REDUCE_BLOCK_SIZE`` and ``P4REDUCE_SLOTS`` giving
the job and its geometry (Options.from_env lists every variable).

Supported: all_reduce (SUM, AVG), reduce_scatter_single / reduce_scatter_tensor and
reduce_scatter, all_gather_single / all_gather_into_tensor and all_gather, broadcast,
barrier; async_op=True gives a Work whose get_future() is a torch Future. Which dtypes
and how: `p4reduce.torch.codec`. What each collective costs: `p4reduce.torch.backend`.
"""

try:
    import torch.distributed as _dist  # the absolute `torch`, not this package
except ImportError as exc:  # pragma: no cover - exercised only without torch
    raise ImportError("p4reduce.torch needs PyTorch: pip install 'p4reduce[torch]'") from exc
if not _dist.is_available():  # pragma: no cover
    raise ImportError("p4reduce.torch needs a PyTorch build with torch.distributed")

from p4reduce.torch.backend import BACKEND_NAME, P4ReduceProcessGroup, P4ReduceStats, P4ReduceWork, register, stats
from p4reduce.torch.options import Options

register()

__all__ = ["BACKEND_NAME", "Options", "P4ReduceProcessGroup", "P4ReduceStats", "P4ReduceWork", "register", "stats"]
