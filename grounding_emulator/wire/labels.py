"""User labels of a request, checked as ``CheckGroundingRequest.user_labels`` documents them.

The field doc (google/cloud/discoveryengine/v1/grounded_generation_service.proto, after Google
Cloud's "Requirements for labels"): at most 64 labels; keys of 1 to 63 characters, values of at
most 63; keys and values hold only lowercase letters, numeric characters, underscores and
dashes, international characters allowed; keys start with a lowercase letter or an
international character. A broken rule is INVALID_ARGUMENT naming the label.
"""

from __future__ import annotations

from collections.abc import Mapping

from grounding_emulator.errors import InvalidArgument

__all__ = ["MAX_LABELS", "MAX_LABEL_LENGTH", "check_labels"]

MAX_LABELS = 64
MAX_LABEL_LENGTH = 63


def _allowed(char: str) -> bool:
    """A lowercase or caseless (international) letter, a digit, '_' or '-'."""
    return char in "_-" or char.isdigit() or (char.isalpha() and not char.isupper())


def _refuse(field: str, message: str) -> InvalidArgument:
    return InvalidArgument(f"{field}: {message}", field=field)


def check_labels(labels: Mapping[str, str], field: str = "user_labels") -> None:
    """Refuse ``labels`` that break a label requirement."""
    if len(labels) > MAX_LABELS:
        raise _refuse(field, f"{len(labels)} labels; at most {MAX_LABELS} are allowed")
    for key, value in labels.items():
        if not key or len(key) > MAX_LABEL_LENGTH:
            raise _refuse(
                field, f"key {key!r} has {len(key)} characters; keys have 1 to {MAX_LABEL_LENGTH}"
            )
        if len(value) > MAX_LABEL_LENGTH:
            raise _refuse(
                field,
                f"the value of {key!r} has {len(value)} characters; at most {MAX_LABEL_LENGTH}",
            )
        if not key[0].isalpha() or key[0].isupper():
            raise _refuse(
                field, f"key {key!r} must start with a lowercase letter or international character"
            )
        for text in (key, value):
            if not all(_allowed(c) for c in text):
                raise _refuse(
                    field,
                    f"{text!r} (label {key!r}) may hold only lowercase letters, numeric "
                    "characters, underscores and dashes",
                )
