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

import hashlib
import hmac
import json
import os
import socket
import socketserver
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from station.events import Actor

log = structlog.get_logger(__name__)

MAX_REQUEST_BYTES = 64 * 1024


class ControlError(Exception):
    """A refused or failed control request; the message goes back to the client."""


@dataclass(frozen=True)
class Credential:
    name: str
    role: str
    token_sha256: str


@dataclass(frozen=True)
class Command:
    """A control command: which roles may run it and what it does."""

    roles: frozenset[str]
    run: Callable[[Actor, dict[str, Any]], Any]
    help: str = ""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Authenticator:
    """Maps a presented token to a user; constant-time comparison against every entry."""

    def __init__(self, credentials: Iterable[Credential]) -> None:
        self._credentials = list(credentials)

    def __call__(self, token: object) -> Actor:
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


class _Handler(socketserver.StreamRequestHandler):
    server: _UnixServer

    def handle(self) -> None:
        while True:
            line = self.rfile.readline(MAX_REQUEST_BYTES + 1)
            if not line:
                return
            if len(line) > MAX_REQUEST_BYTES:
                self._reply({"ok": False, "error": "request too large"})
                return
            self._reply(self.server.control.handle_line(line))

    def _reply(self, response: dict[str, Any]) -> None:
        self.wfile.write(json.dumps(response, sort_keys=True).encode() + b"\n")
        self.wfile.flush()


class _UnixServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    control: ControlServer


class ControlServer:
    """Serves commands on a Unix socket in background threads.

    The command functions run on the server's threads; they must only read published
    snapshots or post events to the core's queue, never touch the state machine directly.
    """

    def __init__(
        self,
        path: str | Path,
        authenticate: Callable[[object], Actor],
        commands: dict[str, Command],
        mode: int = 0o660,
    ) -> None:
        self.path = Path(path)
        self._authenticate = authenticate
        self._commands = commands
        self._mode = mode
        self._server: _UnixServer | None = None
        self._thread: threading.Thread | None = None

    def handle_line(self, line: bytes) -> dict[str, Any]:
        try:
            request = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return {"ok": False, "error": "not a JSON object"}
        if not isinstance(request, dict):
            return {"ok": False, "error": "not a JSON object"}
        name = request.get("command")
        args = request.get("args") or {}
        if not isinstance(args, dict):
            return {"ok": False, "error": "args must be an object"}
        command = self._commands.get(name) if isinstance(name, str) else None
        if command is None:
            return {"ok": False, "error": f"unknown command {name!r}; known: {', '.join(sorted(self._commands))}"}
        try:
            actor = self._authenticate(request.get("token"))
            if actor.role not in command.roles:
                log.warning("control_refused", command=name, role=actor.role, who=actor.who)
                raise ControlError(
                    f"'{name}' needs the role {' or '.join(sorted(command.roles))}; {actor.who} is {actor.role}"
                )
            result = command.run(actor, args)
        except ControlError as exc:
            return {"ok": False, "error": str(exc)}
        log.info("control_command", command=name, role=actor.role, who=actor.who)
        return {"ok": True, "result": result}

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
        self._thread = threading.Thread(target=server.serve_forever, name="control-socket", daemon=True)
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
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass


def request(path: str | Path, token: str, command: str, args: dict[str, Any] | None = None,
            timeout: float = 10.0) -> dict[str, Any]:
    """Client side: send one command and return the decoded reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
        except FileNotFoundError:
            raise ControlError(f"no station is listening on {path} (is the service running?)") from None
        except PermissionError:
            raise ControlError(f"permission denied on {path}: ask for the station's control group") from None
        except ConnectionRefusedError:
            raise ControlError(f"{path} exists but nothing is listening (stale socket)") from None
        payload = {"token": token, "command": command, "args": args or {}}
        sock.sendall(json.dumps(payload).encode() + b"\n")
        with sock.makefile("rb") as reader:
            line = reader.readline(MAX_REQUEST_BYTES + 1)
    if not line:
        raise ControlError("the station closed the connection without answering")
    reply = json.loads(line)
    if not isinstance(reply, dict):
        raise ControlError("malformed reply from the station")
    return reply
