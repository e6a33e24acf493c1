"""Pure codecs: framing, message layouts and one protocol per serial device.

:data:`PROTOCOLS` is the list of the protocols the station speaks, by name. It is written out
here rather than filled in by each module as it is imported: a protocol module imports only
the framing and the message base (:mod:`drivers.codec.protocol`), never this package, so
there is no import cycle and no protocol that exists only if someone happened to import it.
A vendor's protocol is one more :class:`Protocol` in the list.
"""

from drivers.codec.buttonbox import BUTTONBOX
from drivers.codec.chipreader import CHIPREADER
from drivers.codec.display import DISPLAY
from drivers.codec.protocol import (
    CodecError,
    Message,
    NotInVersion,
    Packet,
    Protocol,
    StreamCodec,
)
from drivers.codec.shoe import SHOE
from drivers.codec.shuffler import SHUFFLER
from drivers.codec.sign import SIGN

PROTOCOLS: dict[str, Protocol] = {
    protocol.name: protocol for protocol in (SHOE, SHUFFLER, DISPLAY, BUTTONBOX, SIGN, CHIPREADER)
}


def get_protocol(name: str) -> Protocol:
    """The protocol ``name`` (``shoe``, ``shuffler``, ``display``, ``buttonbox``, ``sign``, ``chipreader``)."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise KeyError(f"no protocol {name!r}; known: {sorted(PROTOCOLS)}") from None


def protocol_names() -> list[str]:
    return sorted(PROTOCOLS)


__all__ = [
    "PROTOCOLS",
    "CodecError",
    "Message",
    "NotInVersion",
    "Packet",
    "Protocol",
    "StreamCodec",
    "get_protocol",
    "protocol_names",
]
