"""The host agent's window over streams in flight (hostagent/window.py): the AIMD
policy."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p4reduce.hostagent.window import QUEUE_FACTOR, StreamWindow

# -- the policy ---------------------------------------------------------------------------


def lossy(limit: int = 64, at: int | None = None) -> StreamWindow:
    """A window that has seen one loss (halved from `limit`), then `at` if given."""
    w = StreamWindow(limit)
    w.on_round(0.001)
    w.on_loss(0.0, 1.0)
    if at is not None:
        while w.size > at:
            w.on_loss(2.0 + w.decreases, 2.0 + w.decreases)
    return w


def test_starts_at_the_configured_slots_and_keeps_them_without_loss():
    w = StreamWindow(64)
    assert (w.size, w.lossless, w.decreases) == (64, True, 0)
    for latency in (0.001, 0.5, 0.002):  # delayed or not: nothing to grow to
        w.on_round(latency)
    w.restart()
    assert (w.size, w.lossless) == (64, True)


def test_a_loss_halves_once_per_loss_event():
    w = StreamWindow(64)
    assert w.on_loss(round_started=1.0, now=2.0)
    assert (w.size, w.decreases, w.lossless) == (32, 1, False)
    # Other rounds of the same burst, sent before the decrease: the same event.
    assert not w.on_loss(round_started=1.5, now=2.1)
    assert not w.on_loss(round_started=1.99, now=2.6)
    assert w.size == 32
    # A round sent after the decrease was lost anew.
    assert w.on_loss(round_started=2.2, now=2.7)
    assert (w.size, w.decreases) == (16, 2)


def test_never_below_the_minimum_nor_above_the_limit():
    w = StreamWindow(8, minimum=2)
    for i in range(10):
        w.on_loss(float(i), float(i))
    assert w.size == 2
    for _ in range(10_000):
        w.on_round(0.001)
    assert w.size == 8


@pytest.mark.parametrize("limit, minimum", [(0, 1), (4, 0), (4, 5)])
def test_bad_bounds_refused(limit, minimum):
    with pytest.raises(ValueError):
        StreamWindow(limit, minimum=minimum)


def test_after_a_loss_one_more_stream_per_window_of_clean_rounds():
    w = lossy(64)
    assert w.size == 32
    for _ in range(32):
        w.on_round(0.001)
    assert w.size == 32  # 1/32 of a stream per round, each a little less as it grows
    w.on_round(0.001)
    assert w.size == 33


def test_rounds_delayed_by_queueing_do_not_grow_the_window():
    w = lossy(64)  # its shortest round: 1 ms
    for _ in range(200):
        w.on_round(0.001 * QUEUE_FACTOR * 1.5)
    assert w.size == 32
    w.on_round(0.001 * QUEUE_FACTOR)  # at the limit: not delayed
    w.on_round(0.0005)  # a new shortest round
    assert math.isclose(w._cwnd, 32 + 1 / 32 + 1 / (32 + 1 / 32))


def test_an_allreduce_starts_from_a_window_known_to_pass_as_a_burst():
    w = lossy(64)
    for _ in range(128):  # an allreduce grows it to 35.8
        w.on_round(0.001)
    assert w.size == 35
    w.restart()  # 3/4 of 35.8 is below 32: back to the window that followed the loss
    assert w.size == 32
    for _ in range(600):  # to 47.2
        w.on_round(0.001)
    assert w.size == 47
    w.restart()  # 3/4 of a larger window that ran without a loss
    assert w.size == 35
    for _ in range(3):
        w.on_round(0.001)
    w.restart()  # the start only rises: 3/4 of 35.4 is below 35.4
    assert w.size == 35


@settings(max_examples=200, deadline=None)
@given(limit=st.integers(1, 300), minimum=st.integers(1, 300),
       events=st.lists(st.tuples(st.sampled_from(["round", "loss", "restart"]),
                                 st.floats(0.0, 1.0)), max_size=300))
def test_any_event_sequence_stays_within_bounds(limit, minimum, events):
    minimum = min(minimum, limit)
    w = StreamWindow(limit, minimum=minimum)
    now = 0.0
    for kind, x in events:
        now += x
        if kind == "round":
            w.on_round(x)
        elif kind == "loss":
            w.on_loss(now - x, now)
        else:
            w.restart()
        assert minimum <= w.size <= limit
