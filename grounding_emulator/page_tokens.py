"""Page tokens of the listing RPCs (Search, ListSessions, ListDataStores, ListDocuments...):
opaque, bound to the request they page.

A token is the offset of the next page and a fingerprint of what the request may not change
between pages (``SearchRequest.page_token``: "When paginating, all other parameters provided to
SearchService.Search must match the call that provided the page token. Otherwise, an
INVALID_ARGUMENT error is returned"; ``ListSessionsRequest.page_token`` says only "Provide this
to retrieve the subsequent page", and the emulator binds it the same way).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json

from grounding_emulator.errors import InvalidArgument

__all__ = ["decode_page_token", "encode_page_token", "fingerprint", "page_bounds"]


def fingerprint(key: object) -> str:
    """A short digest of ``key`` (JSON-serializable): what a token is bound to."""
    return hashlib.sha256(json.dumps(key).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def encode_page_token(offset: int, bound: str) -> str:
    """The token of the page at ``offset`` of the request whose fingerprint is ``bound``."""
    raw = json.dumps({"o": offset, "q": bound}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_page_token(token: str, bound: str, fields: str) -> int:
    """The offset ``token`` holds; ``InvalidArgument`` when it is malformed or was issued for
    another request than the one of fingerprint ``bound`` (``fields``: what must stay the same,
    for the message)."""
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        offset, issued = data["o"], data["q"]
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise InvalidArgument(
            "page_token is malformed: pass the next_page_token of a previous response unchanged",
            field="page_token",
        ) from exc
    if not isinstance(offset, int) or offset < 0 or issued != bound:
        raise InvalidArgument(
            f"page_token does not belong to this request: {fields} must stay those of the call "
            "that returned it",
            field="page_token",
        )
    return offset


def page_bounds(
    count: int,
    page_size: int,
    page_token: str,
    bound: str,
    *,
    default: int,
    maximum: int,
    fields: str,
) -> tuple[int, int, str]:
    """``(start, end, next_page_token)`` of the page a listing request asks for among ``count``
    items: ``page_size`` 0 is ``default``, above ``maximum`` is coerced to it, negative is
    ``InvalidArgument`` (as the List requests' field docs say); the token is bound to
    ``bound`` (see ``decode_page_token``)."""
    if page_size < 0:
        raise InvalidArgument(
            f"page_size must be >= 0, got {page_size} (0 asks for the default, {default})",
            field="page_size",
        )
    size = min(page_size or default, maximum)
    start = decode_page_token(page_token, bound, fields) if page_token else 0
    end = min(start + size, count)
    return start, end, encode_page_token(end, bound) if end < count else ""
