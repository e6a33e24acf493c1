"""Pure codecs: framing, message layouts and one protocol per device, in a registry.

Importing this package registers the built-in protocols (shoe, shuffler, display,
buttonbox). A vendor protocol is added by building a :class:`Protocol` and calling
:func:`register_protocol`.
"""

from drivers.codec import buttonbox, display, shoe, shuffler  # noqa: F401  (register the protocols)
from drivers.codec.protocol import (
    CodecError,
    Message,
    Packet,
    Protocol,
    StreamCodec,
    get_protocol,
    protocol_names,
    register_protocol,
)

__all__ = [
    "CodecError", "Message", "Packet", "Protocol", "StreamCodec",
    "get_protocol", "protocol_names", "register_protocol",
]
