# SPDX-License-Identifier: Apache-2.0
"""Moved: the DDP communication hook is `p4reduce.torch.ddp_hook`, beside the backend.

This name stays so that code written for earlier releases keeps working; it warns once
(DeprecationWarning) and will be removed. The hook lives above the host agent (it needs
torch), so this module imports it only when one of its names is asked for, and nothing
in p4reduce.hostagent itself depends on it.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_NAMES = ("P4ReduceHookState", "p4reduce_hook")


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        "p4reduce.hostagent.torch_hook moved to p4reduce.torch.ddp_hook; import it from there",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module("p4reduce.torch.ddp_hook"), name)


__all__ = list(_NAMES)
