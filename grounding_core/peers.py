"""What the adapters' constructors do with their keyword arguments: the peers' names translated
to ours with a ``DeprecationWarning``, unknown names refused with the closest known one (``kk=3``
would otherwise build a component with the default ``k`` in silence); no error shows a value.

Code ported from langchain-google-community (``VertexAISearchRetriever``,
``VertexAICheckGroundingWrapper``, ``VertexAISearchSummaryTool``, ``VertexAIRank``) or
llama-index-retrievers-vertexai-search (``VertexAISearchRetriever``) keeps working once the import
and class name change: ``location_id="eu"`` is ``location="eu"``, with a warning naming the peer,
our name and the value; the peers' ``$PROJECT_ID`` and ``$DATA_STORE_ID`` are read where ours are
unset; a retriever given its peer's names takes the peer's defaults for the options not given,
to search as it did (ours win), and so does a retriever given, without ``search_mode``, options
only the peer's documents search takes (``max_extractive_segment_count=1``). ``None`` where
the peer takes it for "none" (``filter=None``) is our default, and a peer name set to the
peer's own default (``custom_embedding=None``) changes nothing. A name with no equivalent set
to anything else (a real ``custom_embedding``) or given with ours for the same setting is a
``TypeError`` saying what to use instead; a bad peer value (``engine_data_type=7``), an
``InputError`` naming the field.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     translate_peer_arguments(
...         "DiscoveryEngineAnswer", PEER_CONNECTION_ARGUMENTS, {"location_id": "eu"}
...     )
{'location': 'eu'}
>>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
DiscoveryEngineAnswer got langchain-google-community's name: VertexAISearchRetriever's
`location_id='eu'` is `location='eu'` here. Write our names: the peers' names are deprecated.
>>> unknown_arguments_message("Retriever", ["kk", "k"], ["k", "filter"]).split(":")[0]
"Retriever got an unknown argument 'kk' (did you mean 'k'?)"
"""

from __future__ import annotations

import difflib
import functools
import inspect
import json
import os
import sys
import typing
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

# The adapters' constructors check their own counts (similarity_top_k) with it.
from ._checks import check_count as check_count
from ._errors import InputError
from ._settings import GROUNDING_DATA_STORE, PROJECT_ENV_VARS

LANGCHAIN_PEER = "langchain-google-community"
LLAMAINDEX_PEER = "llama-index-retrievers-vertexai-search"
# Values and names are shown cut to this many characters (a prompt or a filter may be long).
_SHOWN_CHARS = 60
# Frames of these packages are not the caller a warning points at.
_INTERNAL_PACKAGES = frozenset(
    {"grounding_core", "langchain_grounding", "llamaindex_grounding", "pydantic", "langchain_core"}
    | {"llama_index", "typing_extensions"}
)

Convert = Callable[[Any], dict[str, Any]]  # a peer's value -> our keyword arguments
_Factory = Callable[[str, str], Convert]  # (the peer's name, ours) -> its conversion
_Check = Callable[[str], Convert]  # the peer's name -> a conversion giving none of ours

PEER_PROJECT_ENV_VAR = "PROJECT_ID"
"""langchain-google-community's project variable, read after ``$GOOGLE_CLOUD_PROJECT``."""
PEER_DATA_STORE_ENV_VAR = "DATA_STORE_ID"
"""langchain-google-community's data store variable, read after ``$GROUNDING_DATA_STORE``."""


def _peer_environment(
    component: str, known: Collection[str], given: Mapping[str, Any]
) -> dict[str, Any]:
    """The peer's ``$PROJECT_ID`` / ``$DATA_STORE_ID`` (with a ``DeprecationWarning``), ours unset,
    for a component taking ``project_id`` / ``data_store_id`` that got none (nor ``engine_id``)."""
    unset = {
        "project_id": not (given.get("project_id") or any(map(os.environ.get, PROJECT_ENV_VARS))),
        "data_store_id": given.get("data_store_id") is None
        and given.get("engine_id") is None
        and not os.environ.get(GROUNDING_DATA_STORE),
    }
    found = {}
    for name, variable, ours in (
        ("project_id", PEER_PROJECT_ENV_VAR, "GOOGLE_CLOUD_PROJECT"),
        ("data_store_id", PEER_DATA_STORE_ENV_VAR, GROUNDING_DATA_STORE),
    ):
        if name in known and unset[name] and os.environ.get(variable):
            found[name] = os.environ[variable]
            text = f"{component} read ${variable}, {LANGCHAIN_PEER}'s variable, as {name}="
            text += f"{found[name]!r}: set {ours} (or pass {name}=...) instead"
            warnings.warn(text, DeprecationWarning, stacklevel=_caller_stacklevel())
    return found


