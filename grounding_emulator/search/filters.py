"""Filter expressions: parsed with ``lark`` (LALR, linear) into a small tree, then evaluated per
document.

Two dialects:

- **Discovery Engine** (``SearchRequest.filter``, boost conditions, AnswerQuery's
  ``search_spec.search_params.filter``), as Google's page "Filter generic search for structured
  or unstructured data" (cloud.google.com/generative-ai-app-builder/docs/filter-search-metadata)
  writes it, on struct data fields (nested ones with dots: ``office.location``)::

      category: ANY("persona_A", "persona_B")          text fields (exact match)
      score: IN(*, 100.0e)   score >= 10   price < 175  numbers
      non-smoking = "true"                            booleans
      manufactured_date >= "2024-04-16"               datetimes (ISO 8601)
      office.location: GEO_DISTANCE(34.18, -121.29, 500)   geolocations (meters)
      NOT category: ANY("x")   -category: ANY("x")    negation; AND, OR, parentheses

  ``IN(lower, upper)``: ``*`` is an open bound; a bound may end in ``i`` (inclusive) or ``e``
  (exclusive); by default, as the page says, the lower bound is inclusive and the upper one
  exclusive. A datetime literal covers its year (``"2023"``), month, day or instant: ``=`` is
  "within it", ``>=`` "on or after its start", ``<`` "before its start", ``<=`` "before its
  end", ``>`` "from its end"; a number compared with a datetime is microseconds since the
  epoch. Each form needs a field of its type (``corpus/schema.py`` detects the types): ``!=``,
  comparisons on text fields, ``ANY`` on other fields are refused, each naming what to write
  instead. The page's grammar gives no precedence between ``AND`` and ``OR``; the emulator binds
  ``NOT`` tighter than ``AND`` and ``AND`` tighter than ``OR`` (the page's examples parenthesize
  mixed ones). The address form of ``GEO_DISTANCE`` needs geocoding, which the emulator cannot
  do offline: it is refused, naming the latitude/longitude form.
- **AIP-160 as the Developer Knowledge API takes it**, on ``data_source``, ``uri`` (strings:
  ``=`` and ``!=``), ``update_time`` (an RFC 3339 string: ``=``, ``<``, ``<=``, ``>``, ``>=``) and
  ``content_length_bytes`` (an integer: the same). ``NOT`` or ``-`` negates; as documented there,
  ``OR`` binds tighter than ``AND``.

A malformed expression raises ``InvalidArgument`` naming the request field and the column,
quoting a bounded excerpt of it. Google documents neither a depth nor a length for these
filters; so that parsing and evaluation stay bounded (no recursion limit is reached, no request
holds a worker for seconds), the emulator refuses, before parsing, a filter longer than
``MAX_FILTER_LENGTH`` characters or one whose linear pre-scan finds parentheses, or negations in
a row, deeper than ``MAX_FILTER_DEPTH``; after parsing, one whose ``NOT``/``AND``/``OR`` nest
deeper than that.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from lark import Lark, Token, exceptions
from lark.visitors import Transformer_NonRecursive

from grounding_emulator.corpus.schema import FieldType, Moment, geolocation_of, parse_moment
from grounding_emulator.errors import InvalidArgument, excerpt

__all__ = [
    "DEVELOPER_KNOWLEDGE_FIELDS",
    "MAX_FILTER_DEPTH",
    "MAX_FILTER_LENGTH",
    "AnyOf",
    "BoolOp",
    "Compare",
    "Expression",
    "GeoDistance",
    "InRange",
    "Not",
    "bind_filter",
    "check_filter_size",
    "evaluate",
    "parse_developer_knowledge_filter",
    "parse_filter",
]

# NOT/AND/OR nesting a filter may have (not documented by Google; far beyond real filters).
MAX_FILTER_DEPTH = 100
# Characters a filter may have (not documented by Google): an ANY() of 1,000 ids of 40
# characters fits; the parser reads about 100,000 characters a second, so a request of this
# bound holds its worker for well under a second.
MAX_FILTER_LENGTH = 50_000
# The pre-scan's tokens: a string literal (escapes included, unterminated to the end), a
# parenthesis, a negation (NOT, or '-' starting a term), anything else. Linear: each
# alternative's first character decides it.
_SCAN = re.compile(r'"(?:[^"\\]|\\.)*"?|[()]|\bNOT\b|(?<![\w.])-|[^\s()"]+')
_EARTH_RADIUS_METERS = 6_371_008.8

Op = Literal["=", "!=", "<", "<=", ">", ">="]
Literal_ = str | float | bool | Moment

# The literals, keywords and operators of both dialects.
_LITERALS = r"""
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
    OP: "!=" | "<=" | ">=" | "=" | "<" | ">"
    %import common.ESCAPED_STRING
    %import common.SIGNED_NUMBER
    %import common.WS
    %ignore WS
