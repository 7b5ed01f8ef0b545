# SPDX-License-Identifier: Apache-2.0
"""The controller's configuration loader under arbitrary documents (issue 19, point 7):
whatever a JSON or YAML file holds -- keys of mixed types, deep nesting, huge integers,
binary, tags, garbage -- the only exception is ConfigError, in one line."""

from __future__ import annotations

import json
import pathlib

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_controller_config import BASE

from p4reduce.controller.config import ConfigError, load_config, parse_config

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**64, max_value=2**4000),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.sampled_from(["jobs", "switch", "workers", "mac", "02:00:00:00:00:01", "10.0.0.1", "dense", "127.0.0.1:9559"]),
)
_KEYS = st.one_of(
    st.text(max_size=10),
    st.integers(),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.sampled_from(
        [
            "jobs",
            "switch",
            "l2",
            "broadcast",
            "extra",
            "job_id",
            "workers",
            "slot_base",
            "num_slots",
            "worker_id",
            "port",
            "mac",
            "ip",
            "udp_port",
        ]
    ),
)
_DOCS = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=30,
)


def _mutated_base(data: st.DataObject) -> dict:
    """The valid example with one value or key replaced by something arbitrary."""
    doc = json.loads(json.dumps(BASE))
    node = doc
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = data.draw(st.sampled_from(keys))
        child = node[key]
        if not isinstance(child, (dict, list)) or not child or data.draw(st.booleans()):
            break
        node = child
    if isinstance(node, dict) and data.draw(st.booleans()):
        node[data.draw(_KEYS)] = node.pop(key)
    else:
        node[key] = data.draw(_DOCS)
    return doc


def _check(path: pathlib.Path) -> None:
    try:
        load_config(path)
    except ConfigError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 2000


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_document_raises_only_config_error(data, tmp_path):
    doc = _mutated_base(data) if data.draw(st.booleans()) else data.draw(_DOCS)
    kind = data.draw(st.sampled_from(["yaml", "json"]))
    path = tmp_path / f"config.{kind}"
    if kind == "yaml":
        path.write_text(yaml.dump(doc, allow_unicode=True), encoding="utf-8")  # binary, tags, sets
    else:
        try:
            path.write_text(json.dumps(doc, default=repr), encoding="utf-8")
        except ValueError:  # an integer too long for str(): write digits by hand
            path.write_text("[" + "9" * 5000 + "]", encoding="utf-8")
    _check(path)
    try:
        parse_config(doc)  # the same document handed in as Python data
    except ConfigError:
        pass


HOSTILE_FILES = [
    "[" * 200_000 + "]" * 200_000,  # deeper than the parsers' recursion
    '{"jobs": ' * 50_000 + "1" + "}" * 50_000,
    "- " * 5_000 + "x",
    "&a [*a]",  # a YAML alias of itself
    "!!python/object/apply:os.system ['true']",  # refused by the safe loader
    "{? [1, 2] : 3}",  # a list as a key
    "{1: 2, '1': 3, null: 4, 1.5: 5}",  # keys of mixed types
    "jobs: [{job_id: " + "9" * 5000 + "}]",
    "jobs: !!binary aGVsbG8=",
    "jobs: !!set {a, b}",
    "\x00\x01\x02",
]


@pytest.mark.parametrize("text", HOSTILE_FILES, ids=[f"file{i}" for i in range(len(HOSTILE_FILES))])
@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_hostile_files_raise_only_config_error(text, suffix, tmp_path):
    path = tmp_path / f"config{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError):
        load_config(path)
