"""What the adapters' constructors do with the keyword arguments they get: the peers' names
translated to ours with a ``DeprecationWarning``, every name still unknown refused with the
closest known one, and no input value in a validation error.

The peers' names: code ported from langchain-google-community (``VertexAISearchRetriever``,
``VertexAICheckGroundingWrapper``, ``VertexAISearchSummaryTool``, ``VertexAIRank``) or from
llama-index-retrievers-vertexai-search (``VertexAISearchRetriever``) keeps working when only
the import and the class name change: ``location_id="eu"`` becomes ``location="eu"``,
``max_documents=10`` becomes ``k=10`` (``similarity_top_k`` in LlamaIndex), and so on, each
with a warning that names the peer, our name and the value to write; the peer's environment
variables ``$PROJECT_ID`` and ``$DATA_STORE_ID`` are read where ours are unset. A name that has
no equivalent here (``custom_embedding``: v1's ``SearchRequest`` has no ``embedding_spec``) is
a ``TypeError`` that says why and what to do; a peer name given with our name for the same
setting is a ``TypeError`` naming both; a bad peer value (``engine_data_type=7``) an
``InputError`` naming the field and the values it takes. When a retriever is given any of its
peer's names, the options not given take the peer's defaults, so that the ported code searches
as it did; the warning lists them, in our names. Our names given explicitly always win.

A misspelt name (``kk=3`` for ``k=3``) would otherwise build a component with the default in
silence: ``unknown_arguments_message`` names each unknown argument and the closest known one
(``difflib``), never a value (a misplaced ``credentials`` may hold a key);
``refuse_unknown_arguments`` decorates a plain class's ``__init__`` whose ``**kwargs`` are typed
with ``Unpack[SomeTypedDict]``; ``init_without_inputs`` runs a pydantic model's ``__init__``
and drops the input values its ``ValidationError`` keeps in ``errors()`` and ``json()``.

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
# A value is shown cut to this many characters (a prompt or a filter may be long).
_VALUE_CHARS = 60
# Frames of these packages are not the caller a warning points at.
_INTERNAL_PACKAGES = frozenset(
    {"grounding_core", "langchain_grounding", "llamaindex_grounding", "pydantic", "langchain_core"}
    | {"llama_index", "typing_extensions"}
)

Convert = Callable[[Any], dict[str, Any]]

PEER_PROJECT_ENV_VAR = "PROJECT_ID"
"""langchain-google-community's project variable, read after ``$GOOGLE_CLOUD_PROJECT``."""
PEER_DATA_STORE_ENV_VAR = "DATA_STORE_ID"
"""langchain-google-community's data store variable, read after ``$GROUNDING_DATA_STORE``."""


def _peer_environment(
    component: str, known: Collection[str], given: Mapping[str, Any]
) -> dict[str, Any]:
    """The peer's ``$PROJECT_ID`` and ``$DATA_STORE_ID``, read (with a ``DeprecationWarning``)
    only where ours would have been read and are unset: the project of a component that takes
    ``project_id`` and got none, the data store of one that takes ``data_store_id`` and got
    neither it nor ``engine_id``."""
    found = {}
    if (
        "project_id" in known
        and not given.get("project_id")
        and not any(os.environ.get(name) for name in PROJECT_ENV_VARS)
        and os.environ.get(PEER_PROJECT_ENV_VAR)
    ):
        found["project_id"] = os.environ[PEER_PROJECT_ENV_VAR]
    if (
        "data_store_id" in known
        and given.get("data_store_id") is None
        and given.get("engine_id") is None
        and not os.environ.get(GROUNDING_DATA_STORE)
        and os.environ.get(PEER_DATA_STORE_ENV_VAR)
    ):
        found["data_store_id"] = os.environ[PEER_DATA_STORE_ENV_VAR]
    for name, value in found.items():
        variable = PEER_PROJECT_ENV_VAR if name == "project_id" else PEER_DATA_STORE_ENV_VAR
        ours = "GOOGLE_CLOUD_PROJECT" if name == "project_id" else GROUNDING_DATA_STORE
        warnings.warn(
            f"{component} read ${variable}, {LANGCHAIN_PEER}'s variable, as {name}={value!r}: "
            f"set {ours} (or pass {name}=...) instead",
            DeprecationWarning,
            stacklevel=_caller_stacklevel(),
        )
    return found


