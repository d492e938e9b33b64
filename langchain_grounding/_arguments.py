"""The pydantic configuration every LangChain component shares: unknown arguments refused, and
no input value in a validation error.

LangChain's bases ignore unknown names (``extra="ignore"``): ``kk=3`` for ``k=3`` would build
a retriever with the default ``k`` in silence. And a ``ValidationError`` shows the input by
default (``input_value={...}``), ``client_options={"api_key": ...}`` included, whatever the
mistake. ``StrictArguments`` refuses every name that is not a field (or its alias), the
fields of LangChain's bases (``tags``, ``metadata``, ``callbacks``, ``name``...) included,
with ``grounding_core.peers.unknown_arguments_message`` (the closest known name, never a
value), after translating the peers' names and reading their environment variables
``$PROJECT_ID`` and ``$DATA_STORE_ID`` where ours are unset
(``grounding_core.peers.translate_peer_arguments``: the component's ``_peer_arguments``
table, a ``DeprecationWarning`` for each use), and hides inputs in the text of every error of
the model (``hide_input_in_errors``); a ``ValidationError`` raised by ``__init__`` carries no
input in ``errors()`` and ``json()`` either (pydantic keeps them there: a web framework
returning ``errors()`` would echo a key).

pydantic merges the configuration of a class's bases from left to right, so LangChain's base
classes, listed after ours, would bring ``extra="ignore"`` back: list ``StrictArguments`` last
among the bases of a component (tests/langchain/test_arguments.py checks every component).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, model_validator

from grounding_core.peers import (
    init_without_inputs,
    peer_table_of,
    translate_peer_arguments,
    unknown_arguments_message,
)

__all__ = ["STRICT", "StrictArguments", "known_arguments"]

STRICT = ConfigDict(extra="forbid", hide_input_in_errors=True)


def known_arguments(model: type[BaseModel]) -> frozenset[str]:
    """The names ``model`` takes: its fields and their aliases."""
    names = set(model.model_fields)
    for field in model.model_fields.values():
        for alias in (field.alias, field.validation_alias):
            if isinstance(alias, str):
                names.add(alias)
    return frozenset(names)


class StrictArguments(BaseModel):
    """A mixin of every pydantic component: unknown names refused, inputs hidden in errors."""

    model_config = STRICT

    def __init__(self, **data: Any) -> None:
        init_without_inputs(super().__init__, data)

    @model_validator(mode="before")
    @classmethod
    def _refuse_unknown_arguments(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict):
            known = known_arguments(cls)
            # The peers' names are constructor arguments: an assignment (field_name set) gets
            # the unknown-name error, with our closest name.
            table = peer_table_of(cls, known) if info.field_name is None else None
            try:
                data = translate_peer_arguments(cls.__name__, table, data, known)
            except TypeError as exc:  # a validator's errors are ValueErrors, as pydantic's
                raise ValueError(str(exc)) from exc
            message = unknown_arguments_message(cls.__name__, data, known)
            if message is not None:
                raise ValueError(message)
        return data
