"""The DDP communication hook trains exactly like gloo (skipped without torch)."""
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch)")
EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "ddp_sparse_embedding.py"


def test_ddp_hook_matches_gloo_losses():
    proc = subprocess.run([sys.executable, str(EXAMPLE), "--workers", "2", "--steps", "8",
                           "--items", "20000", "--log-every", "4", "--tolerance", "1e-5"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "[p4reduce] step    8" in proc.stdout and "block density" in proc.stdout
    assert "max per-step difference" in proc.stdout
