"""Files named by flags: read, or an error naming the flag (``--answer-file ./nope: no such file
or directory``) instead of a bare ``[Errno 2]``."""

from __future__ import annotations

from pathlib import Path

from .errors import UsageError

__all__ = ["read_text"]


def _reason(exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    return reason[:1].lower() + reason[1:]


def read_text(flag: str, value: str | Path) -> str:
    """The UTF-8 text of the file ``flag`` names; ``UsageError`` naming the flag if it cannot be
    read."""
    try:
        return Path(value).expanduser().read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{flag} {value}: {_reason(exc)}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{flag} {value}: not UTF-8 text ({exc.reason})") from exc