@dataclass(frozen=True, slots=True)
class PeerArgument:
    """One argument name of a peer's component: ``convert`` turns its value into our keyword
    arguments (named by ``ours``; none: the name is ignored, ``note`` says why), or is ``None``
    when the name has no equivalent here (``note`` says why and what to do). ``defaults``: the
    peer's values that change nothing (its default, and ``None``), accepted even then."""

    package: str
    component: str
    name: str
    ours: tuple[str, ...]
    convert: Convert | None
    note: str = ""
    defaults: tuple[Any, ...] = ()

    def is_default(self, value: Any) -> bool:
        """Whether ``value`` is one of the peer's ``defaults`` (``True`` is not ``1.0``)."""
        return any(type(value) is type(d) and value == d for d in self.defaults)


@dataclass(frozen=True, slots=True)
class PeerDefaults:
    """The peer's defaults, in our names, for the options not given when a name of ``component``
    (of ``package``) is: ``values(peer names given -> value, our names given -> value)``.
    ``shared``: names of ours the peer has too that only its defaults make valid (the options
    of its documents search): given without ``search_mode``, they bring the defaults too."""

    package: str
    component: str
    values: Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]
    shared: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class PeerTable:
    """The peer names one component accepts, and the peer defaults they bring. ``nones``: our
    names the peer takes ``None`` for, meaning its default (``filter=None``): ``None`` there
    is dropped, so that ours applies."""

    arguments: tuple[PeerArgument, ...]
    defaults: PeerDefaults | None = None
    nones: frozenset[str] = frozenset()

    @property
    def names(self) -> frozenset[str]:
        """The peer names of this table."""
        return frozenset(a.name for a in self.arguments)


def _cut(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "..."


def _shown(value: object) -> str:
    """``value`` for a message: cut if long; an object by its type (think of credentials)."""
    if not isinstance(value, str | int | float | bool | dict | list | tuple | type(None)):
        return f"<{type(value).__name__}>"
    return _cut(repr(value))


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside this package, the frameworks and pydantic:
    the user's line that built the component."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and (
        str(frame.f_globals.get("__name__", "")).partition(".")[0] in _INTERNAL_PACKAGES
    ):
        frame = frame.f_back
        level += 1
    return level


