# SPDX-License-Identifier: Apache-2.0
"""Experiment tools: synthetic tensors, impairments (loopback relay, network
namespaces), BMv2 launch, result files. Used by tests, benchmarks and Mininet
scripts; the core layers never import it."""
