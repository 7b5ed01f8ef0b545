# SPDX-License-Identifier: Apache-2.0
"""One job's state as its watchers see it (WatchJob): `JobWatch`.

The coordinator sets it under its own lock on each change; each watcher (a gRPC stream's
thread) waits on the watch's condition for a version it has not seen, so a change wakes
exactly the watchers of that job and nothing polls.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class JobState:
    version: int  # one more on each change a watcher is told of
    registered: int
    expires_at: float  # the service's clock; refreshed by KeepAlive without a new version
    ended: str | None = None  # why the job ended (the last state); None while it lives


class JobWatch:
    """A job's state and the condition its watchers wait on.

    `end` is final (the first reason stays); `close` (the service stopping) sends the
    watchers away without an ending, so a worker reconnects instead of failing."""

    def __init__(self, registered: int, expires_at: float) -> None:
        self._changed = threading.Condition()
        self._state = JobState(0, registered, expires_at)
        self._closed = False

    @property
    def state(self) -> JobState:
        return self._state

    def update(self, registered: int, expires_at: float) -> None:
        """The job's registrations and lease now: a new version when registrations changed."""
        with self._changed:
            state = self._state
            if state.ended is not None:
                return
            if registered == state.registered:  # a lease extension alone wakes nobody
                self._state = dataclasses.replace(state, expires_at=expires_at)
                return
            self._state = JobState(state.version + 1, registered, expires_at)
            self._changed.notify_all()

    def end(self, reason: str) -> None:
        with self._changed:
            if self._state.ended is None:
                self._state = dataclasses.replace(self._state, version=self._state.version + 1, ended=reason)
                self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def wake(self) -> None:
        """Make the watchers look at `gone` again (a stream's RPC ended)."""
        with self._changed:
            self._changed.notify_all()

    def next(self, seen: int, gone: Callable[[], bool]) -> JobState | None:
        """The state once its version is not `seen`; None when the watch closed or the
        watcher is `gone` (call `wake` when that may have changed)."""
        with self._changed:
            self._changed.wait_for(lambda: self._closed or gone() or self._state.version != seen)
            return None if self._closed or gone() else self._state


__all__ = ["JobState", "JobWatch"]