def translate_peer_arguments(
    component: str,
    table: PeerTable | None,
    arguments: Mapping[str, Any],
    known: Collection[str] = (),
) -> dict[str, Any]:
    """A copy of ``arguments`` with the peer names of ``table`` replaced by ours, and one
    ``DeprecationWarning`` listing them. ``component`` (ours) names the component in messages;
    ``known`` are its names (the peer's environment variables fill those it did not get)."""
    if table is None:
        return dict(arguments)
    arguments = {
        name: value
        for name, value in {**arguments, **_peer_environment(component, known, arguments)}.items()
        if not (value is None and name in table.nones)
    }
    given = [a for a in table.arguments if a.name in arguments]
    defaults, shared, text = table.defaults, [], ""
    if defaults is not None and "search_mode" not in arguments:
        shared = sorted(defaults.shared & arguments.keys())
        if shared and not given:  # only those: the peer's defaults make them valid
            them = "it" if len(shared) == 1 else "them"
            text = (
                f"{component} got {', '.join(shared)} without search_mode, as "
                f"{defaults.package}'s {defaults.component} takes {them}."
            )
    if not given and not shared:
        return arguments
    refused = "; ".join(
        f"{a.package}'s {a.component} `{a.name}` has no equivalent here: {a.note}"
        for a in given
        if a.convert is None and not a.is_default(arguments[a.name])
    )
    if refused:
        raise TypeError(f"{component}: {refused}")
    ours_given = {name: value for name, value in arguments.items() if name not in table.names}
    result = dict(ours_given)
    set_by: dict[str, str] = {}  # our name -> the peer name that set it
    lines = []
    for argument in given:
        value = arguments[argument.name]
        default = argument.is_default(value)
        converted = {} if default or argument.convert is None else argument.convert(value)
        for name in converted:
            if name in set_by:
                raise TypeError(
                    f"{component} got both `{set_by[name]}` and `{argument.name}` "
                    f"({argument.package}'s names), which both set `{name}`: keep one (better: "
                    f"`{name}`)"
                )
            if name in result:
                raise TypeError(
                    f"{component} got both `{argument.name}` ({argument.package}'s name for "
                    f"`{name}`) and `{name}`: keep `{name}` and drop `{argument.name}`"
                )
            set_by[name] = argument.name
        result.update(converted)
        said = f"{argument.component}'s `{argument.name}={_shown(value)}`"
        if default or (argument.ours and not converted):
            lines.append(f"{said} is the peer's default, and changes nothing here")
        elif not argument.ours:
            lines.append(f"{said} is ignored here: {argument.note}")
        else:
            ours = ", ".join(f"{name}={_shown(v)}" for name, v in converted.items())
            note = f" ({argument.note})" if argument.note else ""
            lines.append(f"{said} is `{ours}` here{note}")
    if given:
        packages = " and ".join(sorted({a.package for a in given}))
        text = f"{component} got {packages}'s {'name' if len(given) == 1 else 'names'}: "
        text += "; ".join(lines) + "."
    if defaults is not None and (
        shared
        or any((a.package, a.component) == (defaults.package, defaults.component) for a in given)
    ):
        values = defaults.values({a.name: arguments[a.name] for a in given}, ours_given)
        applied = {name: value for name, value in values.items() if name not in result}
        result.update(applied)
        if applied:
            text += (
                f" As {defaults.component} did, the options not given take its defaults: "
                f"{', '.join(f'{n}={v!r}' for n, v in applied.items())} (pass any of them to "
                "change it)."
            )
    if given:
        text += " Write our names: the peers' names are deprecated."
    else:
        text += " Pass search_mode='documents' to choose every option yourself."
    warnings.warn(text, DeprecationWarning, stacklevel=_caller_stacklevel())
    return result


def peer_table_of(component: type, known: Collection[str]) -> PeerTable | None:
    """``component``'s ``_peer_arguments``, else ``PEER_CONNECTION_ARGUMENTS`` for a component
    taking a Discovery Engine connection (``project_id`` and ``location`` among ``known``)."""
    table = getattr(component, "_peer_arguments", None)
    if isinstance(table, PeerTable):
        return table
    if "location" in known and "project_id" in known:
        return PEER_CONNECTION_ARGUMENTS
    return None


# -- value conversions: each checks the peer's value (an InputError naming the peer's name) --


def _checked(peer_name: str, value: Any, kind: Any, what: str, hint: str = "") -> Any:
    """``value`` if a ``kind``, else an ``InputError``: ``peer_name`` must be ``what``."""
    if not isinstance(value, kind):
        raise InputError(
            f"{peer_name} must be {what}, got {type(value).__name__}{hint}", field=peer_name
        )
    return value


def _checked_flag(peer_name: str, value: Any) -> bool:
    return bool(_checked(peer_name, value, bool, "True or False", f" {_shown(value)}"))


def _text(peer_name: str, ours: str) -> Convert:
    hint = f": write {ours}='...' instead"
    return lambda value: {ours: _checked(peer_name, value, str, "a string", hint)}


def _answers(peer_name: str, ours: str) -> Convert:
    return lambda value: {ours: "extractive_answers"} if _checked_flag(peer_name, value) else {}


def _title(peer_name: str, ours: str) -> Convert:
    what, hint = "a metadata key (a string)", f": write {ours}=('title',) instead"
    return lambda v: {} if v is None else {ours: (_checked(peer_name, v, str, what, hint),)}