@dataclass(frozen=True, slots=True)
class PeerArgument:
    """One argument name of a peer's component: ``convert`` turns its value into our keyword
    arguments (named by ``ours``; none: the name is ignored, ``note`` says why), or is ``None``
    when the name has no equivalent here (``note`` says why and what to do)."""

    package: str
    component: str
    name: str
    ours: tuple[str, ...]
    convert: Convert | None
    note: str = ""


@dataclass(frozen=True, slots=True)
class PeerDefaults:
    """The peer's defaults, in our names, taken by the options not given when any name of
    ``component`` (of ``package``) is: ``values(peer_values, ours_given)`` (the peer names
    given, with their values, and our names given)."""

    package: str
    component: str
    values: Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class PeerTable:
    """The peer names one component accepts, and the peer defaults they bring."""

    arguments: tuple[PeerArgument, ...]
    defaults: PeerDefaults | None = None

    @property
    def names(self) -> frozenset[str]:
        """The peer names of this table."""
        return frozenset(a.name for a in self.arguments)


def _shown(value: object) -> str:
    """``value`` for a message: short values in full, long ones cut, objects by type only (a
    credentials object's fields are no one's business)."""
    if not isinstance(value, str | int | float | bool | dict | list | tuple | type(None)):
        return f"<{type(value).__name__}>"
    text = repr(value)
    return text if len(text) <= _VALUE_CHARS else text[:_VALUE_CHARS] + "..."


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside this package, the frameworks and pydantic:
    the user's line that built the component."""
    frame = sys._getframe(1)
    level = 1
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
    """``arguments`` with the peer names of ``table`` replaced by ours (see the module
    docstring), and one ``DeprecationWarning`` that lists them; ``arguments`` as a new dict
    when it holds none. ``component`` (ours) names the component in messages; ``known`` are
    its names (the peer's environment variables fill those it did not get)."""
    if table is not None:
        arguments = {**arguments, **_peer_environment(component, known, arguments)}
    given = [] if table is None else [a for a in table.arguments if a.name in arguments]
    if table is None or not given:
        return dict(arguments)
    _refuse_unsupported(component, given)
    result = {name: value for name, value in arguments.items() if name not in table.names}
    set_by: dict[str, str] = {}
    lines = []
    for argument in given:
        value = arguments[argument.name]
        converted = argument.convert(value) if argument.convert is not None else {}
        _refuse_clash(component, argument, converted, result, set_by)
        for name in converted:
            set_by[name] = argument.name
        result.update(converted)
        lines.append(_translation(argument, value, converted))
    packages = sorted({a.package for a in given})
    text = (
        f"{component} got {' and '.join(packages)}'s "
        f"{'name' if len(given) == 1 else 'names'}: {'; '.join(lines)}."
    )
    defaults = table.defaults
    if defaults is not None and any(
        (a.package, a.component) == (defaults.package, defaults.component) for a in given
    ):
        peer_values = {a.name: arguments[a.name] for a in given}
        ours_given = {n: v for n, v in arguments.items() if n not in table.names}
        applied = {
            name: value
            for name, value in defaults.values(peer_values, ours_given).items()
            if name not in result
        }
        result.update(applied)
        if applied:
            text += (
                f" As {defaults.component} did, the options not given take its defaults: "
                f"{', '.join(f'{n}={v!r}' for n, v in applied.items())} (pass any of them to "
                "change it)."
            )
    warnings.warn(
        text + " Write our names: the peers' names are deprecated.",
        DeprecationWarning,
        stacklevel=_caller_stacklevel(),
    )
    return result


