import copy
import json

import pytest

from controller.config import ConfigError, load_config

from sample_config import GOOD, W


def test_good_config_json_and_yaml(tmp_path):
    cfg = load_config(GOOD)
    assert [j.mgid for j in cfg.jobs] == [2, 9] and cfg.jobs[0].num_workers == 2
    (tmp_path / "c.json").write_text(json.dumps(GOOD))
    import yaml
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(GOOD))
    assert load_config(tmp_path / "c.json") == cfg == load_config(tmp_path / "c.yaml")


def _bad(mutate):
    cfg = copy.deepcopy(GOOD)
    mutate(cfg)
    return cfg


@pytest.mark.parametrize("mutate, message", [
    (lambda c: c["jobs"][0]["workers"].append(dict(W[1], port=9, udp_port=1)), "duplicate worker_id 1"),
    (lambda c: c["jobs"][1]["workers"].append(dict(W[0], worker_id=1)), "already used by job 1 worker 0"),
    (lambda c: c["jobs"][0].update(workers=[dict(W[0], worker_id=i, udp_port=i + 1) for i in range(33)]),
     "at most 32"),
    (lambda c: c["jobs"][0].update(num_slots=2000), "num_slots"),
    (lambda c: c["jobs"][0].update(slot_base=1020, num_slots=8), "exceed"),
    (lambda c: c["jobs"][1].update(slot_base=8), "overlaps job 1"),
    (lambda c: c["jobs"][0].update(mode="sparse"), "only runs 'dense'"),
    (lambda c: c["jobs"][1].update(job_id=1), "duplicate job_id 1"),
    (lambda c: c["jobs"][1].update(mgid=2), "mgid 2 already used"),
    (lambda c: c["jobs"][0]["workers"][0].update(mac="zz:00"), "not a MAC"),
    (lambda c: c["jobs"][0]["workers"][0].update(ip="10.0.0.300"), "not an IPv4"),
    (lambda c: c["jobs"][0].update(colour="red"), "unknown key"),
    (lambda c: c["jobs"][0]["workers"][1].update(worker_id=5), "must be 0..1"),
    (lambda c: c.update(broadcast={"mgid": 9, "ports": [1]}), "mgid 9 already used"),
])
def test_bad_configs_name_the_problem(mutate, message):
    with pytest.raises(ConfigError, match=message):
        load_config(_bad(mutate))


def test_unreadable_and_invalid_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
    (tmp_path / "x.json").write_text("{nope")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_config(tmp_path / "x.json")
