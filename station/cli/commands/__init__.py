"""Sub-commands of ``station``. Each module defines ``register(subparsers)``, which adds its
parser and sets ``handler`` (a function taking the parsed arguments and returning an exit
status)."""
