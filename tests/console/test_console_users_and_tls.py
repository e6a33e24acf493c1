"""Console users as an installer makes them (``station ctl new-user``), and the console on a
network address: refused without TLS at start, served over HTTPS with it."""

from __future__ import annotations

import ssl
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from station.config.errors import ConfigError
from station.config.pins import verify_pin
from station.service.config import parse_config

pytestmark = pytest.mark.e2e  # starts processes (tests/conftest.py)


def new_user(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "station", "ctl", "new-user", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_new_user_asks_for_the_pin_twice_and_prints_an_entry_the_station_takes() -> None:
    done = new_user("dee.k-2", "dealer", stdin="482911\n482911\n")
    assert done.returncode == 0, done.stderr
    entry = done.stdout.split("\n", 1)[1]
    assert "482911" not in done.stdout
    user = tomllib.loads(entry)["control"]["users"][0]
    assert (user["name"], user["role"]) == ("dee.k-2", "dealer") and verify_pin("482911", user["pin_scrypt"])
    config = parse_config(tomllib.loads(entry), Path("station.toml"))
    assert config.control.users[0].pin_scrypt == user["pin_scrypt"]


@pytest.mark.parametrize(("args", "stdin", "error"), [
    (("dee k", "dealer"), "1234\n1234\n", "'dee k' is not a user name: use 1 to 32 letters, digits"),
    (("dee", "dealer"), "12\n12\n", "refused: a PIN is 4 to 12 digits"),
    (("dee", "dealer"), "1234\n1243\n", "refused: the two PINs differ"),
])
def test_new_user_refusals(args: tuple[str, ...], stdin: str, error: str) -> None:
    done = new_user(*args, stdin=stdin)
    assert done.returncode != 0 and error in done.stderr and "Traceback" not in done.stderr


def test_a_user_needs_a_token_or_a_pin_and_a_pin_hash_must_be_one() -> None:
    with pytest.raises(ConfigError, match=r"control.users\[0\].pin_scrypt: a user needs a token_sha256"):
        parse_config({"control": {"users": [{"name": "x", "role": "dealer"}]}}, Path("s.toml"))
    with pytest.raises(ConfigError, match="not a PIN hash"):
        parse_config({"control": {"users": [{"name": "x", "role": "dealer", "pin_scrypt": "1234"}]}}, Path("s.toml"))


def test_a_network_address_without_tls_is_refused_at_start(tmp_path: Path) -> None:
    config = tmp_path / "station.toml"
    config.write_text('[console]\nenabled = true\nbind = "10.1.2.3"\n')
    done = subprocess.run([sys.executable, "-m", "station", "run", "--check", "-c", str(config)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 78, done.stderr
    assert "console.bind: 10.1.2.3 is on a network: the console serves a network address only over TLS" in done.stderr


def test_with_tls_the_console_is_served_over_https(console_table: Any, tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    table = console_table(console_extra=f'tls_cert = "{cert}"\ntls_key = "{key}"')
    table.console_scheme = "https"
    context = ssl.create_default_context(cafile=str(cert))
    table.start_station()
    with urllib.request.urlopen(table.url + "healthz", context=context, timeout=10) as response:
        assert response.read() == b"ok\n"
    request = urllib.request.Request(table.url + "api/sign-in", data=b'{"name": "dee", "pin": "1234"}',
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, context=context, timeout=30) as response:
        cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" in cookie
    table.stop_station()


def test_new_user_at_a_terminal_asks_again_after_a_short_pin() -> None:
    """A person who types a short PIN, or two that differ, is told why and asked again."""
    import os
    import select
    import shutil

    if shutil.which("setsid") is None:
        pytest.skip("util-linux's setsid is not installed (it gives the command a terminal of its own)")
    leader, follower = os.openpty()
    # setsid -c: a session of its own whose terminal is the pty (getpass opens the terminal).
    done = subprocess.Popen(["setsid", "-c", sys.executable, "-m", "station", "ctl", "new-user", "dee", "dealer"],
                            stdin=follower, stdout=follower, stderr=follower)
    os.close(follower)
    said = b""

    def answer(prompt: bytes, text: str) -> None:
        nonlocal said
        while said.count(prompt) <= answered.count(prompt):
            ready, _, _ = select.select([leader], [], [], 30)
            assert ready, said
            said += os.read(leader, 4096)
        answered.append(prompt)
        os.write(leader, text.encode() + b"\n")

    answered: list[bytes] = []
    answer(b"PIN for dee: ", "12")
    answer(b"PIN for dee: ", "482911")
    answer(b"the same PIN again: ", "482912")
    answer(b"PIN for dee: ", "482911")
    answer(b"the same PIN again: ", "482911")
    assert done.wait(60) == 0
    while select.select([leader], [], [], 0.5)[0]:
        try:
            said += os.read(leader, 4096)
        except OSError:
            break
    os.close(leader)
    text = said.decode(errors="replace")
    assert "a PIN is 4 to 12 digits" in text and "try again" in text and "the two PINs differ: try again" in text
    assert "[[control.users]]" in text and "482911" not in text.split("add to the configuration")[1]
