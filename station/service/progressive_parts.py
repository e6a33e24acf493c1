"""The progressive's parts beside the core loop (docs/progressive.md): the listener that hears
the other tables of a shared pool on the floor broker, and the sign that shows the meter.

Both are features like any other (:mod:`station.service.features`): the listener posts
inputs, so it stops with the inputs, before the loop; the sign is fed by the loop's outputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog

from station.core import outputs as out
from station.core.tap import LoopTap
from station.service.features import FeatureBase, StopStage

if TYPE_CHECKING:
    from station.config.table import ProgressiveSection
    from station.floor.pool import PoolListener
    from station.floor.settings import FloorSection
    from station.money import Money
    from station.service.sign_picture import SignFeed, SignPicture

log = structlog.get_logger("station.service")

#: What the sign's title line says over the meter.
SIGN_TITLE = "Progressive Jackpot"


class PoolListenerPart(FeatureBase):
    """Hears the pool's other tables on the floor broker (a table whose floor feed is on)."""

    name = "progressive pool"
    stage = StopStage.INPUTS

    def __init__(self, floor: FloorSection, table_id: str, progressive: ProgressiveSection) -> None:
        self.floor, self.table_id, self.progressive = floor, table_id, progressive
        self.listener: PoolListener | None = None

    def start(self) -> None:
        from station.floor.mqtt import BrokerOptions
        from station.floor.pool import PoolListener

        self.listener = PoolListener(BrokerOptions.from_floor(self.floor), self.floor.topic_prefix,
                                     f"{self.table_id}-progressive", self.progressive.pool,
                                     self.progressive.member or self.table_id, self.tap.post)
        self.listener.start()

    def close(self) -> None:
        if self.listener is not None:
            self.listener.stop()
            self.listener = None

    def status(self) -> dict[str, Any]:
        return {"progressive_pool": None if self.listener is None else self.listener.status()}


def sign_picture(view: Any, money: Money, title: str) -> SignPicture:
    """What the sign shows for the progressive as the table's snapshot has it: the meter, or
    the jackpot waiting for its sign-off (its whole amount, and the boxes that won it)."""
    from station.service.sign_picture import SignPicture

    pending = view.get("pending")
    hit = None
    if pending:
        awards = pending["awards"]
        hit = (sum(int(a["amount"]) for a in awards), ", ".join(sorted({str(a["box"]) for a in awards})))
    return SignPicture(title=title, amount=int(view["meter"]), digits=money.digits, currency=money.currency, hit=hit)


class ProgressiveSignPart(FeatureBase):
    """Keeps the progressive sign showing the meter (docs/progressive.md): its picture follows
    the progressive's outputs as the loop makes them (the meter, a jackpot waiting and its
    sign-off), and is painted again in full whenever the sign comes back (the sign's feed,
    :mod:`station.service.sign_picture`)."""

    name = "progressive sign"
    stage = StopStage.OUTPUTS

    def __init__(self, device: Callable[[str], Any], money: Money, title: str) -> None:
        self._device, self.money, self.title = device, money, title
        self.feed: SignFeed | None = None
        self._view: dict[str, Any] | None = None
        self._unsubscribe: Callable[[], None] | None = None

    def attach(self, tap: LoopTap) -> None:
        super().attach(tap)
        view = tap.published.progressive
        self._view = None if view is None else {"meter": view["meter"], "pending": view["pending"]}
        self._unsubscribe = tap.subscribe(self._changed, (out.ProgressiveMeter, out.ProgressiveHit))

    def start(self) -> None:
        from station.service.sign_picture import SignFeed

        sign = self._device("sign")
        if sign is None or self._view is None:
            return
        self.feed = SignFeed(sign)
        self.feed.show(sign_picture(self._view, self.money, self.title))
        self.feed.start()

    def _changed(self, output: out.Output) -> None:
        """On the loop's thread: the meter moved, or a jackpot waits (its awards as valued)."""
        if self._view is None:
            return
        if isinstance(output, out.ProgressiveHit):
            self._view = {"meter": output.meter, "pending": {"awards": list(output.awards)}}
        elif isinstance(output, out.ProgressiveMeter):
            pending = self._view["pending"] if output.pending else None
            self._view = {"meter": output.meter, "pending": pending}
        if self.feed is not None:
            self.feed.show(sign_picture(self._view, self.money, self.title))

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.feed is not None:
            self.feed.stop()
            self.feed = None
