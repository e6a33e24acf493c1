"""The hash chain: how a record's bytes are fixed and hashed.

Kept apart from the store so that the writer and the verifier share one definition, and so
that anyone can re-check an exported journal with nothing but a JSON library and SHA-256:

    hash = sha256(utf8(canonical_json([seq, time, kind, payload, prev_hash]))).hexdigest()

where ``canonical_json`` sorts object keys, uses no whitespace, keeps non-ASCII text as
UTF-8 and refuses NaN and infinities (they are not JSON). The first record's ``prev_hash``
is :data:`GENESIS_HASH`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS_HASH = "0" * 64
"""The ``prev_hash`` of record 1: there is no record before it."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
# json.dumps builds a new encoder on every call with these options; one shared instance is
# what makes verifying a long journal cheap. The string encoder is the one json uses itself
# for ensure_ascii=False, so a string field comes out exactly as canonical_json(str) would.
_encode_text = json.encoder.encode_basestring


def canonical_json(value: Any) -> str:
    """One fixed text for a JSON value, so equal payloads always hash the same."""
    return _CANONICAL.encode(value)


def record_hash(seq: int, time: str, kind: str, payload_json: str, prev_hash: str) -> str:
    """Hex SHA-256 over the record's fields; ``payload_json`` must already be canonical.

    The fields are framed as a canonical JSON array (built here without re-parsing the
    payload), so no two different records can produce the same hashed bytes.
    """
    framed = f"[{int(seq)},{_encode_text(time)},{_encode_text(kind)},{payload_json},{_encode_text(prev_hash)}]"
    return hashlib.sha256(framed.encode("utf-8")).hexdigest()