def _enum(
    peer_name: str, ours: str, choices: Mapping[int, tuple[str | None, str]], hint: str = ""
) -> Convert:
    """The peer's enum number (``choices``: number -> our value and its meaning) as ours;
    ``hint``: how it is written here (default: ``ours`` and its values)."""
    allowed = ", ".join(f"{number} ({meaning})" for number, (_, meaning) in choices.items())
    hint = hint or f"here write {ours}= with one of {[v for v, _ in choices.values()]}"

    def convert(value: Any) -> dict[str, Any]:
        if isinstance(value, bool) or value not in choices:
            problem = f"must be one of {allowed}, got {_shown(value)}; {hint}"
            raise InputError(f"{peer_name} {problem}", field=peer_name, limit=sorted(choices))
        return {ours: choices[value][0]}

    return convert


def _checking(check: Callable[[str, Any], Any], peer_name: str, ours: str = "") -> Convert:
    """The conversion of ``peer_name``'s value checked by ``check`` into ``ours``; without
    ``ours``, into nothing (the value is only checked: the name changes nothing here)."""

    def convert(value: Any) -> dict[str, Any]:
        checked = check(peer_name, value)
        return {ours: checked} if ours else {}

    return convert


_count = _ignored_count = functools.partial(_checking, functools.partial(check_count, minimum=1))
_flag = _ignored_flag = functools.partial(_checking, _checked_flag)
_ignored_text = functools.partial(
    _checking, functools.partial(_checked, kind=str | None, what="a string")
)


_engine_data_type = _enum(
    "engine_data_type",
    "search_mode",
    {0: ("documents", "unstructured data"), 1: ("documents", "structured data")}
    | {2: ("documents", "website data")},
    "here each is search_mode='documents', with document_text='extractive_segments', "
    "'struct_json' or 'snippets'",
)


def _credentials(value: Any) -> dict[str, Any]:
    """Service account credentials from the key file ``value`` (as the peer loads them); an
    ``InputError`` naming ``credentials_path`` when it cannot be read, never its content."""
    field = "credentials_path"
    _checked(field, value, str, "the path of a service account key file (a string)")
    from google.oauth2 import service_account

    try:
        return {"credentials": service_account.Credentials.from_service_account_file(value)}  # type: ignore[no-untyped-call]
    except OSError as exc:
        cause: Exception | None = exc
        problem = f"cannot be read ({exc.strerror or type(exc).__name__})"
    except json.JSONDecodeError:  # not chained: its ``doc`` holds the file, a private key
        cause, problem = None, "is not a JSON key file"
    # google-auth names fields, never values; a JSON value that is not an object (a list)
    # fails in it with AttributeError.
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        cause = exc
        problem = f"is not a service account key ({type(exc).__name__}: {str(exc)[:200]})"
    remedy = (
        "give the path of a service account key file (JSON), or pass credentials= (e.g. "
        "google.oauth2.service_account.Credentials.from_service_account_file(path))"
    )
    raise InputError(f"{field} {value!r} {problem}: {remedy}", field=field) from cause


# Google's SummarySpec fields (the peer's summary_spec_kwargs keys): our name, and the one key
# of the fields that are messages (given as a dict: {"preamble": ...}).
_SUMMARY_SPEC_FIELDS: Mapping[str, tuple[str, str | None]] = {
    "summary_result_count": ("result_count", None),
    "include_citations": ("include_citations", None),
    "ignore_adversarial_query": ("ignore_adversarial_query", None),
    "ignore_non_summary_seeking_query": ("ignore_non_summary_seeking_query", None),
    "ignore_low_relevant_content": ("ignore_low_relevant_content", None),
    "ignore_jail_breaking_query": ("ignore_jail_breaking_query", None),
    "model_prompt_spec": ("preamble", "preamble"),
    "language_code": ("language_code", None),
    "model_spec": ("model_version", "version"),
    "use_semantic_chunks": ("use_semantic_chunks", None),
}
_SUMMARY_SPEC_OURS = tuple(ours for ours, _ in _SUMMARY_SPEC_FIELDS.values())


def _summary_spec(value: Any) -> dict[str, Any]:
    _checked("summary_spec_kwargs", value, Mapping, "a dict of SummarySpec fields")
    converted = {}
    for key, item in value.items():
        if key not in _SUMMARY_SPEC_FIELDS:
            raise InputError(
                f"summary_spec_kwargs has {_shown(key)}, which is not a SummarySpec field this "
                f"summary sends; the fields are {', '.join(_SUMMARY_SPEC_FIELDS)}",
                field=f"summary_spec_kwargs.{key}",
            )
        ours, inner = _SUMMARY_SPEC_FIELDS[key]
        if inner is not None and (not isinstance(item, Mapping) or set(item) != {inner}):
            raise InputError(
                f"summary_spec_kwargs[{key!r}] must be a dict with the one key {inner!r}, e.g. "
                f"{{{inner!r}: '...'}}",
                field=f"summary_spec_kwargs.{key}",
            )
        converted[ours] = item if inner is None else item[inner]
    return converted


