"""The option fields of the LangChain components: explicit pydantic fields (typed, documented,
completed by IDEs) whose defaults are read from the core's specs, so each default is defined
once, in the spec (tests/langchain/test_options.py checks the fields against the specs).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import BaseModel

__all__ = ["option_values", "spec_default"]


def spec_default(spec: type[Any], name: str) -> Any:
    """The default of ``spec``'s field ``name`` (a dataclass of the core, e.g.
    ``ChunkSearchSpec``), for a pydantic field: ``Field(default=spec_default(...))``.

    >>> from grounding_core import ChunkSearchSpec
    >>> spec_default(ChunkSearchSpec, "search_mode")
    'chunks'
    """
    field = {f.name: f for f in dataclasses.fields(spec)}[name]
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def option_values(model: BaseModel, options: Any) -> dict[str, Any]:
    """The values of ``model``'s fields named by the keys of the TypedDict ``options`` (e.g.
    ``SearchOptions``): the keyword arguments of the core component's ``create``."""
    return {name: getattr(model, name) for name in options.__optional_keys__}
