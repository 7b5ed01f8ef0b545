# SPDX-License-Identifier: Apache-2.0
"""Secret files (key files, tokens, TLS keys): only regular files, a size bound, a warning
when others can read them; the job key file reads through the same check."""

from __future__ import annotations

import logging
import os
import pathlib
import threading

import pytest

from p4reduce.protocol.auth import JobKey
from p4reduce.secretfile import MAX_SECRET_BYTES, SecretFileError, read_secret


def _private(path: pathlib.Path, data: bytes) -> pathlib.Path:
    path.write_bytes(data)
    path.chmod(0o600)
    return path


def test_reads_a_private_regular_file_without_warning(tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture) -> None:
    path = _private(tmp_path / "k", b"x" * 32)
    with caplog.at_level(logging.WARNING):
        assert read_secret(path) == b"x" * 32
    assert not caplog.records


def test_a_fifo_is_refused_at_once(tmp_path: pathlib.Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []
    reader = threading.Thread(target=lambda: _catch(outcome, fifo), daemon=True)
    reader.start()
    reader.join(timeout=60)  # a blocking open would never return: bounded, not timed
    assert not reader.is_alive(), "reading a FIFO blocked"
    assert isinstance(outcome[0], SecretFileError)
    assert "not a regular file (a FIFO)" in str(outcome[0])


def _catch(outcome: list[BaseException], path: pathlib.Path) -> None:
    try:
        read_secret(path, "key file")
    except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
        outcome.append(exc)


def test_a_device_is_refused_before_reading() -> None:
    with pytest.raises(SecretFileError, match=r"/dev/zero: not a regular file \(a character device\)"):
        read_secret("/dev/zero", "key file")


def test_a_directory_and_a_missing_file_are_named(tmp_path: pathlib.Path) -> None:
    with pytest.raises(SecretFileError, match="a directory"):
        read_secret(tmp_path)
    with pytest.raises(SecretFileError, match=f"{tmp_path / 'none'}: No such file"):
        read_secret(tmp_path / "none")


def test_a_large_file_is_refused(tmp_path: pathlib.Path) -> None:
    path = _private(tmp_path / "big", b"\0" * (MAX_SECRET_BYTES + 1))
    with pytest.raises(SecretFileError, match="more than the 65536"):
        read_secret(path)


def test_a_file_others_can_read_is_taken_with_a_warning(
    tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "open.key"
    path.write_bytes(b"y" * 32)
    path.chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="p4reduce.secretfile"):
        key = JobKey.from_file(path)
    assert key.mac(b"abc") == JobKey.from_file(path).mac(b"abc")
    assert any("can be read by its group or others (mode 644)" in r.getMessage() for r in caplog.records)


def test_job_key_files_refuse_fifos_and_devices(tmp_path: pathlib.Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for bad in (fifo, pathlib.Path("/dev/zero")):
        with pytest.raises(ValueError, match="key file .*not a regular file"):
            JobKey.from_file(bad)
