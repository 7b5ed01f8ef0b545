# SPDX-License-Identifier: Apache-2.0
"""The job service's state on disk (config `state: PATH`, `controller serve --state`): an
embedded sqlite3 database in WAL mode, one transaction per change, written before the
request that made the change is answered. A restarted service reads it back (the
coordinator reconciles it with what the targets hold).

Every field of a registry Job is kept, generically (a field added later is kept too):
enums by value, bytes in hex, dataclasses as objects, dicts as pairs. A lease's expiry
is kept in wall-clock time: the service's monotonic clock starts afresh with the process.
Without a state file, MemoryState keeps nothing (the service starts empty each time).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import json
import logging
import pathlib
import sqlite3
import time
import types
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from p4reduce.controller.errors import ConfigError
from p4reduce.service.registry import Job

log = logging.getLogger(__name__)
SCHEMA = 1


@dataclass(frozen=True)
class Stored:
    """What a state file holds: the jobs (leases on the service's clock), where job ids
    go on, and the software targets' names in the order Job.aggregator indexes."""

    jobs: tuple[Job, ...] = ()
    next_job_id: int = 1
    targets: tuple[str, ...] = ()


class State(Protocol):
    """Where the coordinator writes each change (StateStore) or nothing (MemoryState)."""

    def load(self) -> Stored: ...

    def commit(
        self, saved: Sequence[Job], removed: Sequence[int], next_job_id: int, targets: Sequence[str]
    ) -> None: ...

    def close(self) -> None: ...


class MemoryState:
    """No state file: nothing to load, nothing kept."""

    def load(self) -> Stored:
        return Stored()

    def commit(self, saved: Sequence[Job], removed: Sequence[int], next_job_id: int, targets: Sequence[str]) -> None:
        pass

    def close(self) -> None:
        pass


class StateStore:
    """The database at `path` (created when missing). `clock` is the service's clock (the
    leases' expiries), `wall` the time that survives a restart."""

    def __init__(
        self,
        path: str | pathlib.Path,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.path = pathlib.Path(path)
        self.clock, self.wall = clock, wall
        try:
            # Autocommit mode: each change is its own explicit BEGIN ... COMMIT.
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode != "wal":
                raise sqlite3.OperationalError(f"WAL mode refused (journal mode {mode})")
            self._db.execute("PRAGMA synchronous=FULL")  # a commit is on disk before the answer
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self._db.execute("CREATE TABLE IF NOT EXISTS jobs (job_id INTEGER PRIMARY KEY, record TEXT NOT NULL)")
            schema = self._meta("schema", SCHEMA)
        except sqlite3.Error as exc:
            raise ConfigError(f"state {self.path}: {exc}") from None
        if schema != SCHEMA:
            raise ConfigError(f"state {self.path}: schema {schema}, this p4reduce reads schema {SCHEMA}")

    def load(self) -> Stored:
        now, wall = self.clock(), self.wall()
        jobs = []
        for job_id, text in self._db.execute("SELECT job_id, record FROM jobs ORDER BY job_id"):
            try:
                record = json.loads(text)
                record["expires_at"] = now + record["expires_at"] - wall
                jobs.append(decode(Job, record))
            except (ValueError, KeyError, TypeError) as exc:
                log.error("state %s: job %d unreadable, forgotten: %s", self.path, job_id, exc)
        return Stored(tuple(jobs), int(self._meta("next_job_id", 1)), tuple(self._meta("targets", [])))

    def commit(self, saved: Sequence[Job], removed: Sequence[int], next_job_id: int, targets: Sequence[str]) -> None:
        """One transaction: the jobs saved (again), the ids removed, where ids go on."""
        now, wall = self.clock(), self.wall()
        rows = []
        for job in saved:
            record = encode(job)
            record["expires_at"] = wall + job.expires_at - now
            rows.append((job.job_id, json.dumps(record)))
        with self._transaction() as db:
            db.executemany("INSERT OR REPLACE INTO jobs (job_id, record) VALUES (?, ?)", rows)
            db.executemany("DELETE FROM jobs WHERE job_id = ?", [(i,) for i in removed])
            db.executemany(
                "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)",
                [("next_job_id", json.dumps(next_job_id)), ("targets", json.dumps(list(targets)))],
            )

    def close(self) -> None:
        self._db.close()

    # -- helpers -------------------------------------------------------------------
    def _meta(self, name: str, default: Any) -> Any:
        """A meta value; `default` is written when there is none yet."""
        row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        if row is not None:
            return json.loads(row[0])
        with self._transaction() as db:
            db.execute("INSERT INTO meta (name, value) VALUES (?, ?)", (name, json.dumps(default)))
        return default

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")


# -- the generic codec --------------------------------------------------------------


def encode(value: Any) -> Any:
    """`value` as JSON data: dataclasses as objects of their fields, enums by value, bytes
    in hex, dicts as [key, value] pairs (keys need not be strings), sets as sorted lists."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bytes):
        return value.hex()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return [[encode(k), encode(v)] for k, v in value.items()]
    if isinstance(value, set | frozenset):
        return sorted(encode(v) for v in value)  # sorted: the same set is the same record
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    return value


def decode(hint: Any, data: Any) -> Any:
    """The value of type `hint` that `encode` wrote as `data` (a dataclass's fields not in
    `data` take their defaults; fields no longer in the class are ignored)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        if data is None and type(None) in args:
            return None
        return decode(next(a for a in args if a is not type(None)), data)
    if origin is dict:
        return {decode(args[0], k): decode(args[1], v) for k, v in data}
    if origin is tuple:
        items = args[:-1] * len(data) if args[-1:] == (Ellipsis,) else args
        return tuple(decode(a, v) for a, v in zip(items, data, strict=True))
    if origin is list:
        return [decode(args[0], v) for v in data]
    if origin in (set, frozenset):
        return origin(decode(args[0], v) for v in data)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(data)
    if hint is bytes:
        return bytes.fromhex(data)
    if hint is float:
        return float(data)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        hints = typing.get_type_hints(hint)
        names = {f.name for f in dataclasses.fields(hint) if f.init}
        return hint(**{k: decode(hints[k], v) for k, v in data.items() if k in names})
    if hint in (int, str, bool) and not isinstance(data, hint):
        raise TypeError(f"{data!r} is no {hint.__name__}")
    return data


def open_state(path: str | pathlib.Path | None, *, clock: Callable[[], float] = time.monotonic) -> State:
    """The state file at `path`, or MemoryState without one (logged: nothing survives)."""
    if path is None:
        log.warning("no state file (config 'state', serve --state): jobs are kept in memory, a restart forgets them")
        return MemoryState()
    store = StateStore(path, clock=clock)
    log.info("state kept in %s", store.path)
    return store


__all__ = ["MemoryState", "State", "StateStore", "Stored", "decode", "encode", "open_state"]
