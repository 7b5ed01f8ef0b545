# SPDX-License-Identifier: Apache-2.0
"""Checks of a job's geometry that every side applies alike (workers, aggregator)."""

from __future__ import annotations

from p4reduce.protocol.codec import HEADER_LEN, MAX_BLOCK_SIZE, MAX_JOB_ID, MAX_SLOTS, MAX_UDP_PAYLOAD, MAX_WORKERS


def check_job_geometry(job_id: int, num_workers: int, slot_base: int, num_slots: int, block_size: int) -> None:
    """Raise ValueError naming the first field the wire format cannot carry."""
    if not 0 <= job_id <= MAX_JOB_ID:
        raise ValueError(f"job_id {job_id} outside 0..{MAX_JOB_ID}")
    if not 1 <= num_workers <= MAX_WORKERS:
        raise ValueError(f"job {job_id}: num_workers {num_workers} outside 1..{MAX_WORKERS}")
    if num_slots < 1 or slot_base < 0 or slot_base + num_slots > MAX_SLOTS:
        raise ValueError(f"job {job_id}: slots {slot_base}..{slot_base + num_slots - 1} outside 0..{MAX_SLOTS - 1}")
    if not 1 <= block_size <= MAX_BLOCK_SIZE:
        raise ValueError(f"job {job_id}: block_size {block_size} outside 1..{MAX_BLOCK_SIZE}")


def check_message_size(size: int) -> None:
    """0 (one packet per datagram) or room for at least a header, within one UDP datagram."""
    if size != 0 and not HEADER_LEN <= size <= MAX_UDP_PAYLOAD:
        raise ValueError(f"message_size {size} outside {HEADER_LEN}..{MAX_UDP_PAYLOAD} (or 0: one packet per datagram)")
