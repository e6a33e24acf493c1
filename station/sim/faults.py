"""The simulated table's fault door: device faults injected from outside a running station.

Every serial simulator can be broken on purpose (:mod:`drivers.simulators.base`: unplugged,
rebooted, its answers lost, its frames corrupted, garbage on its line, muted). Inside a
simulated table those simulators live in the table's own process, out of reach of a soak,
a test or a technician standing beside the running station. The door reaches them: a Unix
socket, ``faults.sock``, in the table's folder (beside the devices' pseudo-terminal links),
served by a thread of the table's process for as long as the table runs.

One JSON object per line in, one per line out::

    {"device": "shoe", "fault": "unplug", "seconds": 1}
    {"ok": true, "done": "shoe unplugged; plugged back in 1 s"}

``{"fault": "list"}`` answers the devices present and the faults known (:data:`FAULTS`).
Whatever comes in is checked where it enters, as every input of the station is: a line over
4 KB, text that is not strict JSON (:mod:`station.strict_json`: a repeated key, deep nesting),
an unknown device or fault, an argument of the wrong type or out of its range, all get
``{"ok": false, "error": "<why>"}``; nothing a client sends can raise into the table. The
folder is the table's own (mode 0700, from :func:`tempfile.mkdtemp`), so the socket is never
reachable by another user, even for the moment before it is made 0600.

The same checks (:func:`check_request`) let ``station simulate fault`` refuse a bad command
line before it reaches any table, and :func:`ask` and :func:`live_tables` are its client side.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from station import strict_json
from station.held_lock import held
from station.sim.chip_faults import chip_faults, inject_chip_fault
from station.sim.table_folder import LOCK_NAME, PREFIX

if TYPE_CHECKING:
    from drivers.simulators.base import SimulatedDevice

log = structlog.get_logger(__name__)

#: The door's name in the table's folder.
SOCKET_NAME = "faults.sock"
#: The longest request line taken (its newline aside); a longer one is refused and the connection closed.
MAX_LINE = 4096
#: Connections served at once; one more is refused (a script needs one).
MAX_CONNECTIONS = 4
#: A connection silent this long is closed (a client that hangs must not keep a slot).
IDLE_S = 60.0
#: How long the client waits for an answer (the door answers at once: it never waits on a device).
ANSWER_S = 10.0
#: The serial devices a simulated table may run (the USB pedals stay in the station's process).
DEVICES = ("shoe", "shuffler", "display", "buttonbox", "sign", "chipreader")
#: The reason a rebooted device gives in its ``Boot``.
REBOOT_REASON = "watchdog reset"


@dataclass(frozen=True)
class Argument:
    """A fault's argument: its JSON type (a number, a whole number, hex text) and its range."""

    name: str
    kind: str  # "number" | "whole" | "hex"
    low: float
    high: float
    meaning: str

    def words(self) -> str:
        unit = " bytes" if self.kind == "hex" else ""
        return f"{self.name} ({self.low:g} to {self.high:g}{unit}: {self.meaning})"


SECONDS = Argument("seconds", "number", 0.05, 600, "how long it lasts")
COUNT = Argument("count", "whole", 1, 1000, "how many")
BYTES = Argument("bytes", "hex", 1, 1024, "the bytes, as hex digits")


@dataclass(frozen=True)
class Fault:
    """A fault the door knows: its arguments, all required, and what it does in words."""

    name: str
    arguments: tuple[Argument, ...]
    what: str


FAULTS: dict[str, Fault] = {fault.name: fault for fault in (
    Fault("unplug", (SECONDS,), "pull the device's cable, plug it back in after seconds"),
    Fault("reboot", (), "restart its firmware with the cable in: what it had queued is lost, Boot sent"),
    Fault("power_cycle", (), "switch it off and on: the cable drops for a moment, queued events lost, Boot sent"),
    Fault("drop_replies", (COUNT,), "execute the next count commands but lose their answers"),
    Fault("corrupt", (COUNT,), "send the next count frames with a bad CRC"),
    Fault("lose_acks", (COUNT,), "ignore the station's next count ACKs: it resends its events"),
    Fault("garbage", (BYTES,), "put these bytes on the line now"),
    Fault("mute", (SECONDS,), "stop answering for seconds (a hung device, cable in)"),
    Fault("list", (), "the devices present and the faults known"),
    *chip_faults(Argument, Fault),
)}


class FaultRefused(ValueError):
    """A request the door does not carry out; ``str()`` says why, for the reply."""


@dataclass(frozen=True)
class FaultRequest:
    """A request checked whole: ``device`` is empty for ``list``; an argument its fault does
    not take is None."""

    device: str
    fault: str
    seconds: float | None = None
    count: int | None = None
    data: bytes | None = None
    antenna: int | None = None


