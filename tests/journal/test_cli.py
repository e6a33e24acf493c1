"""``station journal verify|export|path``, run as a real subprocess on real, tampered journal files."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from station.cli.main import main
from station.journal import Journal, canonical_json
from station.journal.verify import verify

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def station(*args: str | os.PathLike[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "station", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


# --- the tampering the station must expose, checked through the command surveillance runs --


def test_intact_journal_exits_0_with_the_count(journal_of) -> None:
    path = journal_of(20)
    result = station("journal", "verify", "--journal", path)
    assert result.returncode == 0, result.stderr
    assert "intact, 20 records" in result.stdout
    assert result.stdout.count("\n") == 1


def test_payload_byte_flipped_through_sqlite(journal_of, tamper) -> None:
    path = journal_of(20)
    with tamper(path) as conn:
        (payload,) = conn.execute("SELECT payload FROM records WHERE seq = 17").fetchone()
        flipped = payload.replace("9H", "9I")
        assert flipped != payload
        conn.execute("UPDATE records SET payload = ? WHERE seq = 17", (flipped,))
    result = station("journal", "verify", "--journal", path)
    assert result.returncode == 1
    assert "record 17: hash mismatch (altered)" in result.stdout


@pytest.mark.parametrize(
    ("new_byte", "problem"),
    [
        (b"Q", "hash mismatch (altered)"),
        (b"\x00", "payload is not a JSON object (altered)"),  # a raw control character is not JSON
        (b"\xff", "payload is not valid UTF-8 text (altered)"),
    ],
)
def test_payload_byte_flipped_in_the_database_file(journal_of, marker_of, new_byte: bytes, problem: str) -> None:
    path = journal_of(40)
    assert not Path(f"{path}-wal").exists()  # closed cleanly: every record is in the main file
    data = bytearray(path.read_bytes())
    needle = marker_of(23).encode()
    at = data.find(needle)
    assert at >= 0 and data.find(needle, at + 1) == -1
    flip_at = at + needle.index(b"PAYLOAD")
    data[flip_at : flip_at + 1] = new_byte
    path.write_bytes(bytes(data))
    result = station("journal", "verify", "--journal", path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"record 23: {problem}" in result.stdout


def test_json_syntax_byte_flipped_in_the_database_file(journal_of, marker_of) -> None:
    path = journal_of(40)
    data = bytearray(path.read_bytes())
    at = data.find(marker_of(31).encode())
    quote = data.rindex(b'"', 0, at)  # the quote that opens the marker string
    data[quote] = ord("{")
    path.write_bytes(bytes(data))
    result = station("journal", "verify", "--journal", path)
    assert result.returncode == 1
    assert "record 31: payload is not a JSON object (altered)" in result.stdout


def test_deleted_record(journal_of, tamper) -> None:
    path = journal_of(20)
    with tamper(path) as conn:
        conn.execute("DELETE FROM records WHERE seq = 17")
    result = station("journal", "verify", "--journal", path)
    assert result.returncode == 1
    assert "record 17 missing (sequence jumps 16 -> 18)" in result.stdout


def test_swapped_records(journal_of, tamper) -> None:
    path = journal_of(20)
    with tamper(path) as conn:
        rows = {
            seq: rest
            for seq, *rest in conn.execute(
                "SELECT seq, time, kind, payload, prev_hash, hash FROM records WHERE seq IN (8, 9)"
            )
        }
        for seq, other in ((8, 9), (9, 8)):
            conn.execute(
                "UPDATE records SET time = ?, kind = ?, payload = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                (*rows[other], seq),
            )
    result = station("journal", "verify", "--journal", path)
    assert result.returncode == 1
    assert "record 8: previous-hash link broken (reordered or removed)" in result.stdout


def test_cut_tail(journal_of, tamper, capsys: pytest.CaptureFixture[str]) -> None:
    path = journal_of(20)
    with tamper(path) as conn:
        conn.execute("DELETE FROM records WHERE seq = 20")
    assert main(["journal", "verify", "--journal", str(path)]) == 1
    assert "record 20 missing from the end" in capsys.readouterr().out


def test_anchor_option(journal_of, capsys: pytest.CaptureFixture[str]) -> None:
    path = journal_of(10)
    head = verify(path).last_hash
    assert main(["journal", "verify", "--journal", str(path), "--anchor", f"10:{head}"]) == 0
    assert main(["journal", "verify", "--journal", str(path), "--anchor", f"10:{'0' * 64}"]) == 1
    assert "record 10: hash differs from the anchor" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["journal", "verify", "--journal", str(path), "--anchor", "ten:abc"])
    assert exit_info.value.code == 2 and "SEQ:HASH" in capsys.readouterr().err


def test_json_verdict(journal_of, tamper, capsys: pytest.CaptureFixture[str]) -> None:
    path = journal_of(5)
    with tamper(path) as conn:
        conn.execute("UPDATE records SET kind = 'X' WHERE seq = 2")
    assert main(["journal", "verify", "--journal", str(path), "--json"]) == 1
    body = json.loads(capsys.readouterr().out)
    assert body["ok"] is False and body["first_bad_seq"] == 2 and body["records"] == 5


# --- unreadable input: exit 2 with a clear message, nothing created ------------------------


def test_missing_file_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "absent.sqlite3"
    result = station("journal", "verify", "--journal", missing)
    assert result.returncode == 2
    assert f"no journal at {missing}" in result.stderr
    assert not missing.exists()


def test_not_a_journal_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("a shift report, not a journal\n" * 10)
    for action in ("verify", "export"):
        assert main(["journal", action, "--journal", str(text)]) == 2
        assert "is not a journal" in capsys.readouterr().err


def test_a_directory_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["journal", "verify", "--journal", str(tmp_path)]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_unreadable_file_exits_2(journal_of, capsys: pytest.CaptureFixture[str]) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    path = journal_of(3)
    path.chmod(0)
    try:
        assert main(["journal", "verify", "--journal", str(path)]) == 2
        assert "permission denied" in capsys.readouterr().err
    finally:
        path.chmod(0o600)


def test_environment_variable_selects_the_journal(
    journal_of, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = journal_of(4)
    monkeypatch.setenv("STATION_JOURNAL", str(path))
    assert main(["journal", "verify"]) == 0
    assert "intact, 4 records" in capsys.readouterr().out


def test_configuration_file_selects_the_journal(
    journal_of, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from station.config.file import DEFAULT_CONFIG

    path = journal_of(3)
    config = tmp_path / "station.toml"
    text = DEFAULT_CONFIG.read_text()
    assert "[station]" in text
    assert 'journal = ""' in text
    config.write_text(text.replace('journal = ""', f"journal = {json.dumps(str(path))}", 1))
    monkeypatch.delenv("STATION_JOURNAL", raising=False)
    assert main(["journal", "path", "--config", str(config)]) == 0
    assert f"{path}  (from configuration file; exists)" in capsys.readouterr().out
    assert main(["journal", "verify", "--config", str(config)]) == 0


# --- export --------------------------------------------------------------------------------


def test_export_writes_every_record_as_a_json_line(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        written = [journal.append("CardDrawn", {"device": "shoe", "card": c, "note": "é"}) for c in ("AS", "KD", "5C")]
    result = subprocess.run(
        [sys.executable, "-m", "station", "journal", "export", "--format", "jsonl", "--journal", str(path)],
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode("utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [r.to_dict() for r in written]
    assert list(json.loads(lines[0])) == ["seq", "time", "kind", "payload", "prev_hash", "hash"]
    # An export can be re-checked with nothing but json and hashlib.
    prev = "0" * 64
    for line in lines:
        item = json.loads(line)
        framed = canonical_json([item["seq"], item["time"], item["kind"], item["payload"], prev])
        assert hashlib.sha256(framed.encode()).hexdigest() == item["hash"]
        prev = item["hash"]


def test_export_since_and_to_a_file(journal_of, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = journal_of(30)
    out = tmp_path / "out.jsonl"
    assert main(["journal", "export", "--journal", str(path), "--since", "25", "--output", str(out)]) == 0
    assert "exported 5 records" in capsys.readouterr().err
    assert [json.loads(line)["seq"] for line in out.read_text().splitlines()] == [26, 27, 28, 29, 30]


def test_export_stops_with_status_1_at_an_unparseable_record(journal_of, tamper) -> None:
    path = journal_of(10)
    with tamper(path) as conn:
        conn.execute("UPDATE records SET payload = 'garbage' WHERE seq = 6")
    result = station("journal", "export", "--journal", path)
    assert result.returncode == 1
    assert len(result.stdout.splitlines()) == 5
    assert "record 6: payload is not a JSON object" in result.stderr


def test_path_reports_the_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATION_JOURNAL", str(tmp_path / "x.sqlite3"))
    assert main(["journal", "path"]) == 0
    assert capsys.readouterr().out.strip() == f"{tmp_path / 'x.sqlite3'}  (from $STATION_JOURNAL; does not exist yet)"
    assert not (tmp_path / "x.sqlite3").exists()
