# SPDX-License-Identifier: Apache-2.0
import argparse
import json
import socket
import time

import numpy as np
import pytest
from conftest import cli_aggregator, run_cli_workers

from p4reduce.cli import main
from p4reduce.testbed.synthetic import worker_tensor


def test_demo_checks_result_and_reports(capsys):
    assert (
        main(
            [
                "demo",
                "--workers",
                "3",
                "--elements",
                "5000",
                "--density",
                "0.2",
                "--block-size",
                "64",
                "--slots",
                "8",
                "--iterations",
                "2",
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["workers"] == 3 and 0 < summary["block_density"] < 0.6
    assert summary["wire_bytes_per_worker"] < 5000 * 4
    assert summary["aggregator"]["completed"] > 0


def test_demo_int32_dense_with_loss(capsys):
    assert (
        main(
            [
                "demo",
                "--workers",
                "2",
                "--elements",
                "3000",
                "--dtype",
                "int32",
                "--mode",
                "dense",
                "--block-size",
                "32",
                "--slots",
                "4",
                "--loss",
                "0.05",
                "--iterations",
                "2",
            ]
        )
        == 0
    )
    assert "result check      : OK" in capsys.readouterr().out


def _exit_code(argv: list[str]) -> int:
    """main()'s return value, or the code argparse exits with."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


WORKER = ["worker", "--aggregator", "127.0.0.1:9", "--job", "1", "--rank", "0", "--workers", "2"]


def _npy(tmp_path, name: str, array=None, raw: bytes | None = None, npz: bool = False) -> str:
    path = tmp_path / name
    if npz:
        with open(path, "wb") as f:
            np.savez(f, a=np.ones(3, np.float32), b=np.ones(2, np.int32))
    elif raw is not None:
        path.write_bytes(raw)
    else:
        np.save(path, array)
    return str(path)


@pytest.mark.parametrize(
    "argv, message",
    [
        (WORKER[:6] + ["4"] + WORKER[7:], "--rank 4 with --workers 2: ranks are 0..1"),
        (["aggregator", "--job", "1:99"], "num_workers 99"),
        (["aggregator", "--job", "70000:2"], "job_id 70000 outside"),
        (["aggregator", "--job", "1:2", "--stats-interval", "-1"], "--stats-interval: -1 outside"),
        (["aggregator", "--job", "1:2", "--bind", "[::1]:48864"], "IPv6 is not supported"),
        (["aggregator", "--job", "1:2:up_job=70000,upstream=127.0.0.1"], "up_job"),
        (WORKER + ["--block-size", "0"], "--block-size: 0 outside"),
        (WORKER + ["--iterations", "0", "--output", "x.npy"], "--iterations: 0 outside"),
        (
            ["worker", "--aggregator", "127.0.0.1:9", "--job", "70000", "--rank", "0", "--workers", "2"],
            "--job: 70000 outside",
        ),
        (["worker", "--aggregator", "[::1]:9", "--job", "1", "--rank", "0", "--workers", "2"], "IPv6 is not supported"),
        (["worker", "--aggregator", "host:99999", "--job", "1", "--rank", "0", "--workers", "2"], "port in 0..65535"),
        (["demo", "--density", "nan"], "--density: nan outside"),
        (["demo", "--multicast", "--loss", "0.1"], "cannot be combined"),
        (["controller", "install", "--config", "/nonexistent.yaml"], "nonexistent.yaml"),
        # each found before anything is sent (the aggregator at 127.0.0.1:9 never answers)
        (
            ["worker", "--aggregator", "127.0.0.1:0", "--job", "1", "--rank", "0", "--workers", "2"],
            "127.0.0.1:0: port 0 is no aggregator's port",
        ),
        (
            ["worker", "--aggregator", "no-such-host.invalid:48864", "--job", "1", "--rank", "0", "--workers", "2"],
            "cannot resolve host 'no-such-host.invalid'",
        ),
        (
            ["aggregator", "--job", "1:2:upstream=no-such-host.invalid,up_job=3,up_rank=0"],
            "--job 1 upstream: cannot resolve host 'no-such-host.invalid'",
        ),
        (WORKER + ["--output", "/"], "--output /: is a folder"),
        (WORKER + ["--output", "/no/such/folder/sum.npy"], "folder '/no/such/folder' does not exist"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(capsys, monkeypatch, argv, message):
    # RFC 6761: .invalid never resolves. Say so at once instead of asking this machine's
    # resolver, which may wait seconds for a DNS server before it says the same.
    real = socket.gethostbyname

    def gethostbyname(host: str) -> str:
        if host.endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host)

    monkeypatch.setattr(socket, "gethostbyname", gethostbyname)
    started = time.monotonic()
    assert _exit_code(argv) == 2
    assert time.monotonic() - started < 5  # no allreduce was tried first
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    "content, message",
    [
        ({"array": np.zeros(0, np.float32)}, "the array is empty"),
        ({"array": np.zeros(4, np.float64)}, "dtype float64"),
        ({"raw": b"not a numpy file"}, "not an .npy file (save the tensor with numpy.save)"),
        ({"npz": True}, "an .npz archive, not one array"),
        # A valid header claiming 2^40 elements over 16 bytes of data: refused without allocating.
        (
            {
                "raw": b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }"
                + b" " * 41
                + b"\n"
                + bytes(16)
            },
            "not a readable .npy file",
        ),
    ],
)
def test_bad_input_files_give_one_line_and_exit_2(tmp_path, capsys, content, message):
    path = _npy(tmp_path, "in.npy", **content)
    assert _exit_code(WORKER + ["--input", path]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert "pickle" not in err


def test_a_rank_outside_the_workers_is_named_by_its_flags(capsys):
    args = [a for a in WORKER]
    for flag, value in (("--rank", "5"), ("--workers", "2")):
        if flag in args:
            args[args.index(flag) + 1] = value
        else:
            args += [flag, value]
    assert _exit_code(args) == 2
    err = capsys.readouterr().err
    assert "--rank 5 with --workers 2: ranks are 0..1" in err and "worker_id" not in err, err


def test_global_options_before_the_subcommand(capsys):
    assert _exit_code(["-v", "controller", "install", "--help"]) == 0
    assert "--p4info FILE" in capsys.readouterr().out


def test_every_option_has_help_and_a_metavar():
    from p4reduce.cli.main import build_parser

    def walk(parser):
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from walk(sub)

    for parser in walk(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) or action.dest == "help":
                continue
            assert action.help, f"{parser.prog} {action.option_strings}: no help"
            takes_value = action.nargs != 0 and action.option_strings
            if takes_value and action.choices is None:
                assert action.metavar, f"{parser.prog} {action.option_strings}: no metavar"


def test_unreachable_switch_is_a_failure_not_a_usage_error(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("switch: {grpc_addr: '127.0.0.1:1'}\njobs: []\n")
    assert _exit_code(["controller", "counters", "--config", str(cfg), "--timeout", "0.5"]) == 1
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("engine", [(), ("--no-udp-offload",), ("--engine", "python")])
def test_aggregator_and_workers_as_separate_processes(tmp_path, engine):
    """The multi-host path: `p4reduce aggregator` + `p4reduce worker` processes."""
    with cli_aggregator("--job", "7:2:block_size=16,num_slots=4", *engine) as (agg, endpoint):
        results = run_cli_workers(endpoint, 7, 2, tmp_path, "--block-size", "16", "--slots", "4")
    expected = sum(worker_tensor(0, r, 500, 16, 0.1, "int32") for r in range(2))
    for result in results:
        np.testing.assert_array_equal(result, expected)
    assert '"completed"' in agg.stdout.read()


@pytest.mark.parametrize("offload", [(), ("--no-udp-offload",)])
def test_workers_with_mtu_sized_datagrams_with_and_without_udp_offload(tmp_path, offload):
    """`p4reduce worker --message-size 1472` (a real link's datagrams: several per flush, the
    case GSO/GRO are for), with offload and with --no-udp-offload: the same exact sums."""
    with cli_aggregator("--job", "8:2:block_size=64,num_slots=32") as (agg, endpoint):
        results = run_cli_workers(
            endpoint,
            8,
            2,
            tmp_path,
            "--block-size",
            "64",
            "--slots",
            "32",
            "--message-size",
            "1472",
            "--elements",
            "20000",
            *offload,
        )
    expected = sum(worker_tensor(0, r, 20000, 64, 0.1, "int32") for r in range(2))
    for result in results:
        np.testing.assert_array_equal(result, expected)


def test_an_authenticated_job_from_the_command_line(tmp_path, capsys):
    key = tmp_path / "job.key"
    key.write_bytes(bytes(range(32)))
    with cli_aggregator("--job", f"7:2:block_size=16,num_slots=4,key_file={key}") as (agg, endpoint):
        results = run_cli_workers(
            endpoint, 7, 2, tmp_path, "--block-size", "16", "--slots", "4", "--key-file", str(key)
        )
    expected = sum(worker_tensor(0, r, 500, 16, 0.1, "int32") for r in range(2))
    for result in results:
        np.testing.assert_array_equal(result, expected)
    short = tmp_path / "short.key"
    short.write_bytes(b"x")
    assert _exit_code(WORKER + ["--key-file", str(short)]) == 2
    assert "short.key: 1 bytes" in capsys.readouterr().err


def test_worker_allreduces_an_input_file(tmp_path):
    """--input with a valid .npy file (any shape) and --output with the name as given."""
    from p4reduce.aggregator import AggregatorServer, JobSpec

    x = np.arange(-300, 300, dtype=np.float32).reshape(20, 30) / 7
    source = _npy(tmp_path, "grad.npy", x)
    out = tmp_path / "sum"  # np.save would have written sum.npy
    with AggregatorServer([JobSpec(4, 1, num_slots=4, block_size=16)], port=0) as srv:
        assert (
            main(
                [
                    "worker",
                    "--aggregator",
                    f"{srv.address[0]}:{srv.address[1]}",
                    "--job",
                    "4",
                    "--rank",
                    "0",
                    "--workers",
                    "1",
                    "--slots",
                    "4",
                    "--block-size",
                    "16",
                    "--input",
                    source,
                    "--output",
                    str(out),
                ]
            )
            == 0
        )
    result = np.load(out)
    assert result.shape == x.shape and result.dtype == np.float32
    np.testing.assert_allclose(result, x, atol=2**-20)
