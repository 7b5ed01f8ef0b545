# SPDX-License-Identifier: Apache-2.0
"""Experiment tools: synthetic tensors, impairments (loopback relay, network
namespaces), BMv2 launch, result files, executable models of the switch programs
(switch_model: v1model; tna_model: TNA; model_common: what they share) and the replay of
p4testgen's STF tests against the v1model one (stf, stf_replay).
Used by tests, benchmarks and Mininet scripts; the core layers never import it."""
