"""The state machine's diagram, drawn from the code by ``transitions``' diagram support.

The diagram machine is built from the same table of states and transitions as the running
machine (:mod:`station.core.states`), so ``docs/state-machine.mmd`` cannot drift from the
code: a test regenerates it and compares. Mermaid needs no extra dependency; Graphviz "dot"
text needs the ``graphviz`` Python package (the ``dot`` program is not needed for the text).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from transitions.extensions.diagrams import GraphMachine

from station.core import states as st

TITLE = "Dealing station: shoe and round states"
FORMATS = ("mermaid", "dot")


class DiagramError(RuntimeError):
    """A diagram format that cannot be produced here (the message says what to install)."""


class _DrawnTable:
    """Stands in for the table: the conditions only need to exist to be drawn."""

    get_graph: Callable[[], Any]  # set by transitions' GraphMachine

    def __init__(self) -> None:
        for name in st.RETURNABLE:
            setattr(self, f"back_to_{name}", lambda: False)
        for name in st.PAUSABLE:
            setattr(self, f"resume_to_{name}", lambda: False)


def _graph(engine: Literal["graphviz", "mermaid"]) -> Any:
    model = _DrawnTable()
    GraphMachine(
        model=model,
        states=list(st.STATES),
        transitions=st.transitions_table(),
        initial=st.SHUFFLING,
        auto_transitions=False,
        graph_engine=engine,
        show_conditions=True,
        title=TITLE,
    )
    return model.get_graph()


def render(fmt: str = "mermaid") -> str:
    """The diagram as Mermaid (``stateDiagram-v2``) or Graphviz dot text."""
    if fmt == "mermaid":
        # transitions 0.9.3 writes the styling statement as "Class"; Mermaid's keyword is "class".
        text = str(_graph("mermaid").draw(None)).replace("\n  Class ", "\n  class ")
    elif fmt == "dot":
        try:
            import graphviz  # noqa: F401
        except ImportError:
            raise DiagramError("the dot format needs the graphviz Python package: install the station with "
                                "its diagram extra (pip install 'dealing-station[diagram]')") from None
        text = str(_graph("graphviz").source)
    else:
        raise DiagramError(f"unknown diagram format {fmt!r}: use {' or '.join(FORMATS)}")
    return text if text.endswith("\n") else text + "\n"
