"""Unknown keyword arguments of the framework components: refused, not ignored.

A misspelt name (``kk=3`` for ``k=3``) would otherwise build a component with the default in
silence. The error names each unknown argument and the closest known one (``difflib``), never
a value: a misplaced ``client_options`` or ``credentials`` may hold a key.

``unknown_arguments_message`` is the text, for any component; ``refuse_unknown_arguments``
decorates the ``__init__`` of a plain class whose ``**kwargs`` are typed with
``Unpack[SomeTypedDict]`` (the known names: its parameters and the TypedDict's keys) and raises
``TypeError``, as Python does for an unexpected keyword argument. The peers' names
(``location_id``, ``max_documents``...) are translated first, in the same place
(``peer_arguments``: the component's ``_peer_arguments`` table, with a
``DeprecationWarning``), then every name still unknown is refused. ``init_without_inputs``
runs a pydantic model's ``__init__`` and drops the input values its ``ValidationError`` keeps
in ``errors()`` and ``json()`` (``hide_input_in_errors`` hides them in its text only), for
the components that are pydantic models.

>>> unknown_arguments_message("Retriever", ["kk", "k"], ["k", "filter"]).split(":")[0]
"Retriever got an unknown argument 'kk' (did you mean 'k'?)"
"""

from __future__ import annotations

import difflib
import functools
import inspect
import typing
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, TypeVar

from .peer_arguments import peer_table_of, translate_peer_arguments

__all__ = ["init_without_inputs", "refuse_unknown_arguments", "unknown_arguments_message"]

InitT = TypeVar("InitT", bound=Callable[..., None])
ErrorT = TypeVar("ErrorT", bound=ValueError)

# A name is shown cut to this many characters (a key of a dict given by mistake may be long).
_NAME_CHARS = 60


def _shown(name: object) -> str:
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
        parts.append(f"{_shown(name)} (did you mean {match[0]!r}?)" if match else _shown(name))
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
            component.__name__, peer_table_of(component, known), kwargs
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