def _refuse_unsupported(component: str, given: Collection[PeerArgument]) -> None:
    refused = [a for a in given if a.convert is None]
    if refused:
        reasons = "; ".join(
            f"{a.package}'s {a.component} `{a.name}` has no equivalent here: {a.note}"
            for a in refused
        )
        raise TypeError(f"{component}: {reasons}")


def _refuse_clash(
    component: str,
    argument: PeerArgument,
    converted: Collection[str],
    ours: Mapping[str, Any],
    set_by: Mapping[str, str],
) -> None:
    """A ``TypeError`` when a setting ``argument`` gives (the names ``converted``) was also
    given in our name (in ``ours``) or by another peer name (in ``set_by``)."""
    for name in converted:
        if name in set_by:
            raise TypeError(
                f"{component} got both `{set_by[name]}` and `{argument.name}` ({argument.package}"
                f"'s names), which both set `{name}`: keep one (better: `{name}`)"
            )
        if name in ours:
            raise TypeError(
                f"{component} got both `{argument.name}` ({argument.package}'s name for "
                f"`{name}`) and `{name}`: keep `{name}` and drop `{argument.name}`"
            )


def _translation(argument: PeerArgument, value: object, converted: Mapping[str, Any]) -> str:
    said = f"{argument.component}'s `{argument.name}={_shown(value)}`"
    if not argument.ours:
        return f"{said} is ignored here: {argument.note}"
    if not converted:
        return f"{said} is the peer's default, and changes nothing here"
    ours = ", ".join(f"{name}={_shown(v)}" for name, v in converted.items())
    note = f" ({argument.note})" if argument.note else ""
    return f"{said} is `{ours}` here{note}"


def peer_table_of(component: type, known: Collection[str]) -> PeerTable | None:
    """The peer table of ``component`` (its ``_peer_arguments``), else, for a component that
    takes a Discovery Engine connection (``location`` among its ``known`` names),
    ``PEER_CONNECTION_ARGUMENTS``."""
    table = getattr(component, "_peer_arguments", None)
    if isinstance(table, PeerTable):
        return table
    if "location" in known and "project_id" in known:
        return PEER_CONNECTION_ARGUMENTS
    return None


# -- value conversions ---------------------------------------------------------------------


def _text(peer_name: str, ours: str) -> Convert:
    def convert(value: Any) -> dict[str, Any]:
        if not isinstance(value, str):
            raise InputError(
                f"{peer_name} must be a string, got {type(value).__name__}: write "
                f"{ours}='...' instead",
                field=peer_name,
            )
        return {ours: value}

    return convert


def _count(peer_name: str, ours: str) -> Convert:
    def convert(value: Any) -> dict[str, Any]:
        return {ours: check_count(peer_name, value, minimum=1)}

    return convert


def _flag(peer_name: str, ours: str) -> Convert:
    def convert(value: Any) -> dict[str, Any]:
        return {ours: _checked_flag(peer_name, value)}

    return convert


