"""What a version-1 display board is sent in place of what version 1 does not have.

The publisher keeps the board's picture in the current version's messages; a board that
announced version 1 (docs/protocols/display.md, "Versions") would refuse two of them, so the
driver translates each command on its way out:

* ``ShowLimits`` in minor units with ``minor_digits`` becomes the version-1 ``ShowLimits`` in
  whole units of the currency: a minimum rounded up, a maximum rounded down, so the sign never
  invites a bet the table refuses (10.50-5,000.00 is shown 11-5,000);
* ``ShowWarResult`` (a Casino War round) becomes a banner line
  (:func:`drivers.codec.display.war_banner_line`), which a version-1 board has. The banner is
  one part of the screen with two users, so this keeps both: a banner the station raises
  (offline, paused, void) is shown over the war line and the war line comes back when it is
  taken down; a baccarat result or ``Clear`` ends the war line, as a new result replaces the
  last on a version-2 board.

Everything else is the same in both versions and passes as it is.
"""

from __future__ import annotations

from drivers.codec import display as wire
from drivers.codec.protocol import Message


def whole_units(amount: int, minor_digits: int, *, round_up: bool) -> int:
    """``amount`` minor units in whole units of the currency, rounded up or down."""
    unit: int = 10**minor_digits
    return -(-amount // unit) if round_up else amount // unit


def limits_v1(limits: wire.ShowLimits) -> wire.ShowLimits:
    """The version-1 limits sign for ``limits`` (whole units; no ``minor_digits``)."""
    digits = limits.minor_digits
    return wire.ShowLimits(
        whole_units(limits.table_min, digits, round_up=True),
        whole_units(limits.table_max, digits, round_up=False),
        whole_units(limits.tie_min, digits, round_up=True),
        whole_units(limits.tie_max, digits, round_up=False),
        whole_units(limits.pair_min, digits, round_up=True),
        whole_units(limits.pair_max, digits, round_up=False),
        limits.currency,
    )


class BoardV1:
    """The translation for one version-1 board: what its banner should show and shows."""

    def __init__(self) -> None:
        self._banner = ""  # the station's banner (players' notices)
        self._war_line = ""  # the last Casino War round, while it is the board's last result
        self._shown: str | None = ""  # what the board's banner shows; None: unknown (a send failed)

    def translate(self, message: Message) -> list[Message]:
        """The version-1 commands that show ``message`` (none when the board shows it already)."""
        match message:
            case wire.ShowLimits():
                return [limits_v1(message)]
            case wire.ShowWarResult():
                self._war_line = wire.war_banner_line(message)
                return self._banner_line()
            case wire.ShowResult():
                self._war_line = ""
                return [message, *self._banner_line()]
            case wire.ShowMessage(text=text):
                self._banner = text
                return self._banner_line()
            case wire.Clear():
                self._banner = self._war_line = self._shown = ""
                return [message]
        return [message]

    def sent(self, message: Message, ok: bool) -> None:
        """Note whether ``message`` (one of :meth:`translate`'s) reached the board."""
        if isinstance(message, wire.ShowMessage):
            self._shown = message.text if ok else None

    def _banner_line(self) -> list[Message]:
        wanted = self._banner or self._war_line
        return [] if wanted == self._shown else [wire.ShowMessage(wanted)]
