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


def canonical_json(value: Any) -> str:
    """One fixed text for a JSON value, so equal payloads always hash the same."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def record_hash(seq: int, time: str, kind: str, payload_json: str, prev_hash: str) -> str:
    """Hex SHA-256 over the record's fields; ``payload_json`` must already be canonical.

    The fields are framed as a canonical JSON array (built here without re-parsing the
    payload), so no two different records can produce the same hashed bytes.
    """
    framed = (
        f"[{int(seq)},{canonical_json(time)},{canonical_json(kind)},{payload_json},{canonical_json(prev_hash)}]"
    )
    return hashlib.sha256(framed.encode("utf-8")).hexdigest()
