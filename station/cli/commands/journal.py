"""``station journal``: verify, export and locate the station's journal.

Surveillance and technicians use these on a live station (they open the file read-only and
never change it) or on a copy taken off the table PC.

Exit status of ``verify``: 0 intact, 1 altered/missing/reordered records (the verdict names
the first bad record), 2 when there is no readable journal at the path.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, Any

from station.cli.exits import Status
from station.cli.main import CliError
from station.journal.location import journal_location
from station.journal.store import JournalBusyError, JournalError, JournalReader
from station.journal.verify import verify


def _configured(args: argparse.Namespace) -> str | None:
    """The journal path from ``--config FILE`` (station.journal), if one was given."""
    if not getattr(args, "config", None):
        return None
    from station.config.errors import ConfigError
    from station.service.config import load_config  # only when asked: keeps the command light

    try:
        return load_config(args.config).config.station.journal or None
    except ConfigError as exc:
        raise CliError(str(exc)) from None


def _path(args: argparse.Namespace) -> tuple[Path, str]:
    return journal_location(args.journal, _configured(args))


def _anchor(text: str) -> tuple[int, str]:
    seq, sep, digest = text.partition(":")
    digest = digest.strip().lower()
    if not sep or not seq.strip().isdigit() or int(seq) < 1:
        raise argparse.ArgumentTypeError(f"expected SEQ:HASH, got {text!r}")
    if len(digest) < 16 or any(c not in "0123456789abcdef" for c in digest):
        raise argparse.ArgumentTypeError("the anchor hash must be at least 16 hex digits")
    return int(seq), digest


def _verify(args: argparse.Namespace) -> int:
    path, _ = _path(args)
    if args.anchors:
        return _verify_anchors(args, path)
    if args.anchor_key or args.table:
        raise CliError("--anchor-key and --table go with --anchors FILE")
    try:
        report = verify(path, anchor=args.anchor, deep=args.deep)
        derived = _replayed(path) if args.deep and report.ok else None
    except JournalError as exc:
        raise CliError(str(exc), status=2) from None
    ok = report.ok and (derived is None or derived.ok)
    if args.json:
        body: dict[str, Any] = {
            "journal": str(path),
            "ok": ok,
            "records": report.records,
            "first_bad_seq": report.first_bad_seq if derived is None or derived.ok else derived.first_bad_seq,
            "problem": report.problem if derived is None or derived.ok else derived.words,
            "last_seq": report.last_seq,
            "last_hash": report.last_hash,
        }
        if derived is not None:
            body["checkpoints"] = {"ok": derived.ok, "compared": derived.checkpoints, "words": derived.words}
        print(json.dumps(body))
    elif derived is not None and not derived.ok:
        print(f"journal {path}: BAD: {derived.words} ({report.records} records in the file)")
    else:
        print(report.verdict(path) + (f"; {derived.words}" if derived is not None else ""))
    return 0 if ok else 1


def _replayed(path: Path) -> Any:
    """``--deep``: the checkpoints against a replay from the first record (station/service/deep_check.py)."""
    from station.cli.progress import Progress
    from station.service.deep_check import deep_check

    with Progress.of_journal("verify --deep: the replay", path) as progress:
        return deep_check(path, progress)


def _verify_anchors(args: argparse.Namespace, path: Path) -> int:
    """``verify --anchors FILE``: the chain, and every anchor of this journal in FILE."""
    from station.journal.anchors import AnchorFileError, check_anchors, read_anchors, read_key

    if args.anchor is not None:
        raise CliError("give --anchor or --anchors, not both (add the anchor to the file)")
    try:
        anchors = read_anchors(args.anchors)
        key = read_key(args.anchor_key) if args.anchor_key else None
    except AnchorFileError as exc:
        raise CliError(str(exc)) from None
    try:
        check = check_anchors(path, anchors, key=key, table=args.table, deep=args.deep)
    except JournalError as exc:
        raise CliError(str(exc), status=2) from None
    report = check.report
    if args.json:
        print(json.dumps({
            "journal": str(path), "ok": check.ok, "records": report.records,
            "first_bad_seq": report.first_bad_seq if not check.ok else None, "problem": check.problem,
            "last_seq": report.last_seq, "last_hash": report.last_hash, "journal_id": check.journal_id,
            "anchors_checked": check.used, "anchors_of_other_journals": check.other_journals,
        }))
    else:
        print(check.verdict(path))
    return 0 if check.ok else 1


def _write_jsonl(path: Path, since: int, out: IO[bytes]) -> int:
    from station.cli.progress import Progress
    from station.journal.seams import chain_records  # the archives of its first records too

    written = 0
    with Progress.of_journal("export", path) as progress:
        for record in chain_records(path, since):
            progress(record.seq)
            line = json.dumps(record.to_dict(), ensure_ascii=False, separators=(",", ":"))
            out.write(line.encode("utf-8") + b"\n")
            written += 1
    return written


def _export(args: argparse.Namespace) -> int:
    path, _ = _path(args)
    try:
        reader = JournalReader(path)
    except JournalError as exc:
        raise CliError(str(exc), status=2) from None
    with reader:
        try:
            if args.output:
                with open(args.output, "wb") as out:
                    count = _write_jsonl(path, args.since, out)
                print(f"exported {count} records to {args.output}", file=sys.stderr)
            else:
                _write_jsonl(path, args.since, sys.stdout.buffer)
                sys.stdout.buffer.flush()
        except JournalError as exc:  # a damaged record part-way: what came before was written
            raise CliError(f"export stopped: {exc}", status=1) from None
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise CliError(f"cannot write {args.output}: {exc.strerror}") from None
    return 0


def _archive(args: argparse.Namespace) -> int:
    """``archive --before DATE``: the finished gaming days before DATE to an archive file."""
    from datetime import date

    from station.service.retention import RetentionError, archive_before

    path, _ = _path(args)
    try:
        before = date.fromisoformat(args.before)
    except ValueError:
        raise CliError(f"--before takes a gaming day written YYYY-MM-DD, not {args.before!r}") from None
    if not path.exists():
        raise CliError(f"no journal at {path}", status=2)
    from station.cli.progress import Progress

    try:
        with Progress.of_journal("archive: copying", path) as progress:
            progress.look_every = 1  # told once per batch of records copied
            archived = archive_before(path, before, progress=progress)
    except RetentionError as exc:
        raise CliError(str(exc)) from None
    except JournalBusyError as exc:  # a station has it open
        raise CliError(str(exc), status=Status.UNAVAILABLE) from None
    except JournalError as exc:
        raise CliError(str(exc)) from None
    print(f"journal {path}: records {archived.first}-{archived.last} (gaming days before {before}) moved to "
          f"{archived.path}; the journal now begins at record {archived.live_from}, a checkpoint")
    return 0


def _where(args: argparse.Namespace) -> int:
    path, source = _path(args)
    state = "exists" if path.exists() else "does not exist yet"
    print(f"{path}  (from {source}; {state})")
    return 0


def _add_location(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--journal", metavar="PATH", help="journal file (overrides $STATION_JOURNAL and the configuration)"
    )
    parser.add_argument(
        "--config", metavar="FILE", help="read the journal path (station.journal) from this configuration file"
    )


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "journal",
        help="verify, export or locate the journal",
        description="Verify, export or locate the station's hash-chained journal (read-only). See docs/journal.md.",
    )
    commands = parser.add_subparsers(dest="journal_command", metavar="ACTION", required=True)

    check = commands.add_parser(
        "verify",
        help="check every record's sequence and hash chain",
        description="Check sequence, hash chain and head checkpoint. Exit 0 intact, 1 bad, 2 no readable journal.",
    )
    _add_location(check)
    check.add_argument(
        "--anchor",
        metavar="SEQ:HASH",
        type=_anchor,
        help="also require record SEQ to have this hash (as printed by an earlier verify): exposes a rewritten journal",
    )
    check.add_argument(
        "--anchors",
        metavar="FILE",
        help="also check every anchor of this journal in FILE (JSON lines, as the floor feed publishes them and "
        "'station floor watch --anchors-out' collects them): exposes a journal rewritten before an anchored point",
    )
    check.add_argument("--anchor-key", metavar="FILE",
                       help="with --anchors: the HMAC key the station signs anchors with; every anchor must match it")
    check.add_argument("--table", metavar="ID", help="with --anchors: use only the anchors of this table id")
    check.add_argument("--deep", action="store_true", help="also run SQLite's integrity_check over the file structure, "
                       "and replay the journal from its first record to compare every checkpoint")
    check.add_argument("--json", action="store_true", help="print the report as one JSON object")
    check.set_defaults(handler=_verify)

    export = commands.add_parser(
        "export",
        help="write records as JSON lines",
        description=(
            "One JSON object per record: seq, time, kind, payload, prev_hash, hash."
            " Does not verify; run verify for that."
        ),
    )
    _add_location(export)
    export.add_argument("--format", choices=["jsonl"], default="jsonl", help="output format (default jsonl)")
    export.add_argument("--since", metavar="SEQ", type=int, default=0, help="only records after this sequence number")
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of standard output")
    export.set_defaults(handler=_export)

    keep = commands.add_parser(
        "archive",
        help="move finished gaming days to an archive file (the chain continues into the journal)",
        description=(
            "Move the records of the gaming days before DATE (in the table's time zone, from [table] timezone "
            "and gaming_day_start) to an archive file beside the journal; the journal then begins at a "
            "checkpoint and its chain continues the archive's. Needs the station stopped (it takes the "
            "writer's lock). verify checks both; recall and export read both. See docs/journal.md."
        ),
    )
    _add_location(keep)
    keep.add_argument("--before", metavar="DATE", required=True, help="the first gaming day to keep, YYYY-MM-DD")
    keep.set_defaults(handler=_archive)

    where = commands.add_parser("path", help="print which journal file the station would use, and why")
    _add_location(where)
    where.set_defaults(handler=_where)
