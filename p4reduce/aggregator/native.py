# SPDX-License-Identifier: Apache-2.0
"""The aggregator engine on the native data path (C extension `p4reduce._engine`).

`NativeEngine` is an AggregatorEngine whose non-hierarchical jobs keep their hot
state in a `p4reduce._engine.Core`: the member table (session, address, pack limit),
the job's failure and started flags, and every slot's state machine. The core
handles the common packets -- DATA and QUERY of a joined member from its address,
for a healthy job, in a slot this aggregator serves -- in C with the GIL released;
it hands every other packet, in arrival order, to `handle` here, i.e. to the Python
engine's code for membership (JOIN, RESET, strangers, admission), failure and
malformed input, which reads and writes the core's tables through the properties
below. The Python engine stays the readable reference model:
tests/test_native_engine.py drives both with the same random traffic and compares
every reply byte for byte.

Leaves of a hierarchy (jobs with `upstream`) stay entirely on the Python path.
There is no fallback: without the compiled extension this import fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NoReturn

from p4reduce._native import load_extension
from p4reduce.aggregator.buffers import BufferPool
from p4reduce.aggregator.config import JobSpec
from p4reduce.aggregator.counters import Counters
from p4reduce.aggregator.engine import AggregatorEngine, JobState, Member
from p4reduce.protocol import ErrorCode, Mode
from p4reduce.protocol.switch import JOB_EVENT_NAMES

if TYPE_CHECKING:
    from p4reduce._engine import Core  # compiled: typed Any
else:  # 8: ABI_VERSION in p4reduce/_engine_py.c
    Core = load_extension("_engine", 8, "AggregatorServer(engine='python') runs the reference model instead.").Core


class NativeCounters(Counters):
    """The Python engine's counters (packets it handled) plus the core's (the rest)."""

    def __init__(self, core: Core) -> None:
        super().__init__()
        self._core = core

    def snapshot(self) -> dict[str, int]:
        values = super().snapshot()
        for name, value in self._core.counters().items():
            values[name] = values.get(name, 0) + value
        return values


class _MemberTable(dict[int, Member]):
    """A job's members (engine.py's dict), mirrored into the core as they join."""

    def __init__(self, core: Core, job_id: int) -> None:
        super().__init__()
        self._core, self._job_id = core, job_id

    def __setitem__(self, worker: int, member: Member) -> None:
        super().__setitem__(worker, member)
        host, port = member.address
        self._core.set_member(self._job_id, worker, member.session, host, port, member.pack_up_to)

    def __delitem__(self, worker: int) -> None:
        super().__delitem__(worker)
        self._core.clear_member(self._job_id, worker)

    def pop(self, worker: int, *default: Any) -> Any:
        if worker in self:
            self._core.clear_member(self._job_id, worker)
        return super().pop(worker, *default)

    def clear(self) -> None:
        for worker in self:
            self._core.clear_member(self._job_id, worker)
        super().clear()


class _NativeJob(JobState):
    """engine.py's JobState, whose failure, started flag and slots live in the core."""

    def __init__(self, spec: JobSpec, pool: BufferPool, core: Core, group_session: int) -> None:
        self._core = core
        super().__init__(spec, pool, group_session)
        self.members = _MemberTable(core, spec.job_id)
        self.pin_members()
        core.set_group_session(spec.job_id, self.group_session)

    @property
    def failure(self) -> tuple[ErrorCode, int] | None:
        failure = self._core.failure(self.spec.job_id)
        return None if failure is None else (ErrorCode(failure[0]), failure[1])

    @failure.setter
    def failure(self, value: tuple[ErrorCode, int] | None) -> None:
        self._core.set_failure(self.spec.job_id, None if value is None else (int(value[0]), value[1]))

    @property
    def started(self) -> bool:
        return self._core.started(self.spec.job_id)

    @started.setter
    def started(self, value: bool) -> None:
        self._core.set_started(self.spec.job_id, value)

    def newest_of(self, worker_id: int) -> int | None:  # the core takes the DATA
        return self._core.member_newest(self.spec.job_id, worker_id)

    def slot(self, index: int) -> NoReturn:
        # The core takes every packet that would reach a slot; getting here is a bug.
        raise AssertionError(
            f"job {self.spec.job_id} slot {index}: a packet for the native core reached the Python engine"
        )

    def stream_ended(self, epoch: int, blocks: int) -> bool:  # the core counts streams
        raise AssertionError("stream_ended on a native job")


class NativeEngine(AggregatorEngine):
    """AggregatorEngine with the data path in `core` (see the module's docstring).

    `handle` takes only what `core.run` hands back; drive it with a Datapath
    (p4reduce.aggregator.server), which is what AggregatorServer does.
    """

    def __init__(self, jobs: Iterable[JobSpec] = (), *, new_session: Callable[[int, int], int] | None = None) -> None:
        self.core = Core()
        super().__init__(jobs, new_session=new_session)  # the core reads CLOCK_MONOTONIC itself
        self.counters = NativeCounters(self.core)

    @property
    def idle_horizon(self) -> float:
        return self._idle_horizon

    @idle_horizon.setter
    def idle_horizon(self, seconds: float) -> None:
        self._idle_horizon = seconds
        self.core.set_idle_horizon(seconds)

    def is_native(self, job_id: int) -> bool:
        """Whether the core runs the job (every job but a hierarchy's leaves)."""
        try:
            return self.job(job_id).upstream is None
        except KeyError:
            return False

    def new_job_state(self, spec: JobSpec, group_session: int, *, reset: bool = False) -> JobState:
        if spec.upstream is not None:  # hierarchical leaves stay on the Python path
            return super().new_job_state(spec, group_session, reset=reset)
        if reset:
            self.core.reset_job(spec.job_id)
        else:
            self.core.add_job(
                spec.job_id,
                spec.num_workers,
                spec.mode is Mode.DENSE,
                spec.slot_base,
                spec.num_slots,
                spec.block_size,
                spec.shard[0],
                spec.shard[1],
                spec.group,
                spec.max_blocks,
            )
            self.core.set_key(spec.job_id, None if spec.key is None else spec.key.raw)
        return _NativeJob(spec, self.buffers, self.core, group_session)

    def job_counters(self, job_id: int) -> dict[str, int]:
        """The Python engine's part (packets it handled) plus the core's (the rest), as
        NativeCounters; from any thread (the core reads its part under its mutex)."""
        values = super().job_counters(job_id)
        if self.is_native(job_id):
            for name, value in zip(JOB_EVENT_NAMES, self.core.job_counters(job_id), strict=True):
                values[name] += value
        return values

    def remove_job(self, job_id: int) -> None:
        native = self.is_native(job_id)
        super().remove_job(job_id)
        if native:
            self.core.remove_job(job_id)


__all__ = ["NativeCounters", "NativeEngine"]
