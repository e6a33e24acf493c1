"""The local control interface: a Unix socket speaking JSON lines.

Supervisors and technicians use it through ``station ctl``. Nothing listens on a network
address: the socket is a file whose mode (default 0660) and group decide who may connect,
and each request also carries a personal token whose SHA-256 is listed in the config with
the user's name and role. Every privileged command is turned into an event carrying the
role and name (an :class:`~station.events.Actor`) and journaled by the core like any other
input, so "who voided round S3-R41, and when" is always answerable.

Protocol: the client sends one JSON object per line,
``{"token": "...", "command": "status", "args": {}}``, and reads one JSON object back:
``{"ok": true, "result": ...}`` or ``{"ok": false, "error": "..."}``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import socket
import socketserver
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
from pydantic import BaseModel, ValidationError

from station.events import Actor
from station.service.control_requests import MAX_REQUEST_BYTES, RequestError, decode_request

log = structlog.get_logger(__name__)

#: Connections served at once; a full pool lets its longest-idle one go (see ControlServer).
MAX_CONNECTIONS = 32
#: Seconds a client has to send each complete request line.
READ_TIMEOUT_S = 10.0
#: Characters of a client's text that go into a log line.
MAX_LOGGED = 64
#: How often the listening thread looks whether it is asked to stop (socketserver's default is
#: 0.5 s, which every stop of the station, and every test of the socket, waited out).
SHUTDOWN_POLL_S = 0.05


class ControlError(Exception):
    """A refused or failed control request; the message goes back to the client."""


@dataclass(frozen=True)
class Credential:
    name: str
    role: str
    token_sha256: str


@dataclass(frozen=True)
class Command:
    """A control command: which roles may run it, what it does, and the arguments it takes
    (a pydantic model; without one it takes none)."""

    roles: frozenset[str]
    run: Callable[[Actor, dict[str, Any]], Any]
    help: str = ""
    arguments: type[BaseModel] | None = None

    def check(self, args: dict[str, Any]) -> dict[str, Any]:
        """The arguments as the command takes them, or :class:`ControlError` naming the first
        that is missing, unknown or wrong, and what it should be."""
        if self.arguments is None:
            if args:
                raise ControlError(f"{sorted(args)[0]}: this command takes no arguments")
            return {}
        try:
            return self.arguments.model_validate(args).model_dump()
        except ValidationError as exc:
            raise ControlError(describe_invalid(exc, self.arguments)) from None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Authenticator:
    """Maps a presented token to a user; constant-time comparison against every entry.

    A request without a token from a local account named in ``[control] local_technicians``
    (root by default), as the kernel names the socket's peer (``SO_PEERCRED``: not a claim the
    client makes), comes in as a technician: ``ctl status`` works for the PC's administrator
    with no configuration. A technician may only read the status; everything that changes the
    table still takes a person's own token, so every change is journaled with a person's name.
    """

    def __init__(self, credentials: Iterable[Credential], local_technicians: Mapping[int, str] | None = None) -> None:
        self._credentials = list(credentials)
        self._local = dict(local_technicians or {})  # uid -> account name

    def __call__(self, token: object, peer_uid: int | None = None) -> Actor:
        if (token is None or token == "") and peer_uid is not None and peer_uid in self._local:
            return Actor(role="technician", who=f"{self._local[peer_uid]} (local account)")
        if not isinstance(token, str) or not token:
            raise ControlError("a token is required (use --token-file or $STATION_TOKEN)")
        digest = hash_token(token)
        match = None
        for cred in self._credentials:
            if hmac.compare_digest(digest, cred.token_sha256):
                match = cred
        if match is None:
            raise ControlError("unknown token")
        return Actor(role=match.role, who=match.name)


@dataclass
class ControlStats:
    """What the control socket has seen since the station started (shown in ``status``)."""

    connections: int = 0
    served: int = 0
    refused_busy: int = 0
    evicted_idle: int = 0
    timed_out: int = 0
    bad_requests: int = 0
    failed_authentications: int = 0
    role_denials: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def add(self, counter: str) -> None:
        """Count one more, from any connection's thread."""
        with self._lock:
            setattr(self, counter, getattr(self, counter) + 1)

    def as_dict(self) -> dict[str, int]:
        return {name: value for name, value in vars(self).items() if not name.startswith("_")}


