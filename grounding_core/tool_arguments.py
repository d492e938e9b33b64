"""The arguments an agent's LLM fills in our tools, the same in both frameworks: the schema
(``query``; ``filter`` and ``k`` where the developer allows them) and the checks of the tools'
own settings.

>>> Arguments = tool_arguments_model("docs_search", k=(4, 10))
>>> sorted(Arguments.model_json_schema()["properties"])
['k', 'query']
>>> Arguments(query="with", k=3).k
3
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import ConfigurationError, InputError, InvalidRequestError

if TYPE_CHECKING:
    # pydantic comes with either framework; the base install (the CLI) has no need of it.
    from pydantic import BaseModel, ValidationError

__all__ = [
    "DEFAULT_TOOL_MAX_K",
    "K_DESCRIPTION",
    "MAX_TOOL_K",
    "QUERY_DESCRIPTION",
    "check_filter_fields",
    "check_tool_text",
    "is_model_error",
    "narrowed_filter",
    "tool_arguments_model",
    "tool_k_range",
    "tool_validation_message",
]

DEFAULT_TOOL_MAX_K = 20
"""The most sources an agent may ask a search tool for (``allow_k=True``), unless set."""

MAX_TOOL_K = 100
"""The highest ``max_k``: more sources than this would not fit a model's context anyway."""

QUERY_DESCRIPTION = (
    "What to search for: the question or keywords, in the language of the documents."
)
K_DESCRIPTION = "How many sources to return, from 1 to {max_k} (default {default})."


def check_tool_text(name: str, value: object) -> str:
    """``value`` if it is a non-blank string (a tool's name or description), else a
    ``ConfigurationError`` naming ``name``."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(
            f"{name} must be a non-empty string (the agent's LLM reads it to choose the tool), "
            f"got {value!r}"
            if isinstance(value, str)
            else f"{name} must be a non-empty string (the agent's LLM reads it to choose the "
            f"tool), got {type(value).__name__}"
        )
    return value


def tool_arguments_model(
    tool_name: str,
    *,
    query_description: str = QUERY_DESCRIPTION,
    filter_description: str | None = None,
    k: tuple[int, int] | None = None,
) -> type[BaseModel]:
    """The pydantic model of a tool's arguments: ``query`` (required, not empty); ``filter``
    (a string, default empty) only with ``filter_description``; ``k`` only with ``k`` =
    ``(default, max_k)``, an int from 1 to ``max_k``. Unknown arguments are refused (pydantic,
    which both frameworks bring, is imported here, not with the core)."""
    from pydantic import ConfigDict, Field, create_model

    fields: dict[str, Any] = {
        "query": (str, Field(min_length=1, description=query_description)),
    }
    if filter_description is not None:
        fields["filter"] = (str, Field(default="", description=filter_description))
    if k is not None:
        default, maximum = k
        description = K_DESCRIPTION.format(max_k=maximum, default=default)
        fields["k"] = (int, Field(default=default, ge=1, le=maximum, description=description))
    title = "".join(part.capitalize() for part in tool_name.replace("-", "_").split("_"))
    model: type[BaseModel] = create_model(
        f"{title or 'Tool'}Arguments", __config__=ConfigDict(extra="forbid"), **fields
    )
    return model


def tool_validation_message(tool_name: str, error: ValidationError) -> str:
    """What the model reads when its arguments break the schema: each problem with its
    argument, and the request to call again."""
    problems = "; ".join(
        f"{'.'.join(str(part) for part in line['loc']) or 'arguments'}: {line['msg']}"
        for line in error.errors(include_url=False, include_input=False)
    )
    return f"Invalid arguments for {tool_name}: {problems}. Call it again with valid arguments."


def check_filter_fields(filter_fields: object) -> dict[str, str] | None:
    """A copy of ``filter_fields`` (field name -> what it holds), ``None`` for none, else a
    ``ConfigurationError``."""
    if filter_fields is None:
        return None
    if not isinstance(filter_fields, Mapping) or not all(
        isinstance(name, str) and name and isinstance(meaning, str)
        for name, meaning in filter_fields.items()
    ):
        raise ConfigurationError(
            "filter_fields must map each filterable field's name to what it holds, e.g. "
            f"{{'year': 'publication year'}}, got a {type(filter_fields).__name__} that does not"
        )
    return dict(filter_fields)


def is_model_error(exc: Exception, model_filter: str) -> bool:
    """Whether the model can fix what made its tool call fail, so the tool should tell it
    rather than raise: a request refused before sending is about the call's input (the
    configuration was checked when the tool was built); one the service rejects is the model's
    only when the model wrote a filter (``model_filter``), else the configuration's."""
    if isinstance(exc, InputError):
        return True
    return isinstance(exc, InvalidRequestError) and bool(model_filter.strip())


def narrowed_filter(own: str, model_filter: str) -> str:
    """The filter of one tool call: the model's narrows the tool's own, never widens it.

    >>> narrowed_filter('lang: ANY("en")', "year >= 2020")
    '(lang: ANY("en")) AND (year >= 2020)'
    >>> narrowed_filter("", " year >= 2020 "), narrowed_filter("x", "")
    ('year >= 2020', 'x')
    """
    narrowing = model_filter.strip()
    if not narrowing:
        return own
    return f"({own}) AND ({narrowing})" if own else narrowing


def tool_k_range(allow_k: object, max_k: object, default_k: int) -> tuple[int, int] | None:
    """``(default_k, max_k)`` of a tool's ``k`` argument, ``None`` when ``allow_k`` is false;
    a ``ConfigurationError`` unless ``allow_k`` is a bool, ``max_k`` an int from 1 to
    ``MAX_TOOL_K`` and, with ``allow_k``, at least the retriever's ``default_k``.

    >>> tool_k_range(True, 20, 4), tool_k_range(False, 20, 4)
    ((4, 20), None)
    """
    if not isinstance(allow_k, bool):
        raise ConfigurationError(f"allow_k must be True or False, got {type(allow_k).__name__}")
    if isinstance(max_k, bool) or not isinstance(max_k, int) or not 1 <= max_k <= MAX_TOOL_K:
        # The type, not the value, for a wrong type: a misplaced argument may hold a secret.
        got = max_k if type(max_k) is int else type(max_k).__name__
        raise ConfigurationError(f"max_k must be an int from 1 to {MAX_TOOL_K}, got {got}")
    if not allow_k:
        return None
    if default_k > max_k:
        raise ConfigurationError(
            f"max_k ({max_k}) is below the retriever's default k ({default_k}): raise max_k "
            "or lower the retriever's k"
        )
    return default_k, max_k
