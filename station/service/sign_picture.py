"""What the progressive sign should show, kept whole, and the feed that keeps the sign showing it.

A progressive sign (docs/protocols/sign.md) shows only what it was told since it last powered
up, and misses whatever was sent while its link was down; and the meter changes with every
wager. So, as for the results display board (:mod:`station.service.board` and its publisher),
the station does not treat the sign as a stream of commands: it keeps the picture the sign
should show (:class:`SignPicture`: the meter, a hit being paid, a line for players) and what it
believes the sign shows, and sends only the differences. A sign that comes back after an outage
or reboots is cleared and painted again in full.

:class:`SignFeed` does the sending on a thread of its own: every command waits for the sign's
ACK, and a sign that has gone away must never hold up whoever updates the meter. Pictures given
faster than the sign acknowledges them are not queued: the feed always sends the newest, so a
busy table's meter is never shown behind the table.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import structlog

from drivers.codec import Message
from drivers.codec import sign as wire
from drivers.devices import DeviceError, DeviceRefused
from drivers.devices.sign import SignDriver, check_amount

log = structlog.get_logger(__name__)

#: Seconds before a command the sign did not take is tried again (a sign that is away is
#: repainted as soon as it answers; this only paces the attempts meanwhile).
RETRY_S = 1.0


def _text_fits(name: str, text: str) -> None:
    if not isinstance(text, str):
        raise TypeError(f"a sign's {name} is text, got {text!r}")
    if len(text.encode("utf-8")) > 255:
        raise ValueError(f"a sign's {name} is at most 255 bytes of UTF-8")


@dataclass(frozen=True)
class SignPicture:
    """Everything the sign should show. The meter: ``title``, ``amount`` (minor units), the
    currency's ``digits`` and ``currency``; no title, no currency and 0 is no meter. ``hit``:
    ``(amount won, box)`` while a jackpot is being paid (shown flashing, with the meter's title,
    digits and currency), else None. ``message``: a line for players ("Closed", "Meter
    offline"), shown over the meter; empty for none. Amounts are integers, checked here, so a
    wrong one fails where it is made, not on the sign's thread."""

    title: str = ""
    amount: int = 0
    digits: int = 0
    currency: str = ""
    hit: tuple[int, str] | None = None
    message: str = ""

    def __post_init__(self) -> None:
        check_amount(self.amount, self.digits)
        for name in ("title", "currency", "message"):
            _text_fits(name, getattr(self, name))
        if self.hit is not None:
            won, box = self.hit
            check_amount(won, self.digits)
            _text_fits("box", box)

    def meter(self) -> wire.ShowMeter | None:
        """The meter's command, or None when the picture has no meter."""
        if not (self.title or self.currency or self.amount):
            return None
        return wire.ShowMeter(self.title, self.amount, self.digits, self.currency)

    def hit_command(self) -> wire.ShowHit | None:
        """The hit's command, or None when no jackpot is being paid."""
        if self.hit is None:
            return None
        won, box = self.hit
        return wire.ShowHit(self.title, won, self.digits, self.currency, box)

    def commands(self) -> list[Message]:
        """The commands that paint this picture on a blank sign: the hit first (players wait
        for it), then the message, then the meter."""
        commands: list[Message] = []
        hit, meter = self.hit_command(), self.meter()
        if hit is not None:
            commands.append(hit)
        if self.message:
            commands.append(wire.SignShowMessage(self.message))
        if meter is not None:
            commands.append(meter)
        return commands


BLANK_SIGN = SignPicture()


@dataclass(frozen=True)
class SignShown:
    """What the sign shows, as far as the station knows, in the sign's own commands."""

    hit: wire.ShowHit | None = None
    message: str = ""
    meter: wire.ShowMeter | None = None

    def after(self, command: Message) -> SignShown:
        """What the sign shows once it has acknowledged ``command``."""
        match command:
            case wire.SignClear():
                return SignShown()
            case wire.ShowHit():
                return SignShown(command, self.message, self.meter)
            case wire.EndHit():
                return SignShown(None, self.message, self.meter)
            case wire.SignShowMessage(text=text):
                return SignShown(self.hit, text, self.meter)
            case wire.ShowMeter():
                return SignShown(self.hit, self.message, command)
        return self


def differences(picture: SignPicture, shown: SignShown) -> list[Message]:
    """The commands that take the sign from ``shown`` to ``picture``, hit first. The protocol
    has no command that takes the meter alone down, so a picture without a meter on a sign
    showing one starts with ``Clear`` (and paints the rest again)."""
    meter = picture.meter()
    if meter is None and shown.meter is not None:
        return [wire.SignClear(), *picture.commands()]
    commands: list[Message] = []
    hit = picture.hit_command()
    if hit != shown.hit:
        commands.append(hit if hit is not None else wire.EndHit())
    if picture.message != shown.message:
        commands.append(wire.SignShowMessage(picture.message))
    if meter is not None and meter != shown.meter:
        commands.append(meter)
    return commands


class SignFeed:
    """Keeps the sign showing the newest :class:`SignPicture`, from a thread of its own.

    :meth:`show` only takes note (any thread, never blocks on the sign, never raises because
    the sign is away). The feed's thread sends the differences from what the sign shows, one
    command at a time, each time against the newest picture. When the sign's link comes back
    or the sign announces a Boot (:meth:`SignDriver.on_needs_repaint`), and at start (what the
    sign shows is unknown), it sends ``Clear`` and the whole picture. A command that fails is
    tried again after ``retry_s``; one the sign refuses (NAK, which is final) is not sent again
    while it is what the picture wants."""

    def __init__(self, sign: SignDriver, *, retry_s: float = RETRY_S) -> None:
        self.sign = sign
        self.retry_s = retry_s
        self.repaints = 0  # full repaints sent (Clear and every part)
        self.failures = 0  # commands that did not reach the sign
        self._cond = threading.Condition()
        self._picture = BLANK_SIGN
        self._shown = SignShown()
        self._repaint = True  # what the sign shows is unknown at start: clear it and paint it all
        self._refused: set[Message] = set()
        self._retry_at = 0.0
        self._sending = False
        self._failing = False
        self._stopping = False
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Listen for the sign's repaints and start sending."""
        if self._thread is not None:
            return
        self.sign.on_needs_repaint(self.repaint)
        self._thread = threading.Thread(target=self._work, name="sign-feed", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self.sign.on_needs_repaint(None)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    # --- what callers use ------------------------------------------------------------------

    def show(self, picture: SignPicture) -> None:
        """The sign should show ``picture`` (it replaces the last one). Any thread; only takes note."""
        if not isinstance(picture, SignPicture):
            raise TypeError(f"show() takes a SignPicture, not {picture!r}")
        with self._cond:
            self._picture = picture
            self._cond.notify_all()

    def repaint(self, reason: str = "") -> None:
        """The sign must be painted again in full (its link came back, it rebooted). Any
        thread, the link's included: only takes note."""
        log.info("sign_repaint", reason=reason)
        with self._cond:
            self._repaint = True
            self._retry_at = 0.0  # it answers again: no reason to wait
            self._cond.notify_all()

    @property
    def picture(self) -> SignPicture:
        with self._cond:
            return self._picture

    @property
    def shown(self) -> SignShown:
        """What the sign shows, as far as the station knows."""
        with self._cond:
            return self._shown

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Until the sign shows the picture (nothing left to send); False after ``timeout``
        (e.g. while the sign is away). For tests and an orderly shutdown."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._sending or self._next() is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    # --- the feed's thread -----------------------------------------------------------------

    def _next(self) -> Message | None:
        """The next command to send (under the lock), or None when the sign shows the picture."""
        if self._repaint:
            return wire.SignClear()
        for command in differences(self._picture, self._shown):
            if command not in self._refused:
                return command
        return None

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._stopping:
                    command = self._next()
                    wait = None if command is None else self._retry_at - time.monotonic()
                    if wait is not None and wait <= 0:
                        break
                    self._cond.wait(wait)
                if self._stopping:
                    return
                assert command is not None
                repainting = self._repaint
                self._repaint = False
                self._sending = True
            try:
                self._send(command, repainting)
            except Exception:  # a sign problem must never end the feed
                log.exception("sign_feed_failed", command=command.WIRE_NAME)
                self._failed(command, repainting)
            finally:
                with self._cond:
                    self._sending = False
                    self._cond.notify_all()

    def _send(self, command: Message, repainting: bool) -> None:
        try:
            self.sign.send(command)
        except DeviceRefused as exc:
            log.error("sign_refused", command=command.describe(), error=str(exc))
            with self._cond:
                if isinstance(command, wire.SignClear):
                    self._repaint = self._repaint or repainting
                    self._retry_at = time.monotonic() + self.retry_s
                else:
                    self._refused.add(command)
            return
        except (DeviceError, OSError) as exc:
            self._failed(command, repainting, exc)
            return
        with self._cond:
            self._shown = self._shown.after(command)
            if repainting:
                self.repaints += 1
            if self._failing:
                log.info("sign_answers_again", command=command.WIRE_NAME)
            self._failing = False

    def _failed(self, command: Message, repainting: bool, exc: BaseException | None = None) -> None:
        with self._cond:
            self.failures += 1
            self._repaint = self._repaint or repainting  # the Clear did not go: still to do
            self._retry_at = time.monotonic() + self.retry_s
            first = not self._failing
            self._failing = True
        if first and exc is not None:  # once per stretch: a sign that is away fails every attempt
            log.warning("sign_command_failed", command=command.WIRE_NAME, error=str(exc))
