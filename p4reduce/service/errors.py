# SPDX-License-Identifier: Apache-2.0
"""Errors of the job service, each with the gRPC status code it is answered with.

The registry and the targets raise them with a message naming the cause (and the
request field, for a bad one); server.py maps `status` onto grpc.StatusCode, so
nothing below the server imports gRPC.
"""

from __future__ import annotations


class ServiceError(Exception):
    """Base of every error a request can get; `status` names a grpc.StatusCode member."""

    status = "INTERNAL"


class InvalidArgument(ServiceError, ValueError):
    """A request field is malformed or out of range; the message starts with the field's name."""

    status = "INVALID_ARGUMENT"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class TooManyWorkers(InvalidArgument):
    """More workers than any target's bitmap has bits for."""


class NoSlots(ServiceError):
    """No free slot range (or multicast group) of the size asked, and nowhere else to go."""

    status = "RESOURCE_EXHAUSTED"


class AlreadyRegistered(ServiceError):
    """The rank already has another address, or the address belongs to another live worker."""

    status = "ALREADY_EXISTS"


class UnknownJob(ServiceError):
    """No live job has this id (never created, released, or its lease expired)."""

    status = "NOT_FOUND"


class WishMismatch(ServiceError):
    """A job of this name exists with other wishes (the message names the field)."""

    status = "FAILED_PRECONDITION"


class SwitchLost(ServiceError):
    """The switch failed a request: its jobs are failed (their registers are gone)."""

    status = "UNAVAILABLE"


class AggregatorLost(SwitchLost):
    """A running software aggregator failed a request: its jobs are failed likewise."""


__all__ = [
    "AlreadyRegistered",
    "InvalidArgument",
    "NoSlots",
    "ServiceError",
    "SwitchLost",
    "TooManyWorkers",
    "UnknownJob",
    "WishMismatch",
]
