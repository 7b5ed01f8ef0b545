"""P4Runtime controller for the p4reduce switch program (docs/protocol.md section 8).

Modules: config (validated configuration), p4info (name -> id), encoding
(canonical bytestrings), pipeline (the names contract and the entities a
config becomes), client (the P4Runtime session), bmv2 (registers through the
thrift CLI), cli (`python -m controller`).
"""