# -- the tables ----------------------------------------------------------------------------

_RETRIEVER = "VertexAISearchRetriever"
_MULTI_TURN = "VertexAIMultiTurnSearchRetriever"
_CHECKER = "VertexAICheckGroundingWrapper"
_SUMMARY = "VertexAISearchSummaryTool"
_RANK = "VertexAIRank"


def _renamed(
    component: str, name: str, ours: str, convert: _Factory = _text, package: str = LANGCHAIN_PEER
) -> PeerArgument:
    """The peer's ``name`` is our ``ours``, its value checked by ``convert(name, ours)``."""
    return PeerArgument(package, component, name, (ours,), convert(name, ours))


def _dropped(
    component: str,
    name: str,
    check: _Check | None,
    note: str,
    package: str = LANGCHAIN_PEER,
    defaults: tuple[Any, ...] = (None,),
) -> PeerArgument:
    """The peer's ``name``, ignored once ``check(name)`` accepts its value; no check: refused,
    unless set to one of the peer's ``defaults``."""
    convert = check(name) if check else None
    return PeerArgument(package, component, name, (), convert, note, defaults)


def _location_id(package: str, component: str) -> PeerArgument:
    return _renamed(component, "location_id", "location", package=package)


_DEFAULTS_NOTE = "the content the peer asked for with it is in the defaults below"


def _engine_data_type_argument(package: str) -> PeerArgument:
    return PeerArgument(
        package, _RETRIEVER, "engine_data_type", ("search_mode",), _engine_data_type, _DEFAULTS_NOTE
    )


def _content(snippet: bool, text: str, **counts: Any) -> dict[str, Any]:
    """A peer's ContentSearchSpec in our names, with the text its documents are made of."""
    return {"return_snippet": snippet, **counts, "document_text": text}


def _retriever_defaults(
    package: str,
    query: Mapping[str, Any],
    content: Mapping[tuple[int, bool], Mapping[str, Any]],
    documents: Mapping[str, Any] | None = None,
    shared: frozenset[str] = frozenset(),
) -> PeerDefaults:
    """A peer retriever's query options, and its documents-mode ``content`` and ``documents``
    options (unless chunks); with extractive answers, segment options given ask for a segment
    too (the peer ignores them there; our spec needs ``max_extractive_segment_count``)."""

    def values(peer_values: Mapping[str, Any], ours_given: Mapping[str, Any]) -> dict[str, Any]:
        if ours_given.get("search_mode", "documents") != "documents":
            return dict(query)
        kind = peer_values.get("engine_data_type", 0)
        answers = peer_values.get("get_extractive_answers", False)
        segments = answers and any(name in ours_given for name in _SEGMENT_OPTIONS)
        extra = _ONE_SEGMENT if segments else {}
        return {
            **query,
            "search_mode": "documents",
            **extra,
            **content[kind, answers],
            **(documents or {}),
        }

    return PeerDefaults(package, _RETRIEVER, values, shared)


_LOADED = "loaded with google.oauth2.service_account.Credentials.from_service_account_file"
_CREDENTIALS_PATH = PeerArgument(
    LANGCHAIN_PEER, _CHECKER, "credentials_path", ("credentials",), _credentials, _LOADED
)

PEER_CONNECTION_ARGUMENTS = PeerTable((_location_id(LANGCHAIN_PEER, _RETRIEVER), _CREDENTIALS_PATH))
"""Every Discovery Engine component: ``location_id``, ``credentials_path``."""

