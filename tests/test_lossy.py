# SPDX-License-Identifier: Apache-2.0
"""Lossy mode with error feedback (p4reduce.torch.lossy): the thresholding and residual
algebra, threshold 0 is the lossless path bit for bit, the errors, and a DDP training run
on 2 processes that reaches gloo's final loss (skipped without torch).

The training's stated margin: the final loss (mean over both ranks of the last
FINAL_STEPS steps) of lossy training, through the DDP comm hook and through the backend's
all_reduce, is within LOSS_MARGIN of gloo's, while dropping a large share of the non-zero
blocks; the same threshold without error feedback misses that margin (so the check can fail).
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch)")

from p4reduce.torch.lossy import ErrorFeedback, block_maxima, check_threshold, threshold_blocks  # noqa: E402

LOSS_MARGIN = 0.02  # absolute, on a BCE loss that goes from ~0.92 to ~0.37 with gloo
FINAL_STEPS = 20
THRESHOLD = 3e-3
BLOCK = 64


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.view(torch.int32)


def _gradient(seed: int, n: int = 1000, block: int = BLOCK) -> torch.Tensor:
    """Blocks of very different scales (some zero), length not a multiple of the block."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, generator=g)
    scales = 10.0 ** torch.randint(-5, 0, (-(-n // block),), generator=g).float()
    scales[::5] = 0
    return x * scales.repeat_interleave(block)[:n]


# -- thresholding and residuals ------------------------------------------------------------
def test_threshold_blocks_drops_exactly_the_small_non_zero_blocks():
    grad = _gradient(1)
    flat = grad.clone()
    residual, dropped, nonzero = threshold_blocks(flat, BLOCK, THRESHOLD)
    maxima = block_maxima(grad, BLOCK)
    assert maxima.numel() == 16 and nonzero == int((maxima > 0).sum())
    small = (maxima > 0) & (maxima < THRESHOLD)
    assert dropped == int(small.sum()) > 0 and dropped < nonzero
    for b in range(maxima.numel()):
        part = slice(b * BLOCK, (b + 1) * BLOCK)
        if small[b]:
            assert not flat[part].any() and torch.equal(residual[part], grad[part])
        else:
            assert torch.equal(_bits(flat[part]), _bits(grad[part])) and not residual[part].any()
    assert torch.equal(flat + residual, grad)


def test_error_feedback_algebra_over_steps():
    fb = ErrorFeedback(THRESHOLD, BLOCK)
    previous = torch.zeros(1000)
    dropped_total = 0
    for step in range(6):
        grad = _gradient(10 + step)
        sent = grad.clone()
        residual = fb.apply("w", sent)
        residual = torch.zeros(1000) if residual is None else residual
        # every element is either sent or kept: sent + residual == gradient + previous residual
        assert torch.equal(sent + residual, grad + previous)
        assert not (sent.bool() & residual.bool()).any()
        assert block_maxima(residual, BLOCK).lt(THRESHOLD).all()
        kept = block_maxima(sent, BLOCK)
        assert ((kept == 0) | (kept >= THRESHOLD)).all()
        previous = residual
        dropped_total = fb.blocks_dropped
    assert dropped_total > 0 and fb.blocks_seen > dropped_total and fb.calls == 6
    assert math.isclose(fb.residual_norm(), float(previous.double().norm()), rel_tol=1e-12)


def test_a_small_persistent_gradient_arrives_late_and_whole():
    fb = ErrorFeedback(1.0, 4)
    sent = []
    for _ in range(3):
        g = torch.tensor([0.375, 0.0, 0.0, 0.0, 2.0, 0.0])  # block 0 small, block 1 (cut short) big
        fb.apply("w", g)
        sent.append(g.tolist())
    assert sent == [[0, 0, 0, 0, 2, 0], [0, 0, 0, 0, 2, 0], [1.125, 0, 0, 0, 2, 0]]  # 3 x 0.375 >= 1
    assert fb.residual("w") is None and fb.blocks_dropped == 2


def test_residuals_follow_their_pieces_when_the_layout_changes():
    """A DDP bucket is rebuilt with its parameters in another order: each keeps its residual."""
    fb = ErrorFeedback(1.0, 4)
    a, b = torch.full((4,), 0.5), torch.full((4,), 3.0)
    fb.apply_pieces([("a", 4), ("b", 4)], torch.cat([a, b]))
    assert torch.equal(fb.residual("a"), a) and fb.residual("b") is None
    flat = torch.cat([torch.full((4,), 3.0), torch.full((4,), 0.25)])  # now b, then a
    fb.apply_pieces([("b", 4), ("a", 4)], flat)
    assert flat.tolist() == [3.0] * 4 + [0.0] * 4  # a: 0.25 + 0.5 = 0.75 < 1, still held back
    assert torch.equal(fb.residual("a"), torch.full((4,), 0.75))
    with pytest.raises(ValueError, match="the same key must name the same tensor"):
        fb.apply("a", torch.ones(5))


def test_threshold_zero_is_the_lossless_path_bit_for_bit():
    grad = _gradient(3)
    grad[7] = -0.0
    flat = grad.clone()
    fb = ErrorFeedback(0.0, BLOCK)
    for _ in range(2):
        assert fb.apply("w", flat) is None
    assert torch.equal(_bits(flat), _bits(grad)) and fb.blocks_dropped == 0 and fb.residual("w") is None
    assert threshold_blocks(flat, BLOCK, 0.0) == (None, 0, 0)


def test_non_finite_blocks_are_kept_for_the_allreduce_to_refuse():
    flat = torch.tensor([1e-6, float("nan"), 0.0, 0.0, 1e-6, 0.0, 0.0, 0.0])
    residual, dropped, nonzero = threshold_blocks(flat, 4, 1.0)
    assert math.isnan(float(flat[1])) and dropped == 1 and nonzero == 2 and residual[4] == 1e-6


@pytest.mark.parametrize("bad", [-1e-3, float("nan"), float("inf"), "lots", None])
def test_bad_thresholds_are_refused_in_one_line(bad):
    with pytest.raises(ValueError, match=r"must be finite and >= 0|expected a number >= 0") as info:
        check_threshold(bad)
    assert "\n" not in str(info.value)


def test_bad_thresholds_at_every_entry_point():
    from p4reduce.torch import Options
    from p4reduce.torch.ddp_hook import P4ReduceHookState

    with pytest.raises(ValueError, match="lossy_threshold -0.5: must be finite and >= 0"):
        Options(lossy_threshold=-0.5)
    with pytest.raises(ValueError, match="P4REDUCE_LOSSY_THRESHOLD 'nan': must be finite"):
        Options.from_env({"P4REDUCE_LOSSY_THRESHOLD": "nan"})
    with pytest.raises(ValueError, match="P4REDUCE_LOSSY_THRESHOLD 'x': expected a number"):
        Options.from_env({"P4REDUCE_LOSSY_THRESHOLD": "x"})
    assert Options.from_env({"P4REDUCE_LOSSY_THRESHOLD": "1e-3"}).lossy_threshold == 1e-3
    assert Options().lossy_threshold == 0.0  # off by default
    with pytest.raises(ValueError, match="lossy_threshold inf: must be finite"):
        P4ReduceHookState(_EchoAgent(), lossy_threshold=float("inf"))


# -- the DDP comm hook with a stand-in agent ------------------------------------------------
class _EchoAgent:
    """Stands in for a HostAgent of 2 workers whose peer holds the same bucket."""

    def __init__(self) -> None:
        from types import SimpleNamespace

        from p4reduce.hostagent import AllreduceStats

        self.config = SimpleNamespace(scale_workers=2, block_size=BLOCK)
        self.last_stats = AllreduceStats(blocks=1, nonzero_blocks=1)
        self.seen: list[torch.Tensor] = []

    def allreduce(self, values, out):
        self.seen.append(torch.from_numpy(values.copy()))
        out += values
        return out


class _Bucket:
    def __init__(self, params: list[torch.Tensor], index: int = 0) -> None:
        self._params, self._index = params, index
        self._buffer = torch.cat([p.grad.reshape(-1) for p in params])

    def buffer(self):
        return self._buffer

    def parameters(self):
        return self._params

    def index(self):
        return self._index


def _params(seed: int) -> list[torch.Tensor]:
    grad = _gradient(seed)
    out = []
    for part in (grad[:600], grad[600:]):
        p = torch.zeros(part.numel(), requires_grad=True)
        p.grad = part.clone()
        out.append(p)
    return out


def test_hook_threshold_zero_matches_the_plain_hook_bit_for_bit():
    from p4reduce.torch.ddp_hook import P4ReduceHookState, p4reduce_hook

    params = _params(4)
    results = []
    for state in (P4ReduceHookState(_EchoAgent()), P4ReduceHookState(_EchoAgent(), lossy_threshold=0.0)):
        assert state.feedback is None
        results.append(p4reduce_hook(state, _Bucket(params)).wait())
        assert state.blocks_dropped == 0
        state.close()
    assert torch.equal(_bits(results[0]), _bits(results[1]))


def test_hook_sends_thresholded_buckets_and_feeds_back_per_parameter():
    from p4reduce.torch.ddp_hook import P4ReduceHookState, p4reduce_hook

    state = P4ReduceHookState(_EchoAgent(), lossy_threshold=THRESHOLD)
    params = _params(5)
    first = torch.cat([p.grad for p in params])
    out = p4reduce_hook(state, _Bucket(params)).wait()
    sent = state.agent.seen[0]
    residual = torch.cat([state.feedback.residual(("param", p.data_ptr(), p.numel())) for p in params])
    assert torch.equal(sent + residual, first) and state.blocks_dropped > 0
    assert torch.equal(out, sent)  # (sent + sent) / 2
    # next step, parameters in the other order (a rebuilt bucket): the residuals follow them
    for p in params:
        p.grad.normal_(0, 1e-4)
    grads = [p.grad.clone() for p in params]
    p4reduce_hook(state, _Bucket(params[::-1], index=0)).wait()
    sent2 = state.agent.seen[1]
    new_residual = torch.cat(
        [
            r
            if (r := state.feedback.residual(("param", p.data_ptr(), p.numel()))) is not None
            else torch.zeros(p.numel())
            for p in params[::-1]
        ]
    )
    expected = torch.cat([g + r for g, r in zip(grads[::-1], [residual[600:], residual[:600]], strict=True)])
    assert torch.equal(sent2 + new_residual, expected)
    state.close()


# -- training on 2 processes -------------------------------------------------------------------
def _train_rank(rank: int, world: int, address, steps: int) -> dict:
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    import p4reduce.torch as p4torch
    from p4reduce.hostagent import HostAgent, WorkerConfig
    from p4reduce.torch.ddp_hook import P4ReduceHookState, p4reduce_hook

    items, dim, batch, per_user = 300, 16, 64, 8

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.items = nn.EmbeddingBag(items, dim, mode="sum")
            self.mlp = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 1))

        def forward(self, ids, offsets):
            return self.mlp(self.items(ids, offsets)).squeeze(-1)

    dist.init_process_group("gloo", rank=rank, world_size=world)
    lossy_group = dist.new_group(
        backend="p4reduce", pg_options=p4torch.Options(lossy_threshold=THRESHOLD, block_size=BLOCK, num_slots=64)
    )

    def train(how: str) -> tuple[list[float], int, int]:
        torch.manual_seed(0)
        model = DDP(Model(), process_group=lossy_group if how == "backend" else None)
        state = None
        if how in ("hook", "no-feedback"):
            job = 1 if how == "hook" else 2
            agent = HostAgent(
                WorkerConfig(
                    job, rank, world, aggregator=address, block_size=BLOCK, num_slots=64, slot_base=64 * (job - 1)
                )
            )
            state = P4ReduceHookState(agent, lossy_threshold=THRESHOLD)
            model.register_comm_hook(state, p4reduce_hook)
        opt = torch.optim.SGD(model.parameters(), lr=1.0)
        g = torch.Generator().manual_seed(1000 + rank)
        losses = []
        for _ in range(steps):
            ids = torch.randint(0, items, (batch * per_user,), generator=g)
            offsets = torch.arange(0, batch * per_user, per_user)
            labels = ((ids.view(batch, per_user) % 7 == 0).float().mean(1) > 0.14).float()
            opt.zero_grad()
            loss = nn.functional.binary_cross_entropy_with_logits(model(ids, offsets), labels)
            loss.backward()
            opt.step()
            if how == "no-feedback":
                state.feedback._residuals.clear()  # what lossy mode would be without error feedback
            losses.append(loss.item())
        if state is not None:
            state.close()
            state.agent.close()
            return losses, state.blocks_dropped, state.feedback.blocks_seen
        stats = p4torch.stats(lossy_group) if how == "backend" else None
        return losses, stats.blocks_dropped if stats else 0, stats.blocks_offered if stats else 0

    out = {how: train(how) for how in ("gloo", "hook", "backend", "no-feedback")}
    dist.destroy_process_group()
    return out


def test_lossy_training_reaches_gloo_loss_within_the_margin():
    from p4reduce.aggregator import AggregatorServer, JobSpec
    from p4reduce.torch.launch import run_ranks

    steps = 300
    server = AggregatorServer(
        [JobSpec(1, 2, block_size=BLOCK, num_slots=64), JobSpec(2, 2, block_size=BLOCK, num_slots=64, slot_base=64)],
        port=0,
    ).start()
    try:
        ranks = run_ranks(_train_rank, 2, args=(server.address, steps), timeout=300)
    finally:
        server.stop()

    def final(how: str) -> float:
        return sum(sum(r[how][0][-FINAL_STEPS:]) for r in ranks) / (2 * FINAL_STEPS)

    first = sum(sum(r["gloo"][0][:FINAL_STEPS]) for r in ranks) / (2 * FINAL_STEPS)
    gloo = final("gloo")
    assert first - gloo > 0.1, (first, gloo)  # the model does learn
    report = {how: (final(how), ranks[0][how][1], ranks[0][how][2]) for how in ("hook", "backend", "no-feedback")}
    print(f"gloo: first {first:.4f} final {gloo:.4f}; (final loss, blocks dropped, non-zero blocks) {report}")
    for how in ("hook", "backend"):
        loss, dropped, offered = report[how]
        assert abs(loss - gloo) <= LOSS_MARGIN, (how, gloo, report)
        assert dropped >= 0.25 * offered > 0, (how, report)  # lossy mode did leave blocks out
    assert report["no-feedback"][0] - gloo > LOSS_MARGIN, (gloo, report)  # feedback is what keeps it close
