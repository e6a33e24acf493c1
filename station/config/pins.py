"""Personal PINs for the console, stored only as salted slow hashes.

A PIN is short (a few digits a dealer can type at a busy table), so a fast hash of it would be
broken by trying every PIN. Each is stored as ``hashlib.scrypt`` of the PIN with a random salt
of its own, with costs that make one try take tens of milliseconds and 16 MB of memory, in
one self-describing string: ``scrypt$N$r$p$<salt, base64>$<hash, base64>``. Verifying
compares in constant time. The console also allows only five wrong PINs per user and minute
(:mod:`station.console.sessions`), so the hash's cost and the limit together keep a four-digit
PIN out of reach of guessing.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
import secrets

#: scrypt's costs: N (CPU and memory), r (block size), p (parallelism). 2**14 * 8 * 128 bytes
#: is 16 MB per try; about 40 ms on the table PC.
COST_N, COST_R, COST_P = 2**14, 8, 1
SALT_BYTES = 16
HASH_BYTES = 32
PIN_DIGITS = (4, 12)
_STORED = re.compile(r"^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$")
_PIN = re.compile(r"^\d+$")


class PinError(ValueError):
    """A PIN, or a stored hash, that cannot be used; the message says why."""


def pin_problem(pin: str) -> str | None:
    """Why ``pin`` cannot be a console PIN, or None."""
    low, high = PIN_DIGITS
    if not _PIN.match(pin) or not low <= len(pin) <= high:
        return f"a PIN is {low} to {high} digits"
    return None


def stored_problem(stored: str) -> str | None:
    """Why ``stored`` is not a PIN hash this module made, or None (for the configuration)."""
    match = _STORED.match(stored)
    if match is None:
        return "not a PIN hash: use the pin_scrypt line `station ctl new-user` prints"
    n = int(match[1])
    if n < 2**10 or n & (n - 1):
        return "the scrypt cost N must be a power of two of at least 1024"
    return None


def _scrypt(pin: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, maxmem=256 * 1024 * 1024, dklen=HASH_BYTES)


def hash_pin(pin: str) -> str:
    """The string to store for ``pin`` (a new random salt each time)."""
    problem = pin_problem(pin)
    if problem:
        raise PinError(problem)
    salt = secrets.token_bytes(SALT_BYTES)
    digest = _scrypt(pin, salt, COST_N, COST_R, COST_P)
    encode = base64.b64encode
    return f"scrypt${COST_N}${COST_R}${COST_P}${encode(salt).decode()}${encode(digest).decode()}"


def verify_pin(pin: str, stored: str) -> bool:
    """True when ``pin`` is the PIN ``stored`` was made from; False for anything else,
    including a malformed hash (the caller has checked the configuration at start)."""
    match = _STORED.match(stored)
    if match is None or len(pin) > 64:
        return False
    n, r, p = int(match[1]), int(match[2]), int(match[3])
    try:
        salt, expected = base64.b64decode(match[4]), base64.b64decode(match[5])
        digest = _scrypt(pin, salt, n, r, p)
    except (ValueError, MemoryError):
        return False
    return hmac.compare_digest(digest, expected)


@functools.cache
def decoy() -> str:
    """A hash verified against when the name is unknown, so that a wrong name costs as long as
    a wrong PIN and the answer's time tells nothing (made once, when first needed: the
    station's own process, which only checks the configuration, never pays for it)."""
    return hash_pin(secrets.choice(("0000", "1111")) + str(secrets.randbelow(10**6)).zfill(6))