class _Throttle:
    """Lets one warning through per ``interval_s`` and counts the ones it held back, so a
    flood of bad tokens is visible in the log without filling it."""

    def __init__(self, interval_s: float = 10.0) -> None:
        self.interval_s = interval_s
        self._next = 0.0
        self._held = 0
        self._lock = threading.Lock()

    def allow(self) -> int | None:
        """None to stay quiet; otherwise how many were held back since the last one let through."""
        with self._lock:
            now = time.monotonic()
            if now < self._next:
                self._held += 1
                return None
            self._next = now + self.interval_s
            held, self._held = self._held, 0
            return held


class _Connection:
    """One client's connection, as the pool sees it."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.idle_since: float | None = time.monotonic()  # None while a request is being served


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket, from the kernel
    (``SO_PEERCRED``); None where the system cannot say."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except OSError:
        return None
    return int(uid)


class _Handler(socketserver.StreamRequestHandler):
    server: _UnixServer
    connection: _Connection

    def setup(self) -> None:
        self.request.settimeout(self.server.control.read_timeout_s)
        super().setup()

    def handle(self) -> None:
        control = self.server.control
        connection = control._pool_entry(self.request)
        try:
            while True:
                connection.idle_since = time.monotonic()
                try:
                    line = self.rfile.readline(MAX_REQUEST_BYTES + 1)
                except TimeoutError:
                    control.stats.add("timed_out")
                    self._reply({"ok": False, "error": f"no complete request within {control.read_timeout_s:g} s"})
                    return
                if not line:
                    return
                connection.idle_since = None
                if len(line) > MAX_REQUEST_BYTES or not line.endswith(b"\n"):
                    control.stats.add("bad_requests")
                    self._reply({"ok": False, "error": f"request: longer than {MAX_REQUEST_BYTES} bytes"})
                    return
                self._reply(control.handle_line(line, peer_uid(self.request)))
        except OSError:
            return  # the client hung up, or was let go to make room: nothing to tell anyone

    def _reply(self, response: dict[str, Any]) -> None:
        self.wfile.write(json.dumps(response, sort_keys=True).encode() + b"\n")
        self.wfile.flush()


class _UnixServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    request_queue_size = 512  # a burst of reconnecting clients waits here, not in EAGAIN
    control: ControlServer

    def process_request(self, request: Any, client_address: Any) -> None:
        if self.control._admit(request):
            super().process_request(request, client_address)
        else:
            self.shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection's thread failed: one line in the log, never a traceback on stderr."""
        exc = sys.exc_info()[1]
        log.info("control_connection_error", error=f"{type(exc).__name__}: {exc}")

    def shutdown_request(self, request: Any) -> None:
        self.control._pool_leave(request)
        super().shutdown_request(request)


