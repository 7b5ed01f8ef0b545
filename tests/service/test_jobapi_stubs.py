# SPDX-License-Identifier: Apache-2.0
"""The committed stubs of p4reduce/jobapi are what jobs.proto compiles to."""

from __future__ import annotations

import pytest

from p4reduce.jobapi import generate


def test_stubs_are_up_to_date(tmp_path):
    try:
        import grpc_tools  # noqa: F401
    except ImportError:
        pytest.skip("grpc_tools (grpcio-tools) is not installed: the stubs cannot be compiled here")
    generate.compile_stubs(tmp_path)
    for name in generate.STUBS:
        fresh = (tmp_path / name).read_text()
        assert (generate.HERE / name).read_text() == fresh, (
            f"p4reduce/jobapi/{name} differs from what jobs.proto compiles to: run `python -m p4reduce.jobapi.generate`"
        )
