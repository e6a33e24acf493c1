"""Options of a command taken after its sub-command too: ``station ctl --journal J status --json``
and ``station diag selftest -c FILE`` as well as ``station ctl --json status`` and
``station diag -c FILE selftest``.

argparse takes a parent's options only before the sub-command. A person types them wherever a
flag may stand (the docs did, in ``station diag selftest -c …``), so each sub-command's parser
gets a copy of its parent's options whose default is "not given": given after the sub-command,
an option wins; not given there, the parent's value (or default) stands.
"""

from __future__ import annotations

import argparse
import copy


def options_anywhere(parent: argparse.ArgumentParser) -> None:
    """Give every sub-command of ``parent`` (added by now) the options of ``parent``."""
    actions = [a for a in parent._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]
    for group in parent._actions:
        if not isinstance(group, argparse._SubParsersAction):
            continue
        for child in set(group.choices.values()):
            taken = {option for action in child._actions for option in action.option_strings}
            for action in actions:
                if taken.isdisjoint(action.option_strings):
                    copied = copy.copy(action)
                    copied.default = argparse.SUPPRESS
                    child._add_action(copied)
