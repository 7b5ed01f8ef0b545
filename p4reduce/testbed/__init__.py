# SPDX-License-Identifier: Apache-2.0
"""Experiment tools: synthetic tensors, impairments (loopback relay, network
namespaces), BMv2 launch, result files, an executable model of the switch program
(switch_model) and the replay of p4testgen's STF tests against it (stf, stf_replay).
Used by tests, benchmarks and Mininet scripts; the core layers never import it."""
