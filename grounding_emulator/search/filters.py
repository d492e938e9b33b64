"""Filter expressions: parsed with ``lark`` into a small tree, then evaluated per document.

Two dialects:

- **Discovery Engine** (``SearchRequest.filter``, boost conditions), on struct data fields
  (nested fields with dots: ``author.name``)::

      category: ANY("statements", "expressions") AND NOT section: ANY("library")
      words >= 500 OR (topic = "for" AND page != "datamodel")

  ``field: ANY(v, ...)`` matches when the field (or any element of a list field) equals one of
  the values; ``=``/``!=`` compare strings exactly and numbers numerically; ``<``, ``<=``, ``>``,
  ``>=`` need a number. ``NOT`` binds tighter than ``AND``, which binds tighter than ``OR``.
- **AIP-160 as the Developer Knowledge API takes it**, on ``data_source``, ``uri`` (strings:
  ``=`` and ``!=``), ``update_time`` (an RFC 3339 string: ``=``, ``<``, ``<=``, ``>``, ``>=``) and
  ``content_length_bytes`` (an integer: the same). ``NOT`` or ``-`` negates; as documented there,
  ``OR`` binds tighter than ``AND``.

A malformed expression raises ``InvalidArgument`` naming the request field and the column.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from lark import Lark, Token, Transformer, exceptions

from grounding_emulator.errors import InvalidArgument

__all__ = [
    "DEVELOPER_KNOWLEDGE_FIELDS",
    "AnyOf",
    "BoolOp",
    "Compare",
    "Expression",
    "Not",
    "fields_of",
    "parse_developer_knowledge_filter",
    "parse_filter",
]

Op = Literal["=", "!=", "<", "<=", ">", ">="]
Literal_ = str | float | bool

_COMMON = r"""
    ?not_expr: _NOT not_expr      -> not_
             | "-" not_expr       -> not_
             | atom
    ?atom: "(" expr ")"
         | FIELD ":" _ANY "(" value ("," value)* ")"   -> any_
         | FIELD OP value                               -> compare
    ?value: ESCAPED_STRING -> string
          | SIGNED_NUMBER  -> number
          | _TRUE          -> true
          | _FALSE         -> false
    _AND: "AND"
    _OR: "OR"
    _NOT: "NOT"
    _ANY: "ANY"
    _TRUE: "true"
    _FALSE: "false"
    FIELD: /[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/
    OP: "!=" | "<=" | ">=" | "=" | "<" | ">"
    %import common.ESCAPED_STRING
    %import common.SIGNED_NUMBER
    %import common.WS
    %ignore WS
"""

# Discovery Engine: NOT > AND > OR.
_DISCOVERY_ENGINE = (
    r"""
    ?start: expr
    ?expr: or_expr
    ?or_expr: and_expr (_OR and_expr)*   -> or_
    ?and_expr: not_expr (_AND not_expr)* -> and_
"""
    + _COMMON
)

# AIP-160 as Developer Knowledge documents it: NOT > OR > AND.
_AIP_160 = (
    r"""
    ?start: expr
    ?expr: and_expr
    ?and_expr: or_expr (_AND or_expr)*   -> and_
    ?or_expr: not_expr (_OR not_expr)*   -> or_
"""
    + _COMMON
)


@dataclass(frozen=True, slots=True)
class AnyOf:
    """``field: ANY(values...)``."""

    field: str
    values: tuple[Literal_, ...]


@dataclass(frozen=True, slots=True)
class Compare:
    """``field op value``."""

    field: str
    op: Op
    value: Literal_


@dataclass(frozen=True, slots=True)
class Not:
    """``NOT item``."""

    item: Expression


@dataclass(frozen=True, slots=True)
class BoolOp:
    """``AND`` or ``OR`` of two or more items."""

    op: Literal["AND", "OR"]
    items: tuple[Expression, ...]


Expression = AnyOf | Compare | Not | BoolOp


class _Tree(Transformer[Token, Expression]):
    def string(self, items: list[Token]) -> str:
        raw = str(items[0])[1:-1]
        return raw.encode("latin-1", "backslashreplace").decode("unicode_escape")

    def number(self, items: list[Token]) -> float:
        return float(items[0])

    def true(self, items: list[Token]) -> bool:
        return True

    def false(self, items: list[Token]) -> bool:
        return False

    def any_(self, items: list[Any]) -> AnyOf:
        return AnyOf(str(items[0]), tuple(items[1:]))

    def compare(self, items: list[Any]) -> Compare:
        # The grammar's OP terminal admits exactly the Op literals.
        return Compare(str(items[0]), cast(Op, str(items[1])), items[2])

    def not_(self, items: list[Any]) -> Not:
        return Not(items[0])

    def and_(self, items: list[Any]) -> Expression:
        return items[0] if len(items) == 1 else BoolOp("AND", tuple(items))

    def or_(self, items: list[Any]) -> Expression:
        return items[0] if len(items) == 1 else BoolOp("OR", tuple(items))


@functools.cache
def _parser(grammar: str) -> Lark:
    return Lark(grammar, parser="lalr", maybe_placeholders=False)


def _describe(exc: exceptions.UnexpectedInput, text: str) -> str:
    column = getattr(exc, "column", None)
    if isinstance(exc, exceptions.UnexpectedEOF) or column in (None, -1):
        return "it ends too early (an operand or a closing parenthesis is missing)"
    if isinstance(exc, exceptions.UnexpectedToken):
        found = "end of input" if exc.token.type == "$END" else repr(str(exc.token))
        return f"unexpected {found} at column {column}"
    pos = getattr(exc, "pos_in_stream", None)
    char = text[pos] if isinstance(pos, int) and 0 <= pos < len(text) else "?"
    return f"unexpected {char!r} at column {column}"


def _parse(text: str, grammar: str, field: str, example: str) -> Expression:
    try:
        tree = _parser(grammar).parse(text)
        return _Tree().transform(tree)
    except exceptions.UnexpectedInput as exc:
        raise InvalidArgument(
            f"{field} is malformed: {_describe(exc, text)} in {text!r} (for example {example})",
            field=field,
        ) from exc
    except exceptions.VisitError as exc:
        raise InvalidArgument(f"{field} is malformed: {exc.orig_exc}", field=field) from exc


def fields_of(expression: Expression) -> set[str]:
    """Every field name an expression mentions."""
    if isinstance(expression, AnyOf | Compare):
        return {expression.field}
    if isinstance(expression, Not):
        return fields_of(expression.item)
    return set().union(*(fields_of(item) for item in expression.items))


def _check_numeric(expression: Expression, field: str) -> None:
    if isinstance(expression, Compare):
        if expression.op in ("<", "<=", ">", ">=") and isinstance(expression.value, str | bool):
            raise InvalidArgument(
                f"{field}: {expression.field} {expression.op} needs a number, "
                f"got {expression.value!r}",
                field=field,
            )
    elif isinstance(expression, Not):
        _check_numeric(expression.item, field)
    elif isinstance(expression, BoolOp):
        for item in expression.items:
            _check_numeric(item, field)


@functools.lru_cache(maxsize=512)
def parse_filter(text: str, field: str = "filter") -> Expression | None:
    """A Discovery Engine filter (``None`` for an empty one)."""
    if not text.strip():
        return None
    expression = _parse(text, _DISCOVERY_ENGINE, field, 'category: ANY("statements")')
    _check_numeric(expression, field)
    return expression


# -- evaluation ---------------------------------------------------------------------------------


def _equal(value: Any, literal: Literal_) -> bool:
    if isinstance(value, bool) or isinstance(literal, bool):
        if isinstance(literal, str):
            return str(value).lower() == literal.lower()
        return isinstance(value, bool) and value is literal
    if isinstance(value, int | float):
        if isinstance(literal, str):
            try:
                return math.isclose(float(literal), float(value))
            except ValueError:
                return False
        return math.isclose(float(literal), float(value))
    if isinstance(value, str):
        if isinstance(literal, float):
            return value == (str(int(literal)) if literal.is_integer() else str(literal))
        return value == literal
    return False


def _order(value: Any, op: Op, literal: Literal_) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    number = float(literal)
    if op == "<":
        return value < number
    if op == "<=":
        return value <= number
    if op == ">":
        return value > number
    return value >= number


def _values(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


_MISSING = object()


def evaluate(expression: Expression, fields: Mapping[str, Any]) -> bool:
    """Whether a document with (flattened) ``fields`` matches ``expression``.

    A missing field matches nothing (and so ``NOT`` of it matches).
    """
    if isinstance(expression, BoolOp):
        if expression.op == "AND":
            return all(evaluate(item, fields) for item in expression.items)
        return any(evaluate(item, fields) for item in expression.items)
    if isinstance(expression, Not):
        return not evaluate(expression.item, fields)
    value = fields.get(expression.field, _MISSING)
    if value is _MISSING or value is None:
        return False
    if isinstance(expression, AnyOf):
        return any(_equal(v, lit) for v in _values(value) for lit in expression.values)
    if expression.op == "=":
        return any(_equal(v, expression.value) for v in _values(value))
    if expression.op == "!=":
        return not any(_equal(v, expression.value) for v in _values(value))
    return any(_order(v, expression.op, expression.value) for v in _values(value))


# -- Developer Knowledge ------------------------------------------------------------------------

DEVELOPER_KNOWLEDGE_FIELDS = {
    "data_source": "STRING",
    "uri": "STRING",
    "update_time": "TIMESTAMP",
    "content_length_bytes": "INTEGER",
}


def _timestamp(value: str, field: str) -> float:
    try:
        stamp = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidArgument(
            f"{field}: update_time needs an RFC 3339 timestamp such as "
            f'"2025-01-01T00:00:00Z", got {value!r}',
            field=field,
        ) from exc
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=_dt.timezone.utc)
    return stamp.timestamp()


def _developer_knowledge_literals(expression: Expression, field: str) -> Expression:
    """Check fields and operators; timestamps and integers become numbers."""
    if isinstance(expression, Not):
        return Not(_developer_knowledge_literals(expression.item, field))
    if isinstance(expression, BoolOp):
        return BoolOp(
            expression.op,
            tuple(_developer_knowledge_literals(i, field) for i in expression.items),
        )
    name = expression.field
    kind = DEVELOPER_KNOWLEDGE_FIELDS.get(name)
    if kind is None:
        supported = ", ".join(DEVELOPER_KNOWLEDGE_FIELDS)
        raise InvalidArgument(
            f"{field}: {name!r} is not a filterable field (supported: {supported})", field=field
        )
    if isinstance(expression, AnyOf):
        raise InvalidArgument(
            f'{field}: ANY() is not supported here; use {name} = "..." (combine with OR)',
            field=field,
        )
    value = expression.value
    if kind == "STRING":
        if expression.op not in ("=", "!="):
            raise InvalidArgument(
                f"{field}: {name} is a string field and supports only = and !=, "
                f"got {expression.op}",
                field=field,
            )
        if not isinstance(value, str):
            raise InvalidArgument(
                f"{field}: {name} needs a double-quoted string, got {value!r}", field=field
            )
        return expression
    if expression.op == "!=":
        raise InvalidArgument(f"{field}: {name} supports =, <, <=, > and >=, not !=", field=field)
    if kind == "TIMESTAMP":
        if not isinstance(value, str):
            raise InvalidArgument(
                f"{field}: update_time needs a quoted RFC 3339 timestamp such as "
                f'"2025-01-01T00:00:00Z", got {value!r}',
                field=field,
            )
        return Compare(name, expression.op, _timestamp(value, field))
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except ValueError:
        number = math.nan
    if math.isnan(number) or not number.is_integer():
        raise InvalidArgument(f"{field}: {name} needs an integer, got {value!r}", field=field)
    return Compare(name, expression.op, number)


@functools.lru_cache(maxsize=512)
def parse_developer_knowledge_filter(text: str, field: str = "filter") -> Expression | None:
    """A Developer Knowledge (AIP-160) filter, checked against its fields (``None`` if empty)."""
    if not text.strip():
        return None
    expression = _parse(text, _AIP_160, field, 'data_source = "docs.python.org"')
    return _developer_knowledge_literals(expression, field)


def predicate(
    expression: Expression, fields_of_document: Callable[[int], Mapping[str, Any]]
) -> Callable[[int], bool]:
    """``document_index -> bool`` for ``expression`` over ``fields_of_document``."""
    return lambda index: evaluate(expression, fields_of_document(index))
