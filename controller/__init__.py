# SPDX-License-Identifier: Apache-2.0
"""P4Runtime controller for the p4reduce switch program (docs/protocol.md section 8).

Modules: config (validated configuration), p4info (name -> id), encoding
(canonical bytestrings), pipeline (the names contract and the entities a
config becomes), client (the P4Runtime session), grpc_log (DEBUG log of every
P4Runtime request), bmv2 (registers over BMv2's thrift port, pure Python).
The command line is p4reduce.cli.controller.
"""
