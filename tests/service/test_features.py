"""The order a station's parts stop in (station/service/features.py): by stage, the last started
first within a stage, each once, and one that fails to stop does not keep the others running."""

from __future__ import annotations

from station.service.features import Features, StopStage


def test_features_stop_by_stage_the_last_started_first() -> None:
    stopped: list[str] = []
    features = Features()
    for name, stage in (("floor", StopStage.FEED), ("integrity", StopStage.OUTPUTS), ("devices", StopStage.OUTPUTS),
                        ("shuffler agent", StopStage.INPUTS), ("publisher", StopStage.OUTPUTS),
                        ("control socket", StopStage.INPUTS)):
        features.started(name, stage, lambda name=name: stopped.append(name))  # type: ignore[misc]
    features.close(StopStage.INPUTS)
    assert stopped == ["control socket", "shuffler agent"]
    features.close(StopStage.OUTPUTS)
    assert stopped[2:] == ["publisher", "devices", "integrity"]  # the publisher flushes to the devices first
    features.close(StopStage.OUTPUTS)  # each stops once
    assert features.names() == ["floor"]
    features.close(StopStage.FEED)
    assert stopped[-1] == "floor" and len(stopped) == 6 and features.names() == []


def test_children_begin_to_stop_at_once_and_a_failing_stop_leaves_the_others_stopping() -> None:
    said: list[str] = []
    features = Features()

    def broken() -> None:
        raise OSError("already gone")

    features.started("web scoreboard", StopStage.OUTPUTS, lambda: said.append("web stopped"),
                     lambda: said.append("web asked"))
    features.started("console", StopStage.OUTPUTS, broken, lambda: said.append("console asked"))
    features.started("meters", StopStage.OUTPUTS, lambda: said.append("meters stopped"))
    features.begin_stop()
    assert said == ["console asked", "web asked"]
    features.close(StopStage.OUTPUTS)
    assert said[2:] == ["meters stopped", "web stopped"] and features.names() == []