def _checked_flag(peer_name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InputError(
            f"{peer_name} must be True or False, got {type(value).__name__} {_shown(value)}",
            field=peer_name,
        )
    return value


def _enum(
    peer_name: str, ours: str, choices: Mapping[int, tuple[str | None, str]], hint: str = ""
) -> Convert:
    """The peer's enum number (``choices``: number -> our value and its meaning) as ours;
    ``hint``: how it is written here (default: ``ours`` and its values)."""
    values = [v for v, _ in choices.values()]
    hint = hint or f"here write {ours}= with one of {values}"

    def convert(value: Any) -> dict[str, Any]:
        if isinstance(value, bool) or value not in choices:
            allowed = ", ".join(f"{number} ({meaning})" for number, (_, meaning) in choices.items())
            raise InputError(
                f"{peer_name} must be one of {allowed}, got {_shown(value)}; {hint}",
                field=peer_name,
                limit=sorted(choices),
            )
        return {ours: choices[value][0]}

    return convert


def _ignored_flag(peer_name: str) -> Convert:
    def convert(value: Any) -> dict[str, Any]:
        _checked_flag(peer_name, value)
        return {}

    return convert


def _ignored_count(peer_name: str) -> Convert:
    def convert(value: Any) -> dict[str, Any]:
        check_count(peer_name, value, minimum=1)
        return {}

    return convert


def _ignored_text(peer_name: str) -> Convert:
    def convert(value: Any) -> dict[str, Any]:
        if value is not None and not isinstance(value, str):
            raise InputError(
                f"{peer_name} must be a string, got {type(value).__name__}", field=peer_name
            )
        return {}

    return convert


def _title_field(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, str):
        raise InputError(
            f"title_field must be a metadata key (a string), got {type(value).__name__}: write "
            "title_fields=('title',) instead",
            field="title_field",
        )
    return {"title_fields": (value,)}


def _engine_data_type(value: Any) -> dict[str, Any]:
    _ENGINE_DATA_TYPE(value)
    return {"search_mode": "documents"}


_ENGINE_DATA_TYPE = _enum(
    "engine_data_type",
    "search_mode",
    {0: ("documents", "unstructured data"), 1: ("documents", "structured data")}
    | {2: ("documents", "website data")},
    "here each is search_mode='documents', with document_text='extractive_segments', "
    "'struct_data' or 'snippets'",
)


def _extractive_answers(value: Any) -> dict[str, Any]:
    return (
        {"document_text": "extractive_answers"}
        if _checked_flag("get_extractive_answers", value)
        else {}
    )


def _credentials(value: Any) -> dict[str, Any]:
    """Service account credentials from the key file ``value`` (as the peer loads it); an
    ``InputError`` naming ``credentials_path`` when it cannot be read, never its content."""
    if not isinstance(value, str):
        raise InputError(
            f"credentials_path must be the path of a service account key file (a string), got "
            f"{type(value).__name__}",
            field="credentials_path",
        )
    from google.oauth2 import service_account

    remedy = (
        "give the path of a service account key file (JSON), or pass credentials= (e.g. "
        "google.oauth2.service_account.Credentials.from_service_account_file(path))"
    )
    try:
        credentials = service_account.Credentials.from_service_account_file(value)  # type: ignore[no-untyped-call]
    except OSError as exc:
        raise InputError(
            f"credentials_path {value!r} cannot be read ({exc.strerror or type(exc).__name__}): "
            f"{remedy}",
            field="credentials_path",
        ) from exc
    except json.JSONDecodeError:
        # Not chained: the decoding error keeps the whole file (``doc``), a private key in it.
        raise InputError(
            f"credentials_path {value!r} is not a JSON key file: {remedy}", field="credentials_path"
        ) from None
    except (ValueError, KeyError, TypeError) as exc:
        # google-auth's messages name the missing fields, never their values.
        raise InputError(
            f"credentials_path {value!r} is not a service account key ({type(exc).__name__}: "
            f"{str(exc)[:200]}): {remedy}",
            field="credentials_path",
        ) from exc
    return {"credentials": credentials}


# Google's SummarySpec fields (the peer's summary_spec_kwargs keys) and ours.
_SUMMARY_SPEC_FIELDS: Mapping[str, tuple[str, Callable[[Any], Any]]] = {
    "summary_result_count": ("result_count", lambda v: v),
    "include_citations": ("include_citations", lambda v: v),
    "ignore_adversarial_query": ("ignore_adversarial_query", lambda v: v),
    "ignore_non_summary_seeking_query": ("ignore_non_summary_seeking_query", lambda v: v),
    "ignore_low_relevant_content": ("ignore_low_relevant_content", lambda v: v),
    "ignore_jail_breaking_query": ("ignore_jail_breaking_query", lambda v: v),
    "model_prompt_spec": ("preamble", lambda v: _part(v, "model_prompt_spec", "preamble")),
    "language_code": ("language_code", lambda v: v),
    "model_spec": ("model_version", lambda v: _part(v, "model_spec", "version")),
    "use_semantic_chunks": ("use_semantic_chunks", lambda v: v),
}


def _part(value: Any, key: str, inner: str) -> Any:
    """``value[inner]`` of the message ``key`` given as a dict (``{"preamble": ...}``)."""
    if not isinstance(value, Mapping) or set(value) != {inner}:
        raise InputError(
            f"summary_spec_kwargs[{key!r}] must be a dict with the one key {inner!r}, e.g. "
            f"{{{inner!r}: '...'}}",
            field=f"summary_spec_kwargs.{key}",
        )
    return value[inner]


def _summary_spec_kwargs(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(
            f"summary_spec_kwargs must be a dict of SummarySpec fields, got {type(value).__name__}",
            field="summary_spec_kwargs",
        )
    converted = {}
    for key, item in value.items():
        if key not in _SUMMARY_SPEC_FIELDS:
            raise InputError(
                f"summary_spec_kwargs has {_shown(key)}, which is not a SummarySpec field this "
                f"summary sends; the fields are {', '.join(_SUMMARY_SPEC_FIELDS)}",
                field=f"summary_spec_kwargs.{key}",
            )
        ours, convert = _SUMMARY_SPEC_FIELDS[key]
        converted[ours] = convert(item)
    return converted


# -- the tables ----------------------------------------------------------------------------

_RETRIEVER = "VertexAISearchRetriever"
_CHECKER = "VertexAICheckGroundingWrapper"
_SUMMARY = "VertexAISearchSummaryTool"
_RANK = "VertexAIRank"


def _location_id(package: str, component: str) -> PeerArgument:
    return PeerArgument(
        package, component, "location_id", ("location",), _text("location_id", "location")
    )


def _engine_data_type_argument(package: str) -> PeerArgument:
    return PeerArgument(
        package,
        _RETRIEVER,
        "engine_data_type",
        ("search_mode",),
        _engine_data_type,
        "the content the peer asked for with it is in the defaults below",
    )


_CREDENTIALS_PATH = PeerArgument(
    LANGCHAIN_PEER,
    _CHECKER,
    "credentials_path",
    ("credentials",),
    _credentials,
    "loaded with google.oauth2.service_account.Credentials.from_service_account_file",
)

PEER_CONNECTION_ARGUMENTS = PeerTable((_location_id(LANGCHAIN_PEER, _RETRIEVER), _CREDENTIALS_PATH))
"""Every Discovery Engine component: ``location_id``, ``credentials_path``."""

_NO_EMBEDDING_SPEC = (
    "custom embeddings need v1beta's SearchRequest.embedding_spec, which v1 (the API this "
    "package calls) does not have; drop it (the search ranks by relevance), or rank with your "
    "own embeddings after retrieving"
)


def _documents_content(
    ours_given: Mapping[str, Any], content: Mapping[str, Any], query: Mapping[str, Any]
) -> dict[str, Any]:
    """The peer's query options, and its documents-mode content unless our ``search_mode``
    chose chunks."""
    if ours_given.get("search_mode", "documents") != "documents":
        return dict(query)
    return {**query, "search_mode": "documents", **content}


# The LangChain peer's ContentSearchSpec per (engine_data_type, get_extractive_answers)
# (its _get_content_spec_kwargs) and the text its documents are made of.
_LANGCHAIN_CONTENT: Mapping[tuple[int, bool], Mapping[str, Any]] = {
    (0, False): {
        "return_snippet": False,
        "max_extractive_segment_count": 1,
        "num_previous_segments": 1,
        "num_next_segments": 1,
        "document_text": "extractive_segments",
    },
    (0, True): {
        "return_snippet": False,
        "max_extractive_answer_count": 1,
        "document_text": "extractive_answers",
    },
    (1, False): {"return_snippet": False, "document_text": "struct_data"},
    (1, True): {"return_snippet": False, "document_text": "struct_data"},
    (2, False): {
        "return_snippet": True,
        "max_extractive_answer_count": 1,
        "document_text": "snippets",
    },
    (2, True): {
        "return_snippet": True,
        "max_extractive_answer_count": 1,
        "document_text": "extractive_answers",
    },
}


def _langchain_retriever_defaults(
    peer_values: Mapping[str, Any], ours_given: Mapping[str, Any]
) -> dict[str, Any]:
    kind = peer_values.get("engine_data_type", 0)
    answers = peer_values.get("get_extractive_answers", False)
    query = {"k": 5, "spell_correction": "auto", "query_expansion": "disabled"}
    return _documents_content(ours_given, _LANGCHAIN_CONTENT[kind, answers], query)


PEER_RETRIEVER_ARGUMENTS = PeerTable(
    (
        _location_id(LANGCHAIN_PEER, _RETRIEVER),
        PeerArgument(
            LANGCHAIN_PEER,
            _RETRIEVER,
            "search_engine_id",
            ("data_store_id",),
            _text("search_engine_id", "data_store_id"),
        ),
        PeerArgument(
            LANGCHAIN_PEER, _RETRIEVER, "max_documents", ("k",), _count("max_documents", "k")
        ),
        _engine_data_type_argument(LANGCHAIN_PEER),
        PeerArgument(
            LANGCHAIN_PEER,
            _RETRIEVER,
            "get_extractive_answers",
            ("document_text",),
            _extractive_answers,
        ),
        PeerArgument(
            LANGCHAIN_PEER,
            _RETRIEVER,
            "query_expansion_condition",
            ("query_expansion",),
            _enum(
                "query_expansion_condition",
                "query_expansion",
                {0: (None, "unspecified"), 1: ("disabled", "disabled"), 2: ("auto", "auto")},
            ),
        ),
        PeerArgument(
            LANGCHAIN_PEER,
            _RETRIEVER,
            "spell_correction_mode",
            ("spell_correction",),
            _enum(
                "spell_correction_mode",
                "spell_correction",
                {0: (None, "unspecified"), 1: ("suggestion_only", "suggestion only")}
                | {2: ("auto", "auto")},
            ),
        ),
        PeerArgument(
            LANGCHAIN_PEER,
            _RETRIEVER,
            "beta",
            (),
            _ignored_flag("beta"),
            "v1 serves everything this package sends (drop it)",
        ),
        *(
            PeerArgument(LANGCHAIN_PEER, _RETRIEVER, name, (), None, _NO_EMBEDDING_SPEC)
            for name in (
                "custom_embedding",
                "custom_embedding_field_path",
                "custom_embedding_ratio",
            )
        ),
        _CREDENTIALS_PATH,
    ),
    PeerDefaults(LANGCHAIN_PEER, _RETRIEVER, _langchain_retriever_defaults),
)
"""LangChain's ``DiscoveryEngineRetriever``: langchain-google-community's
``VertexAISearchRetriever`` names (its same-named options need nothing)."""

# The LlamaIndex peer's ContentSearchSpec per engine_data_type (its _get_content_spec_kwargs:
# get_extractive_answers cannot be given to its constructor) and the text of its nodes.
_LLAMAINDEX_CONTENT: Mapping[int, Mapping[str, Any]] = {
    0: {
        "return_snippet": False,
        "max_extractive_segment_count": 1,
        "return_extractive_segment_score": True,
        "document_text": "extractive_segments",
    },
    1: {"return_snippet": False, "document_text": "struct_data"},
    2: {
        "return_snippet": True,
        "max_extractive_segment_count": 1,
        "max_extractive_answer_count": 1,
        "return_extractive_segment_score": True,
        "document_text": "extractive_segments",
    },
}


def _llamaindex_retriever_defaults(
    peer_values: Mapping[str, Any], ours_given: Mapping[str, Any]
) -> dict[str, Any]:
    content = _LLAMAINDEX_CONTENT[peer_values.get("engine_data_type", 0)]
    query = {
        "similarity_top_k": 5,
        "spell_correction": "suggestion_only",
        "query_expansion": "disabled",
    }
    return _documents_content(ours_given, content, query)


PEER_LLAMAINDEX_RETRIEVER_ARGUMENTS = PeerTable(
    (
        _location_id(LLAMAINDEX_PEER, _RETRIEVER),
        PeerArgument(
            LLAMAINDEX_PEER,
            _RETRIEVER,
            "max_documents",
            ("similarity_top_k",),
            _count("max_documents", "similarity_top_k"),
        ),
        _engine_data_type_argument(LLAMAINDEX_PEER),
        PeerArgument(
            LLAMAINDEX_PEER,
            _RETRIEVER,
            "user_agent",
            (),
            _ignored_text("user_agent"),
            "Google's client library sends its own user agent (gl-python, grpc, gax, gapic "
            "versions), as it does for every client",
        ),
        _CREDENTIALS_PATH,
    ),
    PeerDefaults(LLAMAINDEX_PEER, _RETRIEVER, _llamaindex_retriever_defaults),
)
"""LlamaIndex's ``DiscoveryEngineRetriever``: llama-index-retrievers-vertexai-search's
``VertexAISearchRetriever`` names (its other options cannot be given to its constructor)."""

PEER_CHECKER_ARGUMENTS = PeerTable(
    (
        _location_id(LANGCHAIN_PEER, _CHECKER),
        _CREDENTIALS_PATH,
        PeerArgument(
            LANGCHAIN_PEER,
            _CHECKER,
            "client",
            (),
            None,
            "the checker builds Google's clients itself (sync and async, with timeouts and "
            "retries); pass credentials=, client_options= (e.g. {'api_endpoint': ...}) or "
            "emulator_host= instead",
        ),
    )
)
"""LangChain's ``GroundingChecker``: langchain-google-community's
``VertexAICheckGroundingWrapper`` names."""


PEER_RANKER_ARGUMENTS = PeerTable(
    (
        _location_id(LANGCHAIN_PEER, _RANK),
        _CREDENTIALS_PATH,
        PeerArgument(LANGCHAIN_PEER, _RANK, "title_field", ("title_fields",), _title_field),
        PeerArgument(
            LANGCHAIN_PEER,
            _RANK,
            "id_field",
            (),
            _ignored_text("id_field"),
            "each document comes back whole (its id and every metadata key), so records need "
            "no id field",
        ),
        PeerArgument(
            LANGCHAIN_PEER,
            _RANK,
            "ignore_record_details_in_response",
            (),
            _ignored_flag("ignore_record_details_in_response"),
            "the reranker always asks Google for ids and scores only and returns your documents",
        ),
        PeerArgument(
            LANGCHAIN_PEER,
            _RANK,
            "client",
            (),
            None,
            "the reranker builds Google's clients itself (sync and async, with timeouts and "
            "retries); pass credentials=, client_options= (e.g. {'api_endpoint': ...}) or "
            "emulator_host= instead",
        ),
    )
)
"""LangChain's ``DiscoveryEngineReranker``: langchain-google-community's ``VertexAIRank``
names (``project_id``, ``ranking_config``, ``model``, ``top_n``, ``credentials`` and
``timeout`` are the same names)."""


def _summary_defaults(
    peer_values: Mapping[str, Any], ours_given: Mapping[str, Any]
) -> dict[str, Any]:
    return {"result_count": 3}


PEER_SUMMARY_ARGUMENTS = PeerTable(
    (
        _location_id(LANGCHAIN_PEER, _SUMMARY),
        PeerArgument(
            LANGCHAIN_PEER,
            _SUMMARY,
            "summary_prompt",
            ("preamble",),
            _text("summary_prompt", "preamble"),
        ),
        PeerArgument(
            LANGCHAIN_PEER,
            _SUMMARY,
            "summary_result_count",
            ("result_count",),
            _count("summary_result_count", "result_count"),
        ),
        PeerArgument(
            LANGCHAIN_PEER,
            _SUMMARY,
            "summary_include_citations",
            ("include_citations",),
            _flag("summary_include_citations", "include_citations"),
        ),
        PeerArgument(
            LANGCHAIN_PEER,
            _SUMMARY,
            "summary_spec_kwargs",
            tuple(ours for ours, _ in _SUMMARY_SPEC_FIELDS.values()),
            _summary_spec_kwargs,
        ),
        PeerArgument(
            LANGCHAIN_PEER,
            _SUMMARY,
            "max_documents",
            (),
            _ignored_count("max_documents"),
            "the summary reads one page of result_count results",
        ),
        _CREDENTIALS_PATH,
    ),
    PeerDefaults(LANGCHAIN_PEER, _SUMMARY, _summary_defaults),
)
"""LangChain's ``DiscoveryEngineSummary``: langchain-google-community's
``VertexAISearchSummaryTool`` names."""


# -- unknown names -----------------------------------------------------------------------------

InitT = TypeVar("InitT", bound=Callable[..., None])
ErrorT = TypeVar("ErrorT", bound=ValueError)

# A name is shown cut to this many characters (a key of a dict given by mistake may be long).
_NAME_CHARS = 60


def _shown_name(name: object) -> str:
    text = str(name)
    return repr(text if len(text) <= _NAME_CHARS else text[:_NAME_CHARS] + "...")


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
        match = difflib.get_close_matches(str(name), names, n=1)
        parts.append(
            f"{_shown_name(name)} (did you mean {match[0]!r}?)" if match else _shown_name(name)
        )
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
    """``init`` (an ``__init__`` with ``**kwargs: Unpack[SomeTypedDict]``) raising ``TypeError``
    for a keyword argument it does not know, before it runs (see the module docstring)."""
    known: frozenset[str] | None = None

    @functools.wraps(init)
    def checked(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal known
        if known is None:  # resolved at the first call: the annotations are strings until then
            known = _known_names(init)
        component = type(self)
        kwargs = translate_peer_arguments(
            component.__name__, peer_table_of(component, known), kwargs, known
        )
        message = unknown_arguments_message(component.__name__, kwargs, known)
        if message is not None:
            raise TypeError(message)
        init(self, *args, **kwargs)

    return typing.cast(InitT, checked)


def init_without_inputs(init: Callable[..., None], data: Mapping[str, Any]) -> None:
    """``init(**data)``, the ``__init__`` of a pydantic model: a ``ValidationError`` it raises is
    raised again carrying no input, and not chained to the one that holds them (the core does
    not import pydantic: such an error is known by ``errors`` and ``from_exception_data``)."""
    error = None
    try:
        init(**data)
    except ValueError as exc:
        if not hasattr(type(exc), "from_exception_data"):
            raise
        error = _without_inputs(exc)
    if error is not None:
        raise error  # outside the handler: the error with the inputs is not its context


def _without_inputs(error: ErrorT) -> ErrorT:
    """A copy of the pydantic ``ValidationError`` ``error`` whose lines carry no input (``None``)
    and whose text shows none (the error's own class rebuilds it)."""
    rebuilt: Any = type(error)
    lines = error.errors(include_input=False)  # type: ignore[attr-defined]
    # Lines without an input get None as their input.
    title = error.title  # type: ignore[attr-defined]
    return typing.cast(ErrorT, rebuilt.from_exception_data(title, lines, hide_input=True))