# Why a peer name is ignored or refused here.
_V1_ONLY = "v1 serves everything this package sends (drop it)"
_NO_EMBEDDING_SPEC = (
    "custom embeddings need v1beta's SearchRequest.embedding_spec, which v1 (the API called "
    "here) lacks; drop it (the search ranks by relevance), or rank with your own embeddings"
)
_OWN_USER_AGENT = (
    "Google's client library sends its own user agent (gl-python, grpc, gax, gapic versions), "
    "as it does for every client"
)
_WHOLE = (
    "each document comes back whole, every metadata key kept; metadata['id'] is its own, else "
    "its position in the documents given"
)
_IDS_ONLY = "the reranker always asks Google for ids and scores only and returns your documents"
_ONE_PAGE = "the summary reads one page of result_count results"
# The peer's QueryExpansionSpec.Condition and SpellCorrectionSpec.Mode numbers, as ours.
_EXPANSION = functools.partial(
    _enum, choices={0: (None, "unspecified"), 1: ("disabled", "disabled"), 2: ("auto", "auto")}
)
_SPELLING = functools.partial(
    _enum,
    choices={0: (None, "unspecified"), 1: ("suggestion_only", "suggestion only")}
    | {2: ("auto", "auto")},
)
_ONE_SEGMENT = {"max_extractive_segment_count": 1}
_SEGMENT_OPTIONS = ("return_extractive_segment_score", "num_previous_segments", "num_next_segments")
# Our names the LangChain peer shares that only its documents search takes.
_DOCUMENTS_OPTIONS = frozenset(
    {"return_snippet", "max_extractive_answer_count", "max_extractive_segment_count"}
    | set(_SEGMENT_OPTIONS)
)
_NEIGHBOURS = {"num_previous_segments": 1, "num_next_segments": 1}
_ONE_ANSWER = {"max_extractive_answer_count": 1}
_SCORES = {"return_extractive_segment_score": True}

PEER_RETRIEVER_ARGUMENTS = PeerTable(
    (
        _location_id(LANGCHAIN_PEER, _RETRIEVER),
        _renamed(_RETRIEVER, "search_engine_id", "data_store_id"),
        _renamed(_RETRIEVER, "max_documents", "k", _count),
        _engine_data_type_argument(LANGCHAIN_PEER),
        _renamed(_RETRIEVER, "get_extractive_answers", "document_text", _answers),
        _renamed(_RETRIEVER, "query_expansion_condition", "query_expansion", _EXPANSION),
        _renamed(_RETRIEVER, "spell_correction_mode", "spell_correction", _SPELLING),
        _dropped(_RETRIEVER, "beta", _ignored_flag, _V1_ONLY, defaults=(False,)),
        _dropped(_RETRIEVER, "custom_embedding", None, _NO_EMBEDDING_SPEC),
        _dropped(_RETRIEVER, "custom_embedding_field_path", None, _NO_EMBEDDING_SPEC),
        _dropped(
            _RETRIEVER, "custom_embedding_ratio", None, _NO_EMBEDDING_SPEC, defaults=(None, 0.0)
        ),
        _CREDENTIALS_PATH,
    ),
    # Its _get_content_spec_kwargs: ContentSearchSpec per engine_data_type, get_extractive_answers.
    _retriever_defaults(
        LANGCHAIN_PEER,
        {"k": 5, "spell_correction": "auto", "query_expansion": "disabled"},
        {
            (0, False): _content(False, "extractive_segments", **_ONE_SEGMENT, **_NEIGHBOURS),
            (0, True): _content(False, "extractive_answers", **_ONE_ANSWER),
            (1, False): _content(False, "struct_json"),
            (1, True): _content(False, "struct_json"),
            (2, False): _content(True, "snippets", **_ONE_ANSWER),
            (2, True): _content(True, "extractive_answers", **_ONE_ANSWER),
        },
        # Its documents' metadata: the document id as "id", the struct data keys at the top.
        {"metadata_layout": "flat"},
        _DOCUMENTS_OPTIONS,
    ),
    nones=frozenset({"filter", "order_by", "canonical_filter"}),
)
"""LangChain's ``DiscoveryEngineRetriever``: langchain-google-community's
``VertexAISearchRetriever`` names (its same-named options need nothing)."""


def _multi_turn_data_type(name: str) -> Convert:
    """The multi-turn peer's ``engine_data_type``: 0 and 2 search alike here, 1 is refused."""

    def convert(value: Any) -> dict[str, Any]:
        _engine_data_type(value)  # 0, 1 or 2, else an InputError
        if value == 1:
            raise InputError(
                f"{name}=1 (structured data): Google's multi-turn search serves unstructured "
                "and website data (the peer refuses it too); for a structured data store use "
                "DiscoveryEngineRetriever(search_mode='documents', document_text='struct_json')",
                field=name,
            )
        return {}

    return convert