def _shown(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, bool, type(None))) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(type(value), "a value")


def _names(names: Any) -> str:
    return ", ".join(sorted(names)) or "none"


def check_request(value: Any) -> FaultRequest:
    """The request ``value`` (a decoded JSON value) checked whole; raises :class:`FaultRefused`
    saying what is wrong. Whether the device is present is the door's to say."""
    if not isinstance(value, dict):
        raise FaultRefused(f"a request is a JSON object, not {_json_kind(value)}")
    name = value.get("fault")
    if name is None:
        raise FaultRefused(f'no fault named: give "fault" (one of {_names(FAULTS)})')
    if not isinstance(name, str) or name not in FAULTS:
        raise FaultRefused(f"no fault {_shown(name)}; the faults are {_names(FAULTS)}")
    fault = FAULTS[name]
    taken = {argument.name for argument in fault.arguments} | ({"device"} if name != "list" else set())
    extra = sorted(set(value) - taken - {"fault"})
    if extra:
        takes = _names(taken - {"device"}) if taken - {"device"} else "no arguments"
        raise FaultRefused(f"{name} takes {takes}, not {', '.join(_shown(key) for key in extra)}")
    if name == "list":
        return FaultRequest("", name)
    device = value.get("device")
    if device is None:
        raise FaultRefused(f'no device named: give "device" (one of {", ".join(DEVICES)})')
    if not isinstance(device, str) or device not in DEVICES:
        raise FaultRefused(f"no device {_shown(device)}; the serial devices are {', '.join(DEVICES)}")
    found: dict[str, Any] = {}
    for argument in fault.arguments:
        if argument.name not in value:
            raise FaultRefused(f"{name} needs {argument.words()}")
        found[argument.name] = _checked(argument, value[argument.name])
    return FaultRequest(device, name, found.get("seconds"), found.get("count"), found.get("bytes", found.get("chips")),
                        found.get("antenna"))


def _checked(argument: Argument, value: Any) -> float | int | bytes:
    """One argument, of its type and in its range."""
    name, low, high = argument.name, argument.low, argument.high
    if argument.kind == "hex":
        if not isinstance(value, str):
            raise FaultRefused(f"{name} must be hex digits in a text (\"02ff\"), not {_shown(value)}")
        try:
            data = bytes.fromhex(value)
        except ValueError:
            raise FaultRefused(f"{name} must be hex digits (\"02ff\"), not {_shown(value)}") from None
        if not low <= len(data) <= high:
            raise FaultRefused(f"{name} must be {low:g} to {high:g} bytes, not {len(data)}")
        return data
    number: int | float
    if argument.kind == "whole":
        if isinstance(value, bool) or not isinstance(value, int):
            raise FaultRefused(f"{name} must be a whole number, not {_shown(value)}")
        number = value
    elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise FaultRefused(f"{name} must be a number, not {_shown(value)}")
    else:
        number = value
    if not low <= number <= high:
        raise FaultRefused(f"{name} must be from {low:g} to {high:g}, not {number:g}")
    return number


