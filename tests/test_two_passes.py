"""The second pass's list names modules that exist, and picks each timeline
model once."""

from pathlib import Path
from types import SimpleNamespace

from tests.conftest import THROUGH_THE_DRIVER, _in_second_pass

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_the_second_pass_runs_exists():
    assert sorted(name for name in THROUGH_THE_DRIVER if not (ROOT / name).is_file()) == []


def test_the_second_pass_runs_each_model_once():
    def item(**params):
        return SimpleNamespace(
            nodeid="tests/feeds/test_fanout.py::t", callspec=SimpleNamespace(params=params)
        )

    chosen = {
        (model, embed)
        for model in ("read", "cache", "month", "size")
        for embed in (False, True)
        if _in_second_pass(item(model=model, embed=embed))
        and _in_second_pass(item(variant=(model, embed)))
    }
    assert {model for model, _ in chosen} == {"read", "cache", "month", "size"}
    assert {embed for _, embed in chosen} == {False, True} and len(chosen) == 4
    assert _in_second_pass(item(store="buckets"))
    assert not _in_second_pass(SimpleNamespace(nodeid="tests/feeds/test_visibility.py::t"))


def test_the_query_plans_go_through_the_driver_only_where_a_planner_explains(monkeypatch):
    plans = SimpleNamespace(nodeid="tests/test_query_plans.py::t")
    monkeypatch.setenv("SOCIALSITE_PASS2_PLANNER", "0")  # mongoeco's wire servers
    assert not _in_second_pass(plans)
    monkeypatch.setenv("SOCIALSITE_PASS2_PLANNER", "1")  # a MongoDB of your own
    assert _in_second_pass(plans)
