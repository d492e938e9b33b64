"""``ListSessions``: its filter, its ordering and its pages; pure.

The filter (``ListSessionsRequest.filter``) is AIP-160 over the fields the field doc lists:
``user_pseudo_id``, ``state``, ``display_name`` (strings: ``=``, ``!=``), ``starred`` and
``is_pinned`` (``true`` / ``false``: ``=``, ``!=``), ``labels`` (``labels:x`` or ``labels = x``:
the session has label ``x``), ``create_time`` and ``update_time`` (RFC 3339 strings: ``=``,
``!=``, ``<``, ``<=``, ``>``, ``>=``). Values are quoted strings or bare words
(``user_pseudo_id = some_id``, ``state="IN_PROGRESS"``); ``NOT`` or ``-`` negates, ``AND`` and
``OR`` combine, and as in AIP-160 ``OR`` binds tighter than ``AND``. A v1 ``Session`` has no
``starred`` field: every session is unstarred. Any other field or operator is
``INVALID_ARGUMENT`` naming it.

``order_by``: comma-separated ``update_time``, ``create_time``, ``session_name``, ``is_pinned``,
each optionally followed by ``desc`` (or ``asc``); ties, and no ``order_by``, keep creation
order (Google does not document its default order).

Paging: ``page_size`` 0 means 50, above 1000 is coerced to 1000 (the documented maximum),
negative is ``INVALID_ARGUMENT``; ``next_page_token`` is opaque and bound to the parent, filter
and ordering it was issued for. A page ends early, with its token, before the item that would
take it over ``MAX_RESPONSE_BYTES`` (``page_size`` is the "Maximum number of results to
return"; AIP-158: "the API may return fewer results than requested"); it holds one item at
least.

``list_page`` is the same filter grammar, ordering and paging over another resource's fields
(``ListConversations``: ``answer/conversation_listing.py``).
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from lark import Lark, Token, Transformer, exceptions

from grounding_emulator.answer.sessions import Session
from grounding_emulator.call_state import checked
from grounding_emulator.errors import InvalidArgument, excerpt
from grounding_emulator.limits import (
    DEFAULT_SESSION_PAGE_SIZE,
    MAX_RESPONSE_BYTES,
    MAX_SESSION_PAGE_SIZE,
)
from grounding_emulator.page_tokens import decode_page_token, encode_page_token, fingerprint
from grounding_emulator.search.filters import check_filter_size

__all__ = [
    "FILTER_FIELDS",
    "ORDER_FIELDS",
    "Predicate",
    "SessionPage",
    "Term",
    "list_page",
    "list_sessions",
]

_STRINGS = ("user_pseudo_id", "state", "display_name")
_BOOLS = ("starred", "is_pinned")
_TIMES = ("create_time", "update_time")
FILTER_FIELDS = (*_STRINGS, *_BOOLS, "labels", *_TIMES)
ORDER_FIELDS = ("update_time", "create_time", "session_name", "is_pinned")
_EQUALITY = ("=", "!=")
_TOKEN_FIELDS = "the parent, filter and order_by"
_ORDERING = ("=", "!=", "<", "<=", ">", ">=")

_GRAMMAR = r"""
    ?start: and_expr
    ?and_expr: or_expr (_AND or_expr)*   -> and_
    ?or_expr: not_expr (_OR not_expr)*   -> or_
    ?not_expr: _NOT not_expr             -> not_
             | "-" not_expr              -> not_
             | atom
    ?atom: "(" and_expr ")"
         | FIELD OP value                -> compare
    ?value: ESCAPED_STRING -> string
          | WORD           -> word
    _AND: "AND"
    _OR: "OR"
    _NOT: "NOT"
    FIELD: /[A-Za-z_][A-Za-z0-9_]*/
    OP: "!=" | "<=" | ">=" | "=" | "<" | ">" | ":"
    WORD: /[^\s()"=<>!:]+/
    %import common.ESCAPED_STRING
    %import common.WS
    %ignore WS
"""

Predicate = Callable[[Any], bool]
# A filter term: (field, operator, value) -> predicate, or InvalidArgument naming what is wrong.
Term = Callable[[str, str, str], Predicate]
_Item = TypeVar("_Item")


class _Tree(Transformer[Token, Any]):
    def __init__(self, term: Term) -> None:
        super().__init__()
        self._term = term

    def string(self, items: list[Token]) -> str:
        return str(json.loads(str(items[0])))

    def word(self, items: list[Token]) -> str:
        return str(items[0])

    def compare(self, items: list[Any]) -> Predicate:
        return self._term(str(items[0]), str(items[1]), items[2])

    def not_(self, items: list[Any]) -> Predicate:
        item = items[0]
        return lambda s: not item(s)

    def and_(self, items: list[Any]) -> Predicate:
        return items[0] if len(items) == 1 else (lambda s: all(p(s) for p in items))

    def or_(self, items: list[Any]) -> Predicate:
        return items[0] if len(items) == 1 else (lambda s: any(p(s) for p in items))


def _refuse(message: str) -> InvalidArgument:
    return InvalidArgument(f"filter: {message}", field="filter")


def _timestamp(value: str, name: str) -> _dt.datetime:
    try:
        parsed = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise _refuse(
            f'{name} takes an RFC 3339 time such as "1970-01-01T12:00:00Z", got {value!r}'
        ) from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=_dt.timezone.utc)


def _bool(value: str, name: str) -> bool:
    if value.lower() not in ("true", "false"):
        raise _refuse(f"{name} takes true or false, got {value!r}")
    return value.lower() == "true"


def _compare(left: Any, op: str, right: Any) -> bool:
    if op == "=":
        return bool(left == right)
    if op == "!=":
        return bool(left != right)
    if op == "<":
        return bool(left < right)
    if op == "<=":
        return bool(left <= right)
    if op == ">":
        return bool(left > right)
    return bool(left >= right)


def _term(name: str, op: str, value: str) -> Predicate:
    """One ``field op value`` as a predicate (checked against the documented fields)."""
    if name not in FILTER_FIELDS:
        raise _refuse(f"{name!r} is not a field to filter sessions by ({', '.join(FILTER_FIELDS)})")
    if name == "labels":
        if op not in (":", "="):
            raise _refuse(f"labels takes ':' or '=' (labels:{value}), got {op!r}")
        return lambda s: value in s.labels
    op = "=" if op == ":" else op
    allowed = _ORDERING if name in _TIMES else _EQUALITY
    if op not in allowed:
        raise _refuse(f"{name} takes {', '.join(allowed)}, got {op!r}")
    if name in _TIMES:
        moment = _timestamp(value, name)
        attribute = "start_time" if name == "create_time" else "update_time"
        return lambda s: _compare(getattr(s, attribute), op, moment)
    if name in _BOOLS:
        wanted = _bool(value, name)
        if name == "starred":
            return lambda s: _compare(False, op, wanted)
        return lambda s: _compare(s.is_pinned, op, wanted)
    return lambda s: _compare(getattr(s, name), op, value)


@functools.cache
def _parser() -> Lark:
    return Lark(_GRAMMAR, parser="lalr", maybe_placeholders=False)


@functools.lru_cache(maxsize=256)
def _predicate(text: str, term: Term) -> Predicate:
    check_filter_size(text, "filter")
    try:
        tree = _parser().parse(text)
        predicate: Predicate = _Tree(term).transform(tree)
    except exceptions.VisitError as exc:
        if isinstance(exc.orig_exc, InvalidArgument):
            raise exc.orig_exc from exc
        raise _refuse(str(exc.orig_exc)) from exc
    except exceptions.UnexpectedInput as exc:
        column = getattr(exc, "column", "?")
        around = column - 1 if isinstance(column, int) else None
        raise _refuse(
            f"{excerpt(text, around=around)} is malformed at column {column} (for example "
            'user_pseudo_id = "u1" AND state = IN_PROGRESS)'
        ) from exc
    return predicate


def _order(text: str, fields: Sequence[str]) -> list[tuple[str, bool]]:
    keys = []
    for part in text.split(","):
        words = part.split()
        if not words:
            continue
        if (
            len(words) > 2
            or words[0] not in fields
            or (len(words) == 2 and words[1].lower() not in ("asc", "desc"))
        ):
            raise InvalidArgument(
                f"order_by: {part.strip()!r} is not one of {', '.join(fields)}, "
                "optionally followed by desc",
                field="order_by",
            )
        keys.append((words[0], len(words) == 2 and words[1].lower() == "desc"))
    return keys


def _sort_value(session: Session, name: str) -> Any:
    if name == "update_time":
        return session.update_time
    if name == "create_time":
        return session.start_time
    if name == "session_name":
        return session.name
    return session.is_pinned


@dataclass(frozen=True, slots=True)
class SessionPage:
    """One page of sessions; ``next_page_token`` is empty on the last page."""

    sessions: tuple[Session, ...]
    next_page_token: str = ""


def list_page(
    items: Sequence[_Item],
    *,
    scope: str,
    filter_: str,
    order_by: str,
    page_size: int,
    page_token: str,
    term: Term,
    order_fields: Sequence[str],
    sort_value: Callable[[_Item, str], Any],
    size_of: Callable[[_Item], int],
) -> tuple[tuple[_Item, ...], str]:
    """One page of ``items`` (in creation order) that pass ``filter_`` (its terms read by
    ``term``), ordered by ``order_by`` (``order_fields``, each item's value from
    ``sort_value``), cut before ``MAX_RESPONSE_BYTES`` (each item's bytes from ``size_of``),
    and the next page token (``scope``, the parent, is bound into it)."""
    if page_size < 0:
        raise InvalidArgument(f"page_size must be >= 0, got {page_size}", field="page_size")
    size = min(page_size or DEFAULT_SESSION_PAGE_SIZE, MAX_SESSION_PAGE_SIZE)
    bound = fingerprint([scope, filter_, order_by])
    start = decode_page_token(page_token, bound, _TOKEN_FIELDS) if page_token else 0
    chosen = list(items)
    if filter_.strip():
        predicate = _predicate(filter_, term)
        chosen = [s for s in chosen if predicate(s)]
    for name, descending in reversed(_order(order_by, order_fields)):
        chosen.sort(key=lambda s, n=name: sort_value(s, n), reverse=descending)  # type: ignore[misc]
    page: list[_Item] = []
    total = 0
    for item in checked(chosen[start : start + size], "listed item"):
        total += size_of(item)
        if page and total > MAX_RESPONSE_BYTES:
            break
        page.append(item)
    end = start + len(page)
    token = encode_page_token(end, bound) if end < len(chosen) else ""
    return tuple(page), token


def list_sessions(
    sessions: Sequence[Session],
    *,
    scope: str,
    filter_: str = "",
    order_by: str = "",
    page_size: int = 0,
    page_token: str = "",
) -> SessionPage:
    """One page of ``sessions`` (in creation order) that pass ``filter_``, ordered by
    ``order_by`` (``scope``, the parent, is bound into page tokens)."""
    page, token = list_page(
        sessions,
        scope=scope,
        filter_=filter_,
        order_by=order_by,
        page_size=page_size,
        page_token=page_token,
        term=_term,
        order_fields=ORDER_FIELDS,
        sort_value=_sort_value,
        size_of=lambda session: session.size,
    )
    return SessionPage(page, token)