"""

# Negation, the same in both dialects.
_NOT_EXPR = r"""
    ?not_expr: _NOT not_expr      -> not_
             | "-" not_expr       -> not_
             | atom
"""

# Discovery Engine (the page's EBNF): NOT > AND > OR. Field names may hold '-'
# ("non-smoking"); '!=' and bare true/false are lexed only to be refused with a hint.
_DISCOVERY_ENGINE = (
    r"""
    ?start: expr
    ?expr: or_expr
    ?or_expr: and_expr (_OR and_expr)*   -> or_
    ?and_expr: not_expr (_AND not_expr)* -> and_
"""
    + _NOT_EXPR
    + r"""
    ?atom: "(" expr ")"
         | FIELD ":" _ANY "(" value ("," value)* ")"                          -> any_
         | FIELD ":" _IN "(" BOUND "," BOUND ")"                             -> in_
         | FIELD ":" _GEO "(" ESCAPED_STRING "," SIGNED_NUMBER ")"           -> geo_address
         | FIELD ":" _GEO "(" SIGNED_NUMBER "," SIGNED_NUMBER "," SIGNED_NUMBER ")" -> geo_point
         | FIELD OP value                                                    -> compare
    _IN: "IN"
    _GEO: "GEO_DISTANCE"
    FIELD: /[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*/
    BOUND: /\*|[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?[ei]?/
"""
    + _LITERALS
)

# AIP-160 as Developer Knowledge documents it: NOT > OR > AND.
_AIP_160 = (
    r"""
    ?start: expr
    ?expr: and_expr
    ?and_expr: or_expr (_AND or_expr)*   -> and_
    ?or_expr: not_expr (_OR not_expr)*   -> or_
"""
    + _NOT_EXPR
    + r"""
    ?atom: "(" expr ")"
         | FIELD ":" _ANY "(" value ("," value)* ")"   -> any_
         | FIELD OP value                               -> compare
    FIELD: /[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/
"""
    + _LITERALS
)


@dataclass(frozen=True, slots=True)
class AnyOf:
    """``field: ANY(values...)``."""

    field: str
    values: tuple[Literal_, ...]


@dataclass(frozen=True, slots=True)
class Compare:
    """``field op value`` (for a datetime field, ``value`` is the literal's ``Moment``)."""

    field: str
    op: Op
    value: Literal_


@dataclass(frozen=True, slots=True)
class InRange:
    """``field: IN(lower, upper)``; ``None`` is an open (``*``) bound."""

    field: str
    lower: float | None
    upper: float | None
    lower_inclusive: bool = True
    upper_inclusive: bool = False


@dataclass(frozen=True, slots=True)
class GeoDistance:
    """``field: GEO_DISTANCE(latitude, longitude, meters)``."""

    field: str
    latitude: float
    longitude: float
    meters: float


@dataclass(frozen=True, slots=True)
class Not:
    """``NOT item``."""

    item: Expression


@dataclass(frozen=True, slots=True)
class BoolOp:
    """``AND`` or ``OR`` of two or more items."""

    op: Literal["AND", "OR"]
    items: tuple[Expression, ...]


Expression = AnyOf | Compare | InRange | GeoDistance | Not | BoolOp


class _Tree(Transformer_NonRecursive[Token, Expression]):
    """Parse tree -> ``Expression`` without recursion (a deep filter cannot overflow)."""

    def string(self, items: list[Token]) -> str:
        raw = str(items[0])[1:-1]
        return raw.encode("latin-1", "backslashreplace").decode("unicode_escape")

    def number(self, items: list[Token]) -> float:
        return float(items[0])

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


class _Aip160Tree(_Tree):
    """AIP-160 takes bare ``true`` and ``false``."""

    def true(self, items: list[Token]) -> bool:
        return True

    def false(self, items: list[Token]) -> bool:
        return False


class _Bare(str):
    """A bare ``true``/``false``: the page writes booleans as strings (``flag = "true"``)."""

    __slots__ = ()


class _DiscoveryEngineTree(_Tree):
    """The Discovery Engine forms, refusing what the page's grammar does not have."""

    def __init__(self, field: str) -> None:
        super().__init__()
        self.field = field

    def _refuse(self, message: str) -> InvalidArgument:
        return InvalidArgument(f"{self.field}: {message}", field=self.field)

    def true(self, items: list[Token]) -> _Bare:
        return _Bare("true")

    def false(self, items: list[Token]) -> _Bare:
        return _Bare("false")

    def _literal(self, name: str, value: Any) -> Any:
        if isinstance(value, _Bare):
            raise self._refuse(
                f'a boolean is written as a string: {excerpt(name, quote=False)} = "{value}"'
            )
        return value

    def any_(self, items: list[Any]) -> AnyOf:
        name = str(items[0])
        return AnyOf(name, tuple(self._literal(name, v) for v in items[1:]))

    def compare(self, items: list[Any]) -> Compare:
        name, op, value = str(items[0]), str(items[1]), items[2]
        if op == "!=":
            name = excerpt(name, quote=False)
            raise self._refuse(
                f"!= is not in the filter grammar: use NOT {name}: ANY(...) for a text field, "
                f"NOT {name} = <number> for a number"
            )
        return Compare(name, cast(Op, op), self._literal(name, value))

    def in_(self, items: list[Token]) -> InRange:
        lower, lower_inclusive = self._bound(items[1], default_inclusive=True)
        upper, upper_inclusive = self._bound(items[2], default_inclusive=False)
        return InRange(str(items[0]), lower, upper, lower_inclusive, upper_inclusive)

    def _bound(self, token: Token, *, default_inclusive: bool) -> tuple[float | None, bool]:
        text = str(token)
        if text == "*":
            return None, default_inclusive
        inclusive = {"i": True, "e": False}.get(text[-1], default_inclusive)
        return float(text.rstrip("ie")), inclusive

    def geo_address(self, items: list[Any]) -> GeoDistance:
        name = excerpt(str(items[0]), quote=False)
        raise self._refuse(
            f"{name}: GEO_DISTANCE with an address needs geocoding, which the emulator "
            f"cannot do offline: write {name}: GEO_DISTANCE(latitude, longitude, meters), "
            f"e.g. {name}: GEO_DISTANCE(37.422, -122.084, 500)"
        )

    def geo_point(self, items: list[Token]) -> GeoDistance:
        name = str(items[0])
        latitude, longitude, meters = (float(t) for t in items[1:])
        shown = excerpt(name, quote=False)
        if not -90 <= latitude <= 90 or not -180 <= longitude <= 180:
            raise self._refuse(
                f"{shown}: GEO_DISTANCE needs a latitude in [-90, 90] and a longitude in "
                f"[-180, 180], got {latitude}, {longitude}"
            )
        if not meters >= 0:
            raise self._refuse(f"{shown}: GEO_DISTANCE needs a distance >= 0 meters, got {meters}")
        return GeoDistance(name, latitude, longitude, meters)


@functools.cache
def _parser(grammar: str) -> Lark:
    return Lark(grammar, parser="lalr", maybe_placeholders=False)


def check_filter_size(text: str, field: str) -> None:
    """Refuse (``InvalidArgument`` naming ``field``), before parsing, a filter longer than
    ``MAX_FILTER_LENGTH`` or one whose parentheses, or negations in a row, nest deeper than
    ``MAX_FILTER_DEPTH``: one linear scan, for any AIP-160-like grammar (strings in double
    quotes, ``NOT`` or ``-`` to negate)."""
    if len(text) > MAX_FILTER_LENGTH:
        raise InvalidArgument(
            f"{field} has {len(text)} characters; at most {MAX_FILTER_LENGTH} are allowed "
            "(the emulator's bound: Google documents none)",
            field=field,
        )
    depth = deepest = run = longest = 0
    for token in _SCAN.finditer(text):
        kind = token.group()
        if kind == "(":  # NOT (NOT (...: the run of negations goes on
            depth += 1
            deepest = max(deepest, depth)
        elif kind in ("NOT", "-"):
            run += 1
            longest = max(longest, run)
        else:
            if kind == ")":
                depth -= 1
            run = 0
    if deepest > MAX_FILTER_DEPTH:
        raise InvalidArgument(
            f"{field} nests parentheses {deepest} levels deep; at most {MAX_FILTER_DEPTH} are "
            "allowed: write it flatter (a OR b OR c needs no parentheses)",
            field=field,
        )
    if longest > MAX_FILTER_DEPTH:
        raise InvalidArgument(
            f"{field} has {longest} negations (NOT or -) in a row; at most {MAX_FILTER_DEPTH} "
            "are allowed: two negations cancel out",
            field=field,
        )


def _describe(exc: exceptions.UnexpectedInput, text: str) -> str:
    column = getattr(exc, "column", None)
    if isinstance(exc, exceptions.UnexpectedEOF) or column in (None, -1):
        return "it ends too early (an operand or a closing parenthesis is missing)"
    if isinstance(exc, exceptions.UnexpectedToken):
        found = "end of input" if exc.token.type == "$END" else repr(str(exc.token)[:40])
        return f"unexpected {found} at column {column}"
    pos = getattr(exc, "pos_in_stream", None)
    char = text[pos] if isinstance(pos, int) and 0 <= pos < len(text) else "?"
    return f"unexpected {char!r} at column {column}"


def _depth(expression: Expression) -> int:
    """How deep ``NOT``/``AND``/``OR`` nest in ``expression`` (iteratively)."""
    deepest = 0
    stack: list[tuple[Expression, int]] = [(expression, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, Not):
            stack.append((node.item, depth + 1))
        elif isinstance(node, BoolOp):
            stack.extend((item, depth + 1) for item in node.items)
    return deepest


def _parse(text: str, grammar: str, field: str, example: str, tree: _Tree) -> Expression:
    check_filter_size(text, field)
    try:
        expression: Expression = tree.transform(_parser(grammar).parse(text))
    except exceptions.UnexpectedInput as exc:
        column = getattr(exc, "column", None)
        raise InvalidArgument(
            f"{field} is malformed: {_describe(exc, text)} in "
            f"{excerpt(text, around=column - 1 if isinstance(column, int) else None)} "
            f"(for example {example})",
            field=field,
        ) from exc
    except exceptions.VisitError as exc:
        if isinstance(exc.orig_exc, InvalidArgument):
            raise exc.orig_exc from exc
        raise InvalidArgument(
            f"{field} is malformed: {excerpt(str(exc.orig_exc), quote=False)}", field=field
        ) from exc
    if _depth(expression) > MAX_FILTER_DEPTH:
        raise InvalidArgument(
            f"{field} nests NOT, AND and OR more than {MAX_FILTER_DEPTH} levels deep: "
            "write it flatter (a OR b OR c needs no parentheses)",
            field=field,
        )
    return expression


@functools.lru_cache(maxsize=512)
def parse_filter(text: str, field: str = "filter") -> Expression | None:
    """A Discovery Engine filter's syntax (``None`` for an empty one); ``bind_filter`` checks it
    against a data store's field types."""
    if not text.strip():
        return None
    return _parse(
        text, _DISCOVERY_ENGINE, field, 'category: ANY("statements")', _DiscoveryEngineTree(field)
    )


# -- binding to a data store's field types ------------------------------------------------------

_EXAMPLES: dict[FieldType, str] = {
    "text": '{name}: ANY("value")',
    "number": "{name} = 3, {name} >= 3 or {name}: IN(1, 5)",
    "boolean": '{name} = "true"',
    "datetime": '{name} >= "2024-04-16" or {name} < "2024-04-16T12:00:00Z"',
    "geolocation": "{name}: GEO_DISTANCE(37.422, -122.084, 500)",
}
_ARTICLES: dict[FieldType, str] = {
    "text": "a text",
    "number": "a number",
    "boolean": "a boolean",
    "datetime": "a datetime",
    "geolocation": "a geolocation",
}


class _Binder:
    """Checks each form against the type of its field and turns datetime and boolean literals
    into the values they compare with."""

    def __init__(self, types: Mapping[str, frozenset[FieldType]], field: str, store: str) -> None:
        self.types = types
        self.field = field
        self.store = store

    def _refuse(self, name: str, types: frozenset[FieldType], form: str) -> InvalidArgument:
        kinds = " and ".join(_ARTICLES[t] for t in sorted(types))
        writes = "; ".join(_EXAMPLES[t].format(name=name) for t in sorted(types))
        return InvalidArgument(
            f"{self.field}: {name} is {kinds} field of data store {self.store!r} and {form} does "
            f"not apply to it: write {writes}",
            field=self.field,
        )

    def bind(self, expression: Expression) -> Expression:
        if isinstance(expression, Not):
            return Not(self.bind(expression.item))
        if isinstance(expression, BoolOp):
            return BoolOp(expression.op, tuple(self.bind(item) for item in expression.items))
        name = expression.field
        types = self.types.get(name)
        if types is None:
            known = sorted(self.types)
            listed = ", ".join(known[:30]) + (f", ... ({len(known)} in all)" if known[30:] else "")
            raise InvalidArgument(
                f"{self.field}: {excerpt(name)} is not a struct_data field of data store "
                f"{self.store!r} (fields: {listed or 'none'})",
                field=self.field,
            )
        if not types:
            return expression  # only nulls: any form, matching nothing
        if isinstance(expression, AnyOf):
            if "text" not in types:
                raise self._refuse(name, types, "ANY()")
            if not all(isinstance(v, str) for v in expression.values):
                raise InvalidArgument(
                    f'{self.field}: ANY() takes double-quoted strings: {name}: ANY("a", "b")',
                    field=self.field,
                )
            return expression
        if isinstance(expression, InRange):
            if "number" not in types:
                raise self._refuse(name, types, "IN()")
            return expression
        if isinstance(expression, GeoDistance):
            if "geolocation" not in types:
                raise self._refuse(name, types, "GEO_DISTANCE()")
            return expression
        return self._comparison(expression, types)

    def _comparison(self, expression: Compare, types: frozenset[FieldType]) -> Compare:
        name, op, value = expression.field, expression.op, expression.value
        form = f"{op} {excerpt(value)}" if isinstance(value, str) else f"{op} {value:g}"
        if isinstance(value, float):
            if types & {"number", "datetime"}:
                return expression
            raise self._refuse(name, types, form)
        if isinstance(value, str) and "boolean" in types and value in ("true", "false"):
            if op != "=":
                raise self._refuse(name, types, form)
            return Compare(name, op, value == "true")
        if isinstance(value, str) and "datetime" in types:
            moment = parse_moment(value)
            if moment is None:
                raise InvalidArgument(
                    f"{self.field}: {name} is a datetime field: compare it with an ISO 8601 "
                    f'date or date-time such as "2024-04-16" or "2024-04-16T12:00:00Z", '
                    f"got {excerpt(value)}",
                    field=self.field,
                )
            return Compare(name, op, moment)
        raise self._refuse(name, types, form)


def bind_filter(
    expression: Expression, types: Mapping[str, frozenset[FieldType]], field: str, store: str
) -> Expression:
    """``expression`` checked against the field types of data store ``store`` (``InvalidArgument``
    naming ``field`` for an unknown field or a form its type does not take)."""
    return _Binder(types, field, store).bind(expression)


# -- evaluation ---------------------------------------------------------------------------------


def _ordered(left: float, op: Op, right: float) -> bool:
    if op == "=":
        return math.isclose(left, right)
    if op == "!=":
        return not math.isclose(left, right)
    if op == "<":
        return left < right
    if op == "<=":
        return left <= right
    if op == ">":
        return left > right
    return left >= right


def _within(value: Moment, op: Op, literal: Moment) -> bool:
    """A datetime value (by its start) against the span of a datetime literal."""
    start, (low, high) = value[0], literal
    if op == "=":
        return low <= start < high
    if op == "<":
        return start < low
    if op == "<=":
        return start < high
    if op == ">":
        return start >= high
    return start >= low


def _compares(value: Any, op: Op, literal: Literal_) -> bool:
    if isinstance(literal, bool):
        return isinstance(value, bool) and value is literal
    if isinstance(value, bool):
        return False
    if isinstance(literal, tuple):
        moment = parse_moment(value) if isinstance(value, str) else None
        return moment is not None and _within(moment, op, literal)
    if isinstance(literal, float):
        if isinstance(value, int | float):
            return _ordered(float(value), op, literal)
        moment = parse_moment(value) if isinstance(value, str) else None
        return moment is not None and _ordered(float(moment[0]), op, literal)
    return isinstance(value, str) and (value == literal) is (op == "=")


def _in_range(value: Any, expression: InRange) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    lower, upper = expression.lower, expression.upper
    if lower is not None and (value < lower or (value == lower and not expression.lower_inclusive)):
        return False
    return upper is None or value < upper or (value == upper and expression.upper_inclusive)


def _meters(value: Any, expression: GeoDistance) -> float:
    point = geolocation_of(value)
    if point is None:
        return math.inf
    lat1, lng1, lat2, lng2 = map(
        math.radians, (point[0], point[1], expression.latitude, expression.longitude)
    )
    haversine = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
    )
    return 2 * _EARTH_RADIUS_METERS * math.asin(min(1.0, math.sqrt(haversine)))


def _values(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


_MISSING = object()


def evaluate(expression: Expression, fields: Mapping[str, Any]) -> bool:
    """Whether a document with (flattened) ``fields`` matches ``expression``.

    A missing field matches nothing (and so ``NOT`` of it matches); a list field matches when
    one of its values does.
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
    values = _values(value)
    if isinstance(expression, AnyOf):
        return any(isinstance(v, str) and v in expression.values for v in values)
    if isinstance(expression, InRange):
        return any(_in_range(v, expression) for v in values)
    if isinstance(expression, GeoDistance):
        return any(_meters(v, expression) <= expression.meters for v in values)
    if expression.op == "!=":
        return all(_compares(v, "!=", expression.value) for v in values)
    return any(_compares(v, expression.op, expression.value) for v in values)


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
            f'"2025-01-01T00:00:00Z", got {excerpt(value)}',
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
            f"{field}: {excerpt(name)} is not a filterable field (supported: {supported})",
            field=field,
        )
    if not isinstance(expression, Compare):  # ANY(), the only other form of the grammar
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
                f"{field}: {name} needs a double-quoted string, got {excerpt(value)}",
                field=field,
            )
        return expression
    if expression.op == "!=":
        raise InvalidArgument(f"{field}: {name} supports =, <, <=, > and >=, not !=", field=field)
    if kind == "TIMESTAMP":
        if not isinstance(value, str):
            raise InvalidArgument(
                f"{field}: update_time needs a quoted RFC 3339 timestamp such as "
                f'"2025-01-01T00:00:00Z", got {excerpt(value)}',
                field=field,
            )
        return Compare(name, expression.op, _timestamp(value, field))
    try:
        number = float(value) if isinstance(value, str | float) else math.nan
    except ValueError:
        number = math.nan
    if math.isnan(number) or not number.is_integer():
        raise InvalidArgument(
            f"{field}: {name} needs an integer, got {excerpt(value)}", field=field
        )
    return Compare(name, expression.op, number)


@functools.lru_cache(maxsize=512)
def parse_developer_knowledge_filter(text: str, field: str = "filter") -> Expression | None:
    """A Developer Knowledge (AIP-160) filter, checked against its fields (``None`` if empty)."""
    if not text.strip():
        return None
    expression = _parse(text, _AIP_160, field, 'data_source = "docs.python.org"', _Aip160Tree())
    return _developer_knowledge_literals(expression, field)
