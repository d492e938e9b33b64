"""Errors the emulator's engines raise, each naming a gRPC status by its code name.

Hierarchy::

    EmulatorError                 base; ``code`` is the gRPC status code name
    ├── InvalidArgument           INVALID_ARGUMENT: a field breaks a documented rule
    ├── NotFound                  NOT_FOUND: data store, engine, serving config or document
    ├── AlreadyExists             ALREADY_EXISTS: a session, data store, engine or document exists
    ├── FailedPrecondition        FAILED_PRECONDITION: the resource is not ready (e.g. no index)
    ├── Unimplemented             UNIMPLEMENTED: a documented feature the emulator does not serve
    ├── JudgeError                INTERNAL: a grounding judge failed or broke its Protocol
    ├── CorpusError               a corpus cannot be read or ingested (CLI and store, not gRPC)
    ├── JudgeScriptError          a judge script file is invalid (CLI, not gRPC)
    └── ListenError               the server cannot listen on its host and port (not gRPC)

Engines stay free of gRPC: they raise these; ``handlers.py`` maps them to gRPC statuses in one
place. Messages name the field and the rule, e.g. ``page_size must be >= 0, got -1``; a message
that quotes the request's input quotes it through :func:`excerpt`, so that a 16 KB filter is not
echoed whole (gRPC carries the message in a header of at most 8 KB by default; a longer one
reaches the client as ``RESOURCE_EXHAUSTED``).
"""

from __future__ import annotations

__all__ = [
    "AlreadyExists",
    "CorpusError",
    "EmulatorError",
    "FailedPrecondition",
    "InvalidArgument",
    "JudgeError",
    "JudgeScriptError",
    "ListenError",
    "NotFound",
    "Unimplemented",
    "excerpt",
]

# Characters of the input an error message quotes.
MAX_QUOTED = 200


def excerpt(
    text: object, *, around: int | None = None, limit: int = MAX_QUOTED, quote: bool = True
) -> str:
    """``text`` as an error message quotes it: its ``repr`` when at most ``limit`` characters,
    else ``limit`` of them (from the start, or centred on the 0-based index ``around``) marked
    with ``…`` where cut and followed by the whole length. ``quote=False`` leaves out the
    ``repr`` (for a name the message shows bare, such as a filter's field). A value other
    than a ``str`` is quoted by its ``repr``, bounded alike.

    >>> excerpt("a = 1")
    "'a = 1'"
    >>> excerpt("x" * 1000, limit=4)
    "'xxxx'… (1000 characters)"
    >>> excerpt("abcdefghij", around=5, limit=4)
    "…'defg'… (10 characters)"
    >>> excerpt("rank", quote=False)
    'rank'
    >>> excerpt(3.0)
    '3.0'
    """
    if not isinstance(text, str):
        return excerpt(repr(text), around=around, limit=limit, quote=False)
    shown = repr if quote else str
    if len(text) <= limit:
        return shown(text)
    start = 0 if around is None else min(max(0, around - limit // 2), len(text) - limit)
    head = "…" if start else ""
    tail = "…" if start + limit < len(text) else ""
    return f"{head}{shown(text[start : start + limit])}{tail} ({len(text)} characters)"


class EmulatorError(Exception):
    """Base class of the emulator's errors; ``code`` names the gRPC status (e.g. ``NOT_FOUND``)."""

    code = "UNKNOWN"


class InvalidArgument(EmulatorError):
    """A request field breaks a documented rule; ``field`` names it."""

    code = "INVALID_ARGUMENT"

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


class NotFound(EmulatorError):
    """The named data store, engine, serving config or document does not exist."""

    code = "NOT_FOUND"


class AlreadyExists(EmulatorError):
    """The resource to create exists already (``CreateSession`` with a session's name)."""

    code = "ALREADY_EXISTS"


class FailedPrecondition(EmulatorError):
    """The resource exists but cannot serve the call yet."""

    code = "FAILED_PRECONDITION"


class Unimplemented(EmulatorError):
    """The request asks for something Google documents and the emulator does not serve (a
    BigQuery import source, a media data store); the message names the field and what to use
    instead."""

    code = "UNIMPLEMENTED"


class CorpusError(EmulatorError):
    """A corpus cannot be read, parsed or ingested; the message names the file or line."""

    code = "INVALID_ARGUMENT"


class JudgeError(EmulatorError):
    """A grounding judge raised, or returned what its Protocol does not allow; the message names
    the judge and what was wrong."""

    code = "INTERNAL"


class JudgeScriptError(EmulatorError):
    """A judge script (``grounding serve --judge-script FILE``) is not valid; the message names
    the file and the entry."""

    code = "INVALID_ARGUMENT"


class ListenError(EmulatorError):
    """The server cannot listen on its host and port (in use, not this machine's, not
    allowed); the message names the address and the reason."""

    code = "UNAVAILABLE"
