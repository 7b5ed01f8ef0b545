import json
import subprocess
import sys

import pytest

from p4reduce.cli import main


def test_demo_checks_result_and_reports(capsys):
    assert main(["demo", "--workers", "3", "--elements", "5000", "--density", "0.2",
                 "--block-size", "64", "--slots", "8", "--iterations", "2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["workers"] == 3 and 0 < summary["block_density"] < 0.6
    assert summary["wire_bytes_per_worker"] < 5000 * 4
    assert summary["aggregator"]["completed"] > 0


def test_demo_int32_dense_with_loss(capsys):
    assert main(["demo", "--workers", "2", "--elements", "3000", "--dtype", "int32",
                 "--mode", "dense", "--block-size", "32", "--slots", "4", "--loss", "0.05",
                 "--iterations", "2"]) == 0
    assert "result check      : OK" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["worker", "--aggregator", "127.0.0.1:9", "--job", "1", "--rank", "4", "--workers", "2"],
     "worker_id 4 outside"),
    (["aggregator", "--job", "1:99"], "num_workers 99"),
])
def test_bad_arguments_give_clear_errors(capsys, argv, message):
    assert main(argv) == 1
    assert message in capsys.readouterr().err


def test_aggregator_and_workers_as_separate_processes(tmp_path):
    """The multi-host path: `p4reduce aggregator` + `p4reduce worker` processes."""
    agg = subprocess.Popen([sys.executable, "-m", "p4reduce", "aggregator", "--bind",
                            "127.0.0.1:0", "--job", "7:2:block_size=16,num_slots=4"],
                           stdout=subprocess.PIPE, text=True)
    try:
        banner = agg.stdout.readline()
        port = int(banner.split(" on ")[1].split()[0].rsplit(":", 1)[1])
        outs = [tmp_path / f"r{r}.npy" for r in range(2)]
        workers = [subprocess.Popen([sys.executable, "-m", "p4reduce", "worker", "--aggregator",
                                     f"127.0.0.1:{port}", "--job", "7", "--rank", str(r),
                                     "--workers", "2", "--block-size", "16", "--slots", "4",
                                     "--elements", "500", "--dtype", "int32",
                                     "--output", str(outs[r])], stdout=subprocess.PIPE, text=True)
                   for r in range(2)]
        for w in workers:
            assert w.wait(timeout=60) == 0
        import numpy as np

        from p4reduce.testbed.synthetic import worker_tensor
        expected = sum(worker_tensor(0, r, 500, 16, 0.1, "int32") for r in range(2))
        for path in outs:
            np.testing.assert_array_equal(np.load(path), expected)
    finally:
        agg.terminate()
        agg.wait(timeout=10)
    assert '"completed"' in agg.stdout.read()
