# SPDX-License-Identifier: Apache-2.0
"""Batched UDP datagram I/O (recvmmsg/sendmmsg) shared by workers and the aggregator."""

from p4reduce.transport.batchio import HAVE_MMSG, BatchReceiver, BatchSender, Buffer

__all__ = ["HAVE_MMSG", "BatchReceiver", "BatchSender", "Buffer"]
