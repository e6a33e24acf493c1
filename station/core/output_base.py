"""What every output of the table's machine is: a frozen dataclass named by its class, with its
JSON form (:mod:`station.core.outputs` has the outputs).

Apart from :mod:`station.core.outputs` so that the outputs of a table's day
(:mod:`station.core.day_outputs`) subclass it without the two modules importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from station.event_codec import to_plain


@dataclass(frozen=True)
class Output:
    """Base of all outputs; ``kind`` is the class name."""

    kind: ClassVar[str] = "Output"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.kind = cls.__name__

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (cards as codes) for the control socket and the web scoreboard."""
        body = to_plain(self)
        assert isinstance(body, dict)
        return {"type": self.kind, **body}
