"""Facts for a grounding check, built from sources, within the API's documented limits.

CheckGrounding takes at most 200 facts of at most 10,000 characters each, and an answer
candidate of at most 4,096 tokens. Empty sources are skipped, and the returned index map keeps
every citation pointing at the source it came from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .records import GroundingSource
from .validation import check_wire_text, jsonable_metadata

__all__ = [
    "MAX_ANSWER_TOKENS",
    "MAX_FACTS",
    "MAX_FACT_CHARS",
    "FactList",
    "attributes_from_metadata",
    "build_facts",
    "check_answer_candidate",
    "estimate_tokens",
]

MAX_FACTS = 200
MAX_FACT_CHARS = 10_000
MAX_ANSWER_TOKENS = 4_096
# Google gives no character bound; no model token is longer than 32 characters, so a longer
# answer is over 4,096 tokens even when the estimate below counts a long run as one.
MAX_ANSWER_CHARS = 32 * MAX_ANSWER_TOKENS

# A word, a number, a single CJK/kana/hangul character or one punctuation mark. Model tokenizers
# split at least this finely, so the count is a lower bound: what it refuses is surely too long,
# and what slips through is refused by the service with INVALID_ARGUMENT.
_TOKEN = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W_]+|[^\w\s]",
    re.UNICODE,
)


def estimate_tokens(text: str) -> int:
    """A lower-bound estimate of the model tokens in ``text``."""
    return sum(1 for _ in _TOKEN.finditer(text))


def check_answer_candidate(answer: object) -> str:
    """``answer`` if it can be checked: a non-empty string within 4,096 tokens."""
    if not isinstance(answer, str):
        raise InputError(
            f"answer_candidate must be a string, got {type(answer).__name__}",
            field="answer_candidate",
        )
    if not answer.strip():
        raise InputError(
            "answer_candidate is empty: there is nothing to check; generate an answer first",
            field="answer_candidate",
        )
    if len(answer) > MAX_ANSWER_CHARS:
        raise InputError(
            f"answer_candidate has {len(answer)} characters; CheckGrounding accepts at most "
            f"{MAX_ANSWER_TOKENS} tokens, which no text over {MAX_ANSWER_CHARS} characters is "
            "within: check the answer in parts (for example paragraph by paragraph)",
            field="answer_candidate",
            limit=MAX_ANSWER_CHARS,
        )
    # Every token is at least one character: a short answer needs no count.
    tokens = estimate_tokens(answer) if len(answer) > MAX_ANSWER_TOKENS else 0
    if tokens > MAX_ANSWER_TOKENS:
        raise InputError(
            f"answer_candidate is about {tokens} tokens; CheckGrounding accepts at most "
            f"{MAX_ANSWER_TOKENS}: check the answer in parts (for example paragraph by paragraph)",
            field="answer_candidate",
            limit=MAX_ANSWER_TOKENS,
        )
    check_wire_text("answer_candidate", answer)
    return answer


def attributes_from_metadata(
    metadata: Mapping[str, Any] | None, path: str = "metadata"
) -> dict[str, str]:
    """Fact attributes: strings as they are, other values as JSON (made JSON-safe by
    ``jsonable_metadata``, which also refuses what cannot be sent), ``None`` left out;
    ``metadata=None`` is no metadata. ``path`` names the metadata in errors."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InputError(
            f"{path} must be a dict of attributes, got {type(metadata).__name__}", field=path
        )
    values: dict[str, Any] = jsonable_metadata(metadata, path)
    return {
        key: value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        for key, value in values.items()
        if value is not None
    }


@dataclass(frozen=True, slots=True)
class FactList:
    """Facts to send, and for each fact the index of the source it was built from."""

    texts: tuple[str, ...]
    attributes: tuple[dict[str, str], ...]
    source_indices: tuple[int, ...]

    def source_index(self, fact_index: int | None) -> int | None:
        """The source index of fact ``fact_index`` (``None`` if it is out of range)."""
        if fact_index is None or not 0 <= fact_index < len(self.source_indices):
            return None
        return self.source_indices[fact_index]


def build_facts(sources: Sequence[GroundingSource | str]) -> FactList:
    """Facts from ``sources``, skipping empty ones, refusing what the API would refuse."""
    if isinstance(sources, str | bytes) or not isinstance(sources, Sequence):
        raise InputError(
            f"sources must be a list of texts or GroundingSource, got {type(sources).__name__}",
            field="facts",
        )
    texts: list[str] = []
    attributes: list[dict[str, str]] = []
    indices: list[int] = []
    for index, source in enumerate(sources):
        if isinstance(source, str):
            source = GroundingSource(source)
        elif not isinstance(source, GroundingSource):
            raise InputError(
                f"sources[{index}] must be a str or GroundingSource, got {type(source).__name__}",
                field=f"facts[{index}]",
            )
        if not isinstance(source.text, str):
            raise InputError(
                f"sources[{index}].text must be a string, got {type(source.text).__name__}",
                field=f"facts[{index}].fact_text",
            )
        if not source.text.strip():
            continue
        if len(source.text) > MAX_FACT_CHARS:
            raise InputError(
                f"sources[{index}] has {len(source.text):,} characters; a fact may have at most "
                f"{MAX_FACT_CHARS:,}: split the source into smaller chunks",
                field=f"facts[{index}].fact_text",
                limit=MAX_FACT_CHARS,
            )
        check_wire_text(f"facts[{index}].fact_text", source.text)
        texts.append(source.text)
        attributes.append(attributes_from_metadata(source.metadata, f"sources[{index}].metadata"))
        indices.append(index)
    if len(texts) > MAX_FACTS:
        raise InputError(
            f"{len(texts)} non-empty sources were given; CheckGrounding accepts at most "
            f"{MAX_FACTS} facts: pass the {MAX_FACTS} best-ranked sources",
            field="facts",
            limit=MAX_FACTS,
        )
    return FactList(tuple(texts), tuple(attributes), tuple(indices))