PEER_MULTI_TURN_ARGUMENTS = PeerTable(
    (
        _location_id(LANGCHAIN_PEER, _MULTI_TURN),
        _renamed(_MULTI_TURN, "search_engine_id", "data_store_id"),
        _dropped(
            _MULTI_TURN,
            "engine_data_type",
            _multi_turn_data_type,
            "a turn's results carry a snippet and an extractive answer for unstructured and "
            "website data alike",
            defaults=(0,),
        ),
        _dropped(_MULTI_TURN, "beta", _ignored_flag, _V1_ONLY, defaults=(False,)),
        _CREDENTIALS_PATH,
    ),
    nones=frozenset({"filter"}),
)
"""LangChain's ``DiscoveryEngineMultiTurnRetriever``: langchain-google-community's
``VertexAIMultiTurnSearchRetriever`` names (``conversation_id``, ``project_id``,
``data_store_id``, ``serving_config_id``, ``credentials`` are the same names)."""


PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS = PeerTable(
    (
        _location_id(LLAMAINDEX_PEER, _RETRIEVER),
        _renamed(_RETRIEVER, "max_documents", "similarity_top_k", _count, LLAMAINDEX_PEER),
        _engine_data_type_argument(LLAMAINDEX_PEER),
        _dropped(_RETRIEVER, "user_agent", _ignored_text, _OWN_USER_AGENT, LLAMAINDEX_PEER),
        _CREDENTIALS_PATH,
    ),
    # Its _get_content_spec_kwargs (its constructor takes no get_extractive_answers).
    _retriever_defaults(
        LLAMAINDEX_PEER,
        {"similarity_top_k": 5, "spell_correction": "suggestion_only"}
        | {"query_expansion": "disabled"},
        {
            (0, False): _content(False, "extractive_segments", **_ONE_SEGMENT, **_SCORES),
            (1, False): _content(False, "struct_json"),
            (2, False): _content(
                True, "extractive_segments", **_ONE_SEGMENT, **_ONE_ANSWER, **_SCORES
            ),
        },
    ),
)
"""LlamaIndex's ``DiscoveryEngineRetriever``: llama-index-retrievers-vertexai-search's
``VertexAISearchRetriever`` names (its other options cannot be given to its constructor)."""

PEER_CHECKER_ARGUMENTS = PeerTable(
    (
        _location_id(LANGCHAIN_PEER, _CHECKER),
        _CREDENTIALS_PATH,
    ),
    nones=frozenset({"citation_threshold"}),
)
"""LangChain's ``GroundingChecker``: langchain-google-community's
``VertexAICheckGroundingWrapper`` names."""

PEER_RANKER_ARGUMENTS = PeerTable(
    (
        _location_id(LANGCHAIN_PEER, _RANK),
        _CREDENTIALS_PATH,
        _renamed(_RANK, "title_field", "title_fields", _title),
        _dropped(_RANK, "id_field", _ignored_text, _WHOLE),
        _dropped(
            _RANK, "ignore_record_details_in_response", _ignored_flag, _IDS_ONLY, defaults=(False,)
        ),
    )
)
"""LangChain's ``DiscoveryEngineReranker``: langchain-google-community's ``VertexAIRank``
names (``project_id``, ``ranking_config``, ``model``, ``top_n``, ``credentials`` and
``timeout`` are the same names)."""

PEER_SUMMARY_RESULT_COUNT = 3
"""``VertexAISearchSummaryTool``'s ``summary_result_count``."""

PEER_SUMMARY_ARGUMENTS = PeerTable(
    (
        _location_id(LANGCHAIN_PEER, _SUMMARY),
        _renamed(_SUMMARY, "summary_prompt", "preamble"),
        _renamed(_SUMMARY, "summary_result_count", "result_count", _count),
        _renamed(_SUMMARY, "summary_include_citations", "include_citations", _flag),
        PeerArgument(
            LANGCHAIN_PEER, _SUMMARY, "summary_spec_kwargs", _SUMMARY_SPEC_OURS, _summary_spec
        ),
        _dropped(_SUMMARY, "max_documents", _ignored_count, _ONE_PAGE, defaults=()),
        _CREDENTIALS_PATH,
    ),
    PeerDefaults(
        LANGCHAIN_PEER,
        _SUMMARY,
        lambda peer_values, ours_given: {"result_count": PEER_SUMMARY_RESULT_COUNT},
    ),
)
"""LangChain's ``DiscoveryEngineSummary``: langchain-google-community's
``VertexAISearchSummaryTool`` names."""