def parse_line(line: bytes) -> FaultRequest:
    """A request line as it arrives (its newline stripped): UTF-8, strict JSON, checked."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise FaultRefused("the line is not UTF-8 text") from None
    try:
        value = strict_json.loads(text, max_depth=2, max_integer_digits=12)
    except strict_json.StrictJsonError as exc:
        raise FaultRefused(f"not a JSON request: {exc}") from None
    return check_request(value)


class FaultDoor:
    """The door of one table: its socket, its threads, and the faults it has timed."""

    def __init__(self, folder: Path, devices: Mapping[str, SimulatedDevice]) -> None:
        self.path = folder / SOCKET_NAME
        self._devices = dict(devices)
        self._lock = threading.Lock()  # one fault at a time; the timers and close() take it too
        self._timers: dict[tuple[str, str], tuple[threading.Timer, float]] = {}  # (device, fault) -> ends at
        self._closed = False
        self._last_injected: float | None = None  # monotonic time of the last fault done
        self._listener: socket.socket | None = None
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> bool:
        """Open the socket and serve it; False (logged) when it cannot be made: the table runs
        on without a door rather than not at all."""
        listener: socket.socket | None = None
        bound = False
        try:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(self.path))
            bound = True
            os.chmod(self.path, 0o600)
            listener.listen(MAX_CONNECTIONS)
            threading.Thread(target=self._accept, args=(listener,), name="sim-fault-door", daemon=True).start()
        except (OSError, RuntimeError) as exc:  # RuntimeError: no thread to be had
            if listener is not None:
                listener.close()
            if bound:
                with contextlib.suppress(OSError):
                    self.path.unlink()
            log.warning("sim_fault_door_unavailable", path=str(self.path), error=str(exc))
            return False
        self._listener = listener
        log.info("sim_fault_door_open", path=str(self.path), devices=sorted(self._devices))
        return True

    def injected_within(self, seconds: float) -> bool:
        """Whether a fault was done in the last ``seconds``: the simulated dealer deals ahead
        with care while the table is being hurt (station/sim/dealing.py)."""
        last = self._last_injected
        return last is not None and time.monotonic() - last <= seconds

    def close(self) -> None:
        """Stop serving, cancel the timed faults (a device is not plugged back into a table
        that is stopping), and remove the socket."""
        with self._lock:
            self._closed = True
            for timer, _ in self._timers.values():
                timer.cancel()
            self._timers.clear()
        listener, self._listener = self._listener, None
        if listener is None:
            return
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        listener.close()
        with contextlib.suppress(OSError):
            self.path.unlink()

    # --- serving -----------------------------------------------------------------------------

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return  # closed
            if not self._slots.acquire(blocking=False):
                self._refuse_and_close(conn, f"busy: {MAX_CONNECTIONS} connections are open already")
                continue
            try:
                threading.Thread(target=self._serve, args=(conn,), name="sim-fault-client", daemon=True).start()
            except RuntimeError:  # no thread to be had: this client is refused, the door stays open
                self._slots.release()
                self._refuse_and_close(conn, "busy: no thread to serve this connection")

    def _refuse_and_close(self, conn: socket.socket, why: str) -> None:
        with contextlib.suppress(OSError), conn:
            conn.settimeout(1.0)
            conn.sendall(_encoded({"ok": False, "error": why}))

    def _serve(self, conn: socket.socket) -> None:
        """Answer each line of one connection until it closes, goes quiet or sends too much."""
        try:
            conn.settimeout(IDLE_S)
            with conn, conn.makefile("rb") as lines:
                while True:
                    line = lines.readline(MAX_LINE + 2)  # the line, its newline, and one byte more
                    if not line:
                        return
                    body = line.rstrip(b"\r\n")
                    if len(body) > MAX_LINE:
                        log.info("sim_fault_refused", reason="line too long")
                        conn.sendall(_encoded({"ok": False, "error": f"a line over {MAX_LINE} bytes"}))
                        return  # the rest of it cannot be told from the next request
                    if body.strip():
                        conn.sendall(_encoded(self.answer(body)))
        except OSError:
            pass  # the client went away or stayed silent: nothing to answer
        finally:
            self._slots.release()

    def answer(self, line: bytes) -> dict[str, Any]:
        """The reply to one request line; never raises (an unexpected error is a refusal)."""
        try:
            request = parse_line(line)
            return self.apply(request)
        except FaultRefused as exc:
            log.info("sim_fault_refused", reason=str(exc))
            return {"ok": False, "error": str(exc)}
        except Exception as exc:  # a simulator's bug must not end the door, nor the table
            log.exception("sim_fault_failed")
            return {"ok": False, "error": f"the simulator failed: {type(exc).__name__}: {exc}"[:300]}

    # --- the faults --------------------------------------------------------------------------

    def apply(self, request: FaultRequest) -> dict[str, Any]:
        """Carry out a checked request; raises :class:`FaultRefused` when this table cannot."""
        with self._lock:
            if self._closed:
                raise FaultRefused("the table is stopping")
            if request.fault == "list":
                return self._list()
            device = self._devices.get(request.device)
            if device is None:
                raise FaultRefused(f"this table has no {request.device} (it has {_names(self._devices)})")
            done = self._inject(request, device)
            self._last_injected = time.monotonic()
        log.info("sim_fault_injected", device=request.device, fault=request.fault, seconds=request.seconds,
                 count=request.count, bytes=None if request.data is None else len(request.data))
        return {"ok": True, "done": done}

    def _list(self) -> dict[str, Any]:
        faults = {fault.name: {"arguments": {a.name: a.words() for a in fault.arguments}, "what": fault.what}
                  for fault in FAULTS.values()}
        words = ", ".join(" ".join((f.name, *(a.name for a in f.arguments))) for f in FAULTS.values())
        return {"ok": True, "done": f"devices: {_names(self._devices)}; faults: {words}",
                "devices": sorted(self._devices), "faults": faults}

    def _inject(self, request: FaultRequest, device: SimulatedDevice) -> str:
        """Under the lock: break ``device`` as asked; the words of what was done."""
        name, n = request.device, request.count or 0
        match request.fault:
            case "unplug":
                self._not_already(name, "unplug", "unplugged")
                device.unplug()
                self._later(name, "unplug", request.seconds or 0.0, device.replug)
                return f"{name} unplugged; plugged back in {request.seconds:g} s"
            case "reboot":
                device.reboot(REBOOT_REASON)
                return f"{name} rebooted: blank, numbering from 1, Boot sent"
            case "power_cycle":
                self._not_already(name, "unplug", "unplugged")
                device.power_cycle()
                return f"{name} switched off and on: what it had not sent is lost, Boot sent"
            case "drop_replies":
                device.drop_replies(n)
                return f"{name} loses its answers to the next {n} command(s) (a resent command counts again)"
            case "corrupt":
                device.corrupt_next_frames(n)
                return f"{name} sends its next {n} frame(s) with a bad CRC"
            case "lose_acks":
                device.ignore_acks(n)
                return f"{name} ignores the station's next {n} ACK(s)"
            case "garbage":
                data = request.data or b""
                device.inject_garbage(data)
                return f"{len(data)} byte(s) of garbage put on the {name}'s line"
            case "mute":
                self._not_already(name, "mute", "muted")
                device.mute(True)
                self._later(name, "mute", request.seconds or 0.0, lambda: device.mute(False))
                return f"{name} muted; answers again in {request.seconds:g} s"
        try:
            return inject_chip_fault(request, device)
        except ValueError as exc:
            raise FaultRefused(str(exc)) from None

    def _not_already(self, name: str, fault: str, state: str) -> None:
        timed = self._timers.get((name, fault))
        if timed is not None:
            raise FaultRefused(f"the {name} is {state} already: back in {max(0.0, timed[1] - time.monotonic()):.1f} s")

    def _later(self, name: str, fault: str, seconds: float, undo: Callable[[], None]) -> None:
        """Undo a timed fault after ``seconds``, on a timer thread, unless the door closes first."""
        key = (name, fault)

        def end() -> None:
            with self._lock:
                if self._closed or key not in self._timers:
                    return
                del self._timers[key]
                try:
                    undo()
                except Exception:  # the device stays broken; the next request may try again
                    log.exception("sim_fault_end_failed", device=name, fault=fault)
                    return
            log.info("sim_fault_ended", device=name, fault=fault)

        timer = threading.Timer(seconds, end)
        timer.daemon = True
        self._timers[key] = (timer, time.monotonic() + seconds)
        timer.start()


def _encoded(reply: Mapping[str, Any]) -> bytes:
    return json.dumps(reply, separators=(", ", ": ")).encode() + b"\n"


# --- the client side (``station simulate fault``) -----------------------------------------------


class DoorUnreachable(OSError):
    """No answer from a table's door; ``str()`` says why in one line."""


