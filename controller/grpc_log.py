# SPDX-License-Identifier: Apache-2.0
"""DEBUG log of every P4Runtime request, from a gRPC client interceptor.

Like p4lang/tutorials' runtime library, which logs each P4Runtime write, but
on the channel: every RPC the controller makes goes through it, whatever
method sends it. Logger `p4reduce.controller.grpc`; nothing is formatted
unless DEBUG is enabled for it, so a pipeline push costs nothing extra
otherwise.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import grpc
from google.protobuf import text_format
from google.protobuf.message import Message

from p4reduce.controller.proto import p4r

__all__ = ["LoggingInterceptor", "describe", "log"]

log = logging.getLogger("p4reduce.controller.grpc")

# A multi-MB request (a big P4Info) is not dumped whole: the head says what it is.
MAX_TEXT = 4096


def describe(msg: Message, limit: int = MAX_TEXT) -> str:
    """`msg` as one line of protobuf text, at most about `limit` characters.

    The BMv2 JSON of a SetForwardingPipelineConfig is left out (only its size
    is given): it is megabytes of escaped bytes nobody reads in a log.
    """
    suffix = ""
    if isinstance(msg, p4r.SetForwardingPipelineConfigRequest) and msg.config.p4_device_config:
        size = len(msg.config.p4_device_config)
        msg = _copy(msg)
        msg.config.ClearField("p4_device_config")
        suffix = f" [p4_device_config: {size} bytes omitted]"
    text = text_format.MessageToString(msg, as_one_line=True)
    if len(text) > limit:
        text = f"{text[:limit]}... [{len(text) - limit} more characters]"
    return text + suffix


def _copy(msg: Message) -> Any:
    out = type(msg)()
    out.CopyFrom(msg)
    return out


def _method(details: grpc.ClientCallDetails) -> str:
    """'/p4.v1.P4Runtime/Write' -> 'Write'."""
    return str(details.method).rsplit("/", 1)[-1]


def _log_outcome(method: str) -> Callable[[Any], None]:
    """Done-callback logging how a call ended when it did not end OK (for the
    StreamChannel, CANCELLED is the normal end: close() cancels it)."""

    def done(call: Any) -> None:
        code = call.code()
        if code is not None and code != grpc.StatusCode.OK:
            log.debug("%s ended with %s: %s", method, code.name, call.details())

    return done


class LoggingInterceptor(
    grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor, grpc.StreamStreamClientInterceptor
):
    """Logs each request at DEBUG: unary calls (Write, Read, pipeline config) with their
    request and, if they fail, the status; StreamChannel with every outgoing message."""

    def intercept_unary_unary(
        self, continuation: Any, client_call_details: grpc.ClientCallDetails, request: Any
    ) -> Any:
        return self._unary(continuation, client_call_details, request)

    def intercept_unary_stream(
        self, continuation: Any, client_call_details: grpc.ClientCallDetails, request: Any
    ) -> Any:
        # P4Runtime's Read: one request, a stream of responses.
        return self._unary(continuation, client_call_details, request)

    def intercept_stream_stream(
        self, continuation: Any, client_call_details: grpc.ClientCallDetails, request_iterator: Iterator[Any]
    ) -> Any:
        method = _method(client_call_details)

        def logged() -> Iterator[Any]:
            # Runs in gRPC's sending thread as each message is taken from the queue;
            # the level is checked per message since the stream lives as long as the session.
            for msg in request_iterator:
                if log.isEnabledFor(logging.DEBUG):
                    log.debug("%s > %s", method, describe(msg))
                yield msg

        call = continuation(client_call_details, logged())
        call.add_done_callback(_log_outcome(method))
        return call

    @staticmethod
    def _unary(continuation: Any, details: grpc.ClientCallDetails, request: Any) -> Any:
        if not log.isEnabledFor(logging.DEBUG):
            return continuation(details, request)
        method = _method(details)
        log.debug("%s %s", method, describe(request))
        outcome = continuation(details, request)
        # A blocking call's outcome is already complete: the callback runs at once.
        outcome.add_done_callback(_log_outcome(method))
        return outcome
