# SPDX-License-Identifier: Apache-2.0
"""The committed BF Runtime stubs are what controller/bfrt/bfruntime.proto compiles to, and
they speak BF Runtime's service path."""

from __future__ import annotations

import pytest

from p4reduce.controller.bfrt import bfruntime_pb2 as pb
from p4reduce.controller.bfrt import generate


def test_stubs_are_up_to_date(tmp_path):
    try:
        import grpc_tools  # noqa: F401
    except ImportError:
        pytest.skip("grpc_tools (grpcio-tools) is not installed: the stubs cannot be compiled here")
    generate.compile_stubs(tmp_path)
    for name in generate.STUBS:
        assert (generate.HERE / name).read_text() == (tmp_path / name).read_text(), (
            f"controller/bfrt/{name} differs from what bfruntime.proto compiles to: "
            "run `python -m p4reduce.controller.bfrt.generate`"
        )


def test_the_service_and_field_numbers_are_bf_runtimes():
    # The method path and a few field numbers of the SDE's bfruntime.proto: what makes
    # these messages the same bytes as the switch's.
    service = pb.DESCRIPTOR.services_by_name["BfRuntime"]
    assert service.full_name == "bfrt_proto.BfRuntime"
    assert set(service.methods_by_name) == {
        "Write",
        "Read",
        "SetForwardingPipelineConfig",
        "GetForwardingPipelineConfig",
        "StreamChannel",
    }
    numbers = {
        ("WriteRequest", "p4_name"): 5,
        ("TableEntry", "table_flags"): 9,
        ("TableEntry", "entry_tgt"): 8,
        ("DataField", "bool_val"): 8,
        ("DataField", "int_arr_val"): 5,
        ("StreamMessageRequest", "subscribe"): 2,
        ("StreamMessageResponse", "subscribe"): 1,
        ("SetForwardingPipelineConfigRequest", "config"): 6,
        ("GetForwardingPipelineConfigResponse", "non_p4_config"): 2,
    }
    for (message, field), number in numbers.items():
        assert pb.DESCRIPTOR.message_types_by_name[message].fields_by_name[field].number == number