def live_tables(root: Path | None = None) -> list[Path]:
    """The folders of this user's simulated tables that are running now (their ``table.lock``
    is held), in ``root`` or the system's temporary folder."""
    folder = Path(root or tempfile.gettempdir())
    found = []
    for candidate in sorted(folder.glob(f"{PREFIX}*")):
        try:
            if candidate.is_symlink() or not candidate.is_dir() or candidate.stat().st_uid != os.getuid():
                continue
        except OSError:
            continue
        if held(candidate / LOCK_NAME):
            found.append(candidate)
    return found


def ask(door: Path, request: Mapping[str, Any], timeout: float = ANSWER_S) -> dict[str, Any]:
    """Send one request to the door at ``door`` and return its reply; raises
    :class:`DoorUnreachable` when no table answers there."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(str(door))
        except FileNotFoundError:
            raise DoorUnreachable(f"no fault door at {door}: no simulated table runs there") from None
        except ConnectionRefusedError:
            raise DoorUnreachable(f"{door} is left from a table that ended: none answers there") from None
        except PermissionError:
            raise DoorUnreachable(f"permission denied on {door}: another user's table") from None
        except OSError as exc:
            raise DoorUnreachable(f"cannot reach {door}: {exc.strerror or exc}") from None
        # A door that refuses at once (busy) may answer and close before the request is sent:
        # its answer is still there to read after the send fails.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(_encoded(request))
        try:
            with sock.makefile("rb") as reader:
                line = reader.readline(1 << 16)
        except TimeoutError:
            raise DoorUnreachable(f"the table did not answer within {timeout:g} s") from None
        except OSError:
            line = b""
    try:
        reply = json.loads(line)
    except ValueError:
        reply = None
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        raise DoorUnreachable("the table's answer is not a fault door's reply" if line else
                              "the table closed the door without answering")
    return reply
