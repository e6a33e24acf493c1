"""The ``station`` command line. Each sub-command lives in its own module under
:mod:`station.cli.commands` and registers itself, so adding a command never edits a shared
list."""
