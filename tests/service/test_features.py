"""The one contract of a station's parts (station/service/features.py): every feature is
prepared, attached and started in the list's order (those after READY last), stops by stage,
the last in the list first, each once; one that fails to stop does not keep the others
running, and a start that fails part-way still closes every feature it prepared. The list a
configuration gives (station/service/assembly.py) is checked on the shipped examples."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from station.core.tap import LoopTap
from station.service.assembly import RunOptions, StationSpine, build_features
from station.service.config import load_config
from station.service.dealer_doors import RefusalRecorder
from station.service.features import FeatureBase, Features, StopStage
from tests.shipped import SHIPPED, runnable_copy, shipped_ids


class Recorded(FeatureBase):
    """A feature that writes down each step it is taken through."""

    def __init__(self, name: str, stage: StopStage, said: list[str], *, after_ready: bool = False,
                 fails: str = "") -> None:
        self.name, self.stage, self.after_ready = name, stage, after_ready  # type: ignore[misc]
        self.said, self.fails = said, fails

    def _step(self, step: str) -> None:
        self.said.append(f"{step} {self.name}")
        if step == self.fails:
            raise OSError(f"{self.name} cannot {step}")

    def prepare(self) -> None:
        self._step("prepare")

    def attach(self, tap: LoopTap) -> None:
        self._step("attach")

    def start(self) -> None:
        self._step("start")

    def begin_stop(self) -> None:
        self._step("begin")

    def close(self) -> None:
        self._step("close")

    def status(self) -> dict[str, Any]:
        return {self.name: len(self.said)}


def test_steps_run_in_the_list_s_order_and_those_after_ready_start_last() -> None:
    said: list[str] = []
    features = Features([Recorded("floor", StopStage.FEED, said), Recorded("meters", StopStage.OUTPUTS, said,
                                                                          after_ready=True),
                         Recorded("devices", StopStage.OUTPUTS, said)])
    features.prepare()
    features.attach(None)  # type: ignore[arg-type]
    features.start()
    features.start(after_ready=True)
    assert said == ["prepare floor", "prepare meters", "prepare devices", "attach floor", "attach meters",
                    "attach devices", "start floor", "start devices", "start meters"]
    assert features.status() == {"floor": 9, "meters": 9, "devices": 9}


def test_features_stop_by_stage_the_last_in_the_list_first() -> None:
    said: list[str] = []
    features = Features([Recorded(name, stage, said) for name, stage in (
        ("floor", StopStage.FEED), ("integrity", StopStage.OUTPUTS), ("devices", StopStage.OUTPUTS),
        ("shuffler agent", StopStage.INPUTS), ("publisher", StopStage.OUTPUTS), ("extensions", StopStage.EQUIPMENT),
        ("control socket", StopStage.INPUTS))])
    features.prepare()
    said.clear()
    features.close(StopStage.INPUTS)
    assert said == ["close control socket", "close shuffler agent"]
    features.close(StopStage.OUTPUTS)
    assert said[2:] == ["close publisher", "close devices", "close integrity"]  # the publisher flushes first
    features.close(StopStage.OUTPUTS)  # each stops once
    features.close(StopStage.EQUIPMENT)
    assert features.names() == ["floor"]
    features.close(StopStage.FEED)
    assert said[-2:] == ["close extensions", "close floor"] and len(said) == 7 and features.names() == []


def test_a_failing_stop_leaves_the_others_stopping() -> None:
    said: list[str] = []
    features = Features([Recorded("web scoreboard", StopStage.OUTPUTS, said),
                         Recorded("console", StopStage.OUTPUTS, said, fails="close"),
                         Recorded("meters", StopStage.OUTPUTS, said, fails="begin")])
    features.prepare()
    said.clear()
    features.begin_stop()
    assert said == ["begin meters", "begin console", "begin web scoreboard"]  # the failing one did not stop it
    features.close(StopStage.OUTPUTS)
    assert said[3:] == ["close meters", "close console", "close web scoreboard"] and features.names() == []


def test_a_start_that_fails_part_way_closes_every_feature_prepared() -> None:
    said: list[str] = []
    features = Features([Recorded("floor", StopStage.FEED, said), Recorded("devices", StopStage.OUTPUTS, said,
                                                                          fails="attach"),
                         Recorded("extensions", StopStage.EQUIPMENT, said)])
    features.prepare()
    with pytest.raises(OSError, match="devices cannot attach"):
        features.attach(None)  # type: ignore[arg-type]
    assert features.names() == ["floor", "devices", "extensions"]  # the simulators it forked are closed too
    for stage in StopStage:
        features.close(stage)
    assert said[-3:] == ["close devices", "close extensions", "close floor"]


def _spine(path: Path) -> StationSpine:
    return StationSpine(options=None, journal_path=path, refusals=RefusalRecorder(lambda _e: None),  # type: ignore[arg-type]
                        status=dict, request_stop=lambda reason, failed=False: None, run_began_after=lambda: 0)


@pytest.mark.parametrize("source", SHIPPED, ids=shipped_ids())
def test_each_shipped_configuration_gives_its_features_in_the_start_up_order(source: Path, tmp_path: Path) -> None:
    loaded = load_config(runnable_copy(source, tmp_path).config)
    names = [f.name for f in build_features(loaded, RunOptions(), _spine(tmp_path / "j.sqlite3"))]
    # The start-up's order (docs/architecture.md): the records' keepers before any device opens,
    # the boards before the extensions that play on them, the socket before the console that asks through it.
    # A chip reader's stable reads believe what the journal believes before any device opens.
    expected = ["floor", "integrity", "meters", *(["chip reader"] if loaded.config.chip_reader else []), "devices"]
    expected += ["shuffler agent"] if loaded.config.devices.shuffler is not None else []
    expected += ["web scoreboard"] if loaded.config.web.enabled else []
    expected += ["publisher", "extensions"]
    # A progressive's pool listener hears the broker (a table whose floor feed is on), its sign
    # is fed by the loop: both after the boards, before the control socket.
    expected += ["progressive pool"] if loaded.config.floor.enabled and loaded.config.table.progressive else []
    expected += ["progressive sign"] if loaded.config.devices.sign and loaded.config.table.progressive else []
    assert names == [*expected, "control socket", "console"]
    without = [f.name for f in build_features(loaded, RunOptions(control_socket=False, web_port=0),
                                              _spine(tmp_path / "j.sqlite3"))]
    assert "control socket" not in without and "web scoreboard" in without and without[-1] == "console"