PEER_SUMMARY_TOOL_SEARCH = {
    "search_mode": "documents",
    "return_snippet": False,
    **_ONE_SEGMENT,
    **_NEIGHBOURS,
    "spell_correction": "auto",
    "query_expansion": "disabled",
}
"""The search of langchain-google-community's ``VertexAISearchSummaryTool`` (its retriever's
defaults), in ``ChunkSearchSpec``'s names: the search options of LangChain's
``DiscoveryEngineSummaryTool`` not given."""


# -- unknown names -----------------------------------------------------------------------------

InitT = TypeVar("InitT", bound=Callable[..., None])


def unknown_arguments_message(
    component: str, given: Iterable[object], known: Collection[str]
) -> str | None:
    """The error text for the names of ``given`` that are not in ``known`` (each with the
    closest known name, if one is close), or ``None`` when every name is known."""
    unknown = [name for name in given if name not in known]
    if not unknown:
        return None
    names = sorted(known)
    parts = []
    for name in unknown:
        shown = repr(_cut(str(name)))
        match = difflib.get_close_matches(str(name), names, n=1)
        parts.append(f"{shown} (did you mean {match[0]!r}?)" if match else shown)
    noun = "an unknown argument" if len(parts) == 1 else "unknown arguments"
    return (
        f"{component} got {noun} {', '.join(parts)}: check the spelling; "
        f"help({component}) lists the arguments"
    )


def _known_names(init: Callable[..., None]) -> frozenset[str]:
    """The keyword names ``init`` accepts: its named parameters and the keys of the TypedDict
    its ``**kwargs`` are unpacked from."""
    names = set()
    for parameter in inspect.signature(init).parameters.values():
        if parameter.kind is parameter.VAR_KEYWORD:
            hint = typing.get_type_hints(init).get(parameter.name)
            for typed_dict in typing.get_args(hint):
                names |= typed_dict.__required_keys__ | typed_dict.__optional_keys__
        elif parameter.kind is not parameter.VAR_POSITIONAL:
            names.add(parameter.name)
    return frozenset(names)  # "self" among them: it can never be given by keyword


def refuse_unknown_arguments(init: InitT) -> InitT:
    """``init`` (an ``__init__`` with ``**kwargs: Unpack[SomeTypedDict]``) translating the peers'
    names and raising ``TypeError`` for a keyword argument it does not know, before it runs."""
    known: frozenset[str] | None = None

    @functools.wraps(init)
    def checked(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal known
        if known is None:  # resolved at the first call: the annotations are strings until then
            known = _known_names(init)
        name = type(self).__name__
        kwargs = translate_peer_arguments(name, peer_table_of(type(self), known), kwargs, known)
        message = unknown_arguments_message(name, kwargs, known)
        if message is not None:
            raise TypeError(message)
        init(self, *args, **kwargs)

    return typing.cast(InitT, checked)


def init_without_inputs(init: Callable[..., None], data: Mapping[str, Any]) -> None:
    """``init(**data)``, the ``__init__`` of a pydantic model: a ``ValidationError`` it raises is
    raised again carrying no input (in ``errors()``, ``json()`` or its text), and not chained to
    the one that holds them (the core does not import pydantic: such an error is known by
    ``errors`` and ``from_exception_data``)."""
    error = None
    try:
        init(**data)
    except ValueError as exc:
        if not hasattr(type(exc), "from_exception_data"):
            raise
        # The error's own class rebuilds it; lines without an input get None as their input.
        lines = exc.errors(include_input=False)  # type: ignore[attr-defined]
        error = type(exc).from_exception_data(exc.title, lines, hide_input=True)  # type: ignore[attr-defined]
    if error is not None:
        raise error  # outside the handler: the error with the inputs is not its context
