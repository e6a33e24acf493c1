"""Low disk space on the journal's file system is heard of once per crossing, before the
journal can no longer be written; the real statvfs is read for the real folder."""

from __future__ import annotations

from pathlib import Path

from station.host.disk import MB, DiskReading, DiskWatch, free_bytes


def poll(watch: DiskWatch) -> DiskReading:
    reading = watch.poll()
    assert reading is not None
    return reading


def test_a_crossing_below_the_threshold_warns_once_and_recovery_is_logged(tmp_path: Path, capsys) -> None:
    free = [900 * MB]
    now = [0.0]
    watch = DiskWatch(tmp_path, threshold_mb=500, interval_s=30, measure=lambda _: free[0], clock=lambda: now[0])
    assert poll(watch).as_dict() == {"free_mb": 900, "low": False}
    free[0] = 100 * MB
    assert poll(watch).free_mb == 900  # not time yet: one statvfs per interval
    for _ in range(3):
        now[0] += 31
        assert poll(watch).low
    free[0] = 800 * MB
    now[0] += 31
    assert not poll(watch).low
    log = capsys.readouterr().out
    assert log.count("disk_space_low") == 1 and log.count("disk_space_recovered") == 1


def test_the_real_file_system_is_measured(tmp_path: Path) -> None:
    assert free_bytes(tmp_path) > 0
    reading = DiskWatch(tmp_path, threshold_mb=0).poll()
    assert reading is not None and not reading.low


def test_a_failed_write_looks_at_once_and_an_empty_disk_is_low_whatever_the_threshold(tmp_path: Path,
                                                                                     capsys) -> None:
    """A journal that filled 2.6 s after start: the timed look was 30 s away, and nothing said
    the disk was full (with the threshold at 0, nothing ever would)."""
    free = [900 * MB]
    now = [0.0]
    watch = DiskWatch(tmp_path, threshold_mb=0, interval_s=30, measure=lambda _: free[0], clock=lambda: now[0])
    assert not poll(watch).low
    free[0] = 0
    now[0] = 2.6
    assert poll(watch).free_mb == 900  # the timed look: not yet
    reading = watch.check_now()  # what the station does when the journal cannot be written
    assert reading is not None and reading.as_dict() == {"free_mb": 0, "low": True}
    assert capsys.readouterr().out.count("disk_space_low") == 1