class ControlServer:
    """Serves commands on a Unix socket, one thread per connection, at most
    ``max_connections`` at once.

    The command functions run on the connections' threads; they must only read published
    snapshots or post events to the core's queue, never touch the state machine directly.
    A full pool lets its longest-idle connection go to make room for a new one (so idle or
    stalled clients can never lock a supervisor out); when every connection is busy the new
    one is answered "busy" and closed. A client has ``read_timeout_s`` to send each request.
    """

    def __init__(
        self,
        path: str | Path,
        authenticate: Callable[[object, int | None], Actor],
        commands: dict[str, Command],
        mode: int = 0o660,
        *,
        max_connections: int = MAX_CONNECTIONS,
        read_timeout_s: float = READ_TIMEOUT_S,
        on_denied: Callable[[Actor, str], None] | None = None,
        on_unknown: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self._authenticate = authenticate
        self._commands = commands
        self._mode = mode
        self.max_connections = max_connections
        self.read_timeout_s = read_timeout_s
        self._on_denied = on_denied
        self._on_unknown = on_unknown  # told why a request's token was refused (the journal hears it)
        self.stats = ControlStats()
        self._pool: dict[int, _Connection] = {}
        self._pool_lock = threading.Lock()
        self._auth_warnings = _Throttle()
        self._denial_warnings = _Throttle()
        self._server: _UnixServer | None = None
        self._thread: threading.Thread | None = None

    # --- the pool of connections ----------------------------------------------------------

    def _admit(self, sock: socket.socket) -> bool:
        """Room for one more connection: free the longest-idle one if the pool is full."""
        with self._pool_lock:
            self.stats.add("connections")
            if len(self._pool) >= self.max_connections:
                idle = [c for c in self._pool.values() if c.idle_since is not None]
                if not idle:
                    self.stats.add("refused_busy")
                    _send_quietly(sock, {"ok": False, "error": "busy: every control connection is in use; try again"})
                    return False
                oldest = min(idle, key=lambda c: c.idle_since or 0.0)
                del self._pool[oldest.sock.fileno()]
                self.stats.add("evicted_idle")
                with contextlib.suppress(OSError):
                    oldest.sock.shutdown(socket.SHUT_RDWR)  # its thread sees the end and leaves
            self._pool[sock.fileno()] = _Connection(sock)
            return True

    def _pool_entry(self, sock: socket.socket) -> _Connection:
        with self._pool_lock:
            return self._pool.get(sock.fileno()) or _Connection(sock)

    def _pool_leave(self, sock: socket.socket) -> None:
        with self._pool_lock:
            try:
                entry = self._pool.get(sock.fileno())
            except OSError:
                return
            if entry is not None and entry.sock is sock:
                del self._pool[sock.fileno()]

    # --- one request ----------------------------------------------------------------------

    def handle_line(self, line: bytes, peer: int | None = None) -> dict[str, Any]:
        """The reply to one request line from the account ``peer`` (a uid, as the kernel says);
        never raises for anything the client sent."""
        try:
            request = decode_request(line)
        except RequestError as exc:
            self.stats.add("bad_requests")
            return {"ok": False, "error": str(exc)}
        try:
            actor = self._authenticate(request.token, peer)
        except ControlError as exc:
            self.stats.add("failed_authentications")
            held = self._auth_warnings.allow()
            if held is not None:
                log.warning("control_authentication_failed", command=request.command[:MAX_LOGGED], reason=str(exc),
                            similar_since_last=held)
            if self._on_unknown is not None:
                self._on_unknown(str(exc))
            return {"ok": False, "error": str(exc)}  # nothing about the commands to a stranger
        return self.serve(actor, request.command, request.args)

    def serve_line(self, actor: Actor, line: bytes) -> dict[str, Any]:
        """The reply to a request line from someone already signed in elsewhere (the dealer's
        console, whose own process checked the PIN): the same checks of the line, of the
        role and of the arguments as a request on the socket, without the token."""
        try:
            request = decode_request(line)
        except RequestError as exc:
            self.stats.add("bad_requests")
            return {"ok": False, "error": str(exc)}
        return self.serve(actor, request.command, request.args)

    def serve(self, actor: Actor, name: str, raw_args: dict[str, Any]) -> dict[str, Any]:
        """Run command ``name`` for ``actor``: the one place that decides whether a role may
        use a command and whether its arguments are right (never raises for either)."""
        command = self._commands.get(name)
        if command is None:
            allowed = sorted(n for n, c in self._commands.items() if actor.role in c.roles)
            return {"ok": False, "error": f"unknown command {name!r}; {actor.who} may use: {', '.join(allowed)}"}
        if actor.role not in command.roles:
            return self._deny(actor, name, command)
        try:
            args = command.check(raw_args)
            result = command.run(actor, args)
        except ControlError as exc:
            return {"ok": False, "error": str(exc)}
        self.stats.add("served")
        log.info("control_command", command=name, role=actor.role, who=actor.who)
        return {"ok": True, "result": result}

    def _deny(self, actor: Actor, name: str, command: Command) -> dict[str, Any]:
        self.stats.add("role_denials")
        held = self._denial_warnings.allow()
        if held is not None:
            log.warning("control_refused", command=name, role=actor.role, who=actor.who, similar_since_last=held)
        if self._on_denied is not None:
            self._on_denied(actor, name)
        return {"ok": False, "error": f"'{name}' needs the role {' or '.join(sorted(command.roles))}; "
                                      f"{actor.who} is {actor.role}"}

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() or self.path.is_symlink():
            self._remove_stale_socket()
        old_umask = os.umask(0o177)  # no window in which the socket is world-connectable
        try:
            server = _UnixServer(str(self.path), _Handler)
        finally:
            os.umask(old_umask)
        os.chmod(self.path, self._mode)
        server.control = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_S},
                                        name="control-socket", daemon=True)
        self._thread.start()
        log.info("control_socket_listening", path=str(self.path), mode=oct(self._mode))

    def _remove_stale_socket(self) -> None:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(self.path))
        except OSError:
            self.path.unlink()  # nobody is listening: a leftover from a crash
        else:
            raise ControlError(f"another station is already listening on {self.path}")
        finally:
            probe.close()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def describe_invalid(exc: ValidationError, model: type[BaseModel]) -> str:
    """The first problem of a command's arguments, as ``<argument>: <what is wrong>`` with
    what the argument should be (its description)."""
    error = exc.errors()[0]
    name = str(error["loc"][0]) if error["loc"] else "args"
    field = model.model_fields.get(name)
    should = f" ({field.description})" if field is not None and field.description else ""
    if error["type"] == "missing":
        return f"{name}: missing{should}"
    if error["type"] == "extra_forbidden":
        known = ", ".join(model.model_fields) or "none"
        return f"{name}: not an argument of this command (it takes: {known})"
    return f"{name}: {error['msg'][0].lower()}{error['msg'][1:]}{should}"


