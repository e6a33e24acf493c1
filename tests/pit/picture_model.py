"""A viewer of the pit's picture protocol (docs/pit.md, version 2), as a page applies it:
a whole picture replaces what it holds; a delta applies only to the version it names, and a
delta for another version is a gap (the page then asks for a whole picture)."""

from __future__ import annotations

import json
from typing import Any


class ViewModel:
    """What one viewer of one view holds: ``version``, ``head``, and the view's tables (pit
    and all views) or pits and directory (the floor)."""

    def __init__(self) -> None:
        self.version: int | None = None
        self.head: dict[str, Any] = {}
        self.tables: dict[str, dict[str, Any]] = {}
        self.order: list[str] = []
        self.pits: dict[str, dict[str, Any]] = {}
        self.directory: dict[str, dict[str, Any]] = {}
        self.gaps = 0

    def apply(self, event: str, data: bytes | str) -> bool:
        """Take one event; False when it is a delta this viewer cannot apply (a gap)."""
        picture = json.loads(data)
        assert picture["v"] == 2
        if event == "whole":
            self.version, self.head = picture["version"], picture["head"]
            if picture["view"] == "floor":
                self.pits = {p["pit"]: p for p in picture["pits"]}
                self.order = [p["pit"] for p in picture["pits"]]
                self.directory = {e["table"]: e for e in picture["directory"]}
            else:
                self.tables = {t["table"]: t for t in picture["tables"]}
                self.order = [t["table"] for t in picture["tables"]]
            return True
        assert event == "delta", event
        if picture["base"] != self.version:
            self.gaps += 1
            return False
        self.version = picture["version"]
        self.head = picture.get("head", self.head)
        for table in picture.get("removed", ()):
            del self.tables[table]
        self.tables.update((t["table"], t) for t in picture.get("tables", ()))
        for pit in picture.get("pits_removed", ()):
            del self.pits[pit]
        self.pits.update((p["pit"], p) for p in picture.get("pits", ()))
        for table in picture.get("directory_removed", ()):
            del self.directory[table]
        self.directory.update((e["table"], e) for e in picture.get("directory", ()))
        self.order = picture.get("order", self.order)
        return True

    def picture(self) -> dict[str, Any]:
        """What the viewer holds, in the view's order, to compare with a whole picture."""
        if self.pits or self.directory:
            return {"version": self.version, "head": self.head, "pits": [self.pits[p] for p in self.order],
                    "directory": dict(sorted(self.directory.items()))}
        return {"version": self.version, "head": self.head, "tables": [self.tables[t] for t in self.order]}


def events(stream: bytes) -> list[tuple[str, bytes]]:
    """The (event, data) pairs of Server-Sent Events in ``stream`` (comments and retry left out)."""
    found = []
    for block in stream.split(b"\n\n"):
        event, data = "", b""
        for line in block.split(b"\n"):
            if line.startswith(b"event: "):
                event = line[7:].decode()
            elif line.startswith(b"data: "):
                data = line[6:]
        if event:
            found.append((event, data))
    return found
