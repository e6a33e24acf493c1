"""What a person's terminal holds: lines of text fitted to its width.

A line longer than the terminal wraps at its edge, in the middle of a word or a column; a
report read through a pipe, in a mail or on a pit's printer is read at 100 columns. Text for a
person is fitted here: wrapped between words, each continuation indented under where its
line's text began, so the columns to its left still read as columns. Standard output as
``--json`` never is.
"""

from __future__ import annotations

import re
import shutil
import sys
import textwrap
from collections.abc import Iterable

#: The width of a report through a pipe or into a file.
WIDTH = 100

#: Where a line's text begins when it is laid out as columns: after its first gap of two spaces
#: or more (``  test         longest streak …``); a line without one continues under its start.
_COLUMN_GAP = re.compile(r"^(\s*\S.*?\s{2,})\S")


def output_width() -> int:
    """The terminal's width when standard output is one, else :data:`WIDTH`."""
    if sys.stdout.isatty():
        return max(40, shutil.get_terminal_size((WIDTH, 24)).columns)
    return WIDTH


def hanging(prefix: str, text: str, width: int, *, indent: int | None = None) -> list[str]:
    """``prefix`` then ``text`` wrapped to ``width``, its continuations under the text (or
    ``indent`` columns in, when the columns before the text leave it too little room)."""
    under = len(prefix) if indent is None else indent
    wrapped = textwrap.wrap(prefix + text, width, initial_indent="", subsequent_indent=" " * under,
                            break_on_hyphens=False, break_long_words=False)
    if not wrapped or not wrapped[0].startswith(prefix.rstrip()):
        return [prefix + text]
    return wrapped


def fitted(lines: Iterable[str], width: int) -> list[str]:
    """Each line wrapped to ``width`` (one that fits is left alone), its continuations under
    where its text begins (:data:`_COLUMN_GAP`)."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        column = _COLUMN_GAP.match(line)
        start = column.end(1) if column is not None and column.end(1) < width // 2 else len(line) - len(line.lstrip())
        out += hanging(line[:start], line[start:], width)
    return out