def _connect(sock: socket.socket, path: str, timeout: float) -> None:
    """Connect, waiting while the station's queue of new connections is full: a Unix socket
    answers that at once with EAGAIN instead of waiting as TCP does."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            sock.connect(path)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise ControlError(f"the station at {path} is not accepting connections (its queue is full)") from None
            time.sleep(0.01)


def _send_quietly(sock: socket.socket, response: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        sock.settimeout(0.5)
        sock.sendall(json.dumps(response, sort_keys=True).encode() + b"\n")


def request(path: str | Path, token: str, command: str, args: dict[str, Any] | None = None,
            timeout: float = 10.0) -> dict[str, Any]:
    """Client side: send one command and return the decoded reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            _connect(sock, str(path), timeout)
        except FileNotFoundError:
            raise ControlError(f"no station is listening on {path} (is the service running?)") from None
        except PermissionError:
            raise ControlError(f"permission denied on {path}: ask for the station's control group") from None
        except ConnectionRefusedError:
            raise ControlError(f"{path} exists but nothing is listening (stale socket)") from None
        payload = {"token": token, "command": command, "args": args or {}}
        # The station may answer before it has read the request (busy) and close: the reply
        # is still there to read after the send fails.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(json.dumps(payload).encode() + b"\n")
        try:
            with sock.makefile("rb") as reader:
                line = reader.readline(MAX_REQUEST_BYTES + 1)
        except ConnectionResetError:
            line = b""
        except TimeoutError:
            raise ControlError(f"the station did not answer within {timeout:g} s") from None
    if not line:
        raise ControlError("the station closed the connection without answering")
    try:
        reply = json.loads(line)
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        raise ControlError("malformed reply from the station")
    return reply
