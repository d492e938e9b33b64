"""What an agent does with an ungrounded final answer: the policies of the agent components.

The LangChain middleware and the LlamaIndex agent wrapper check an agent's final answer against
the sources its tools returned, then ask ``agent_action`` what to do. Besides the checker's
``annotate``, ``raise`` and ``fallback``, an agent can **revise**: the unsupported claims go back
to the model (``revision_request``) and it answers again, at most ``max_revisions`` times; an
answer still ungrounded after that falls back.

>>> from grounding_core.records import Claim, GroundingResult
>>> made_up = Claim("Lyon is the capital.", 0, 20, 0, 20)
>>> report = GroundingReport(GroundingResult(made_up.text, 0.0, (made_up,)), (), ())
>>> [agent_action(report, "revise", revisions, max_revisions=1) for revisions in (0, 1)]
['revise', 'fallback']
>>> print(revision_request(report))  # doctest: +ELLIPSIS
The sources do not support these claims of your answer:
- Lyon is the capital.
Answer again using only ...
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from .errors import ConfigurationError
from .report import GroundingReport

__all__ = [
    "DEFAULT_MAX_REVISIONS",
    "MAX_REVISIONS_LIMIT",
    "REVISION_KEY",
    "AgentAction",
    "AgentPolicy",
    "agent_action",
    "check_agent_policy",
    "revision_request",
]

AgentPolicy = Literal["annotate", "raise", "fallback", "revise"]
"""What to do with an ungrounded final answer: keep it with its report, raise
``UngroundedAnswerError``, replace it by the fallback answer, or have the model revise it."""

AgentAction = Literal["keep", "raise", "fallback", "revise"]
"""What to do with one final answer, given its report and the revisions made so far."""

DEFAULT_MAX_REVISIONS = 2
"""How many times ``revise`` sends an answer back to the model before it falls back."""

MAX_REVISIONS_LIMIT = 10
"""The most revisions a component may be configured with: each is a model call and a check."""

REVISION_KEY = "grounding_revision"
"""The ``additional_kwargs`` key that marks a revision request in the conversation, in both
frameworks (its value: the revision's number, from 1), so that the components tell it from
the user's own messages."""

MAX_LISTED_CLAIMS = 20
MAX_CLAIM_CHARS = 300

_POLICIES = get_args(AgentPolicy)


def check_agent_policy(on_ungrounded: object, max_revisions: object) -> None:
    """Raise ``ConfigurationError`` unless ``on_ungrounded`` is an ``AgentPolicy`` and
    ``max_revisions`` an int from 0 to ``MAX_REVISIONS_LIMIT``."""
    # The errors name what was given by its type, not its value: a value in the wrong
    # argument may be a secret.
    if on_ungrounded not in _POLICIES:
        given = "another string" if isinstance(on_ungrounded, str) else type(on_ungrounded).__name__
        raise ConfigurationError(
            f"on_ungrounded must be one of {', '.join(map(repr, _POLICIES))}, got {given}"
        )
    is_int = isinstance(max_revisions, int) and not isinstance(max_revisions, bool)
    if not is_int or not 0 <= max_revisions <= MAX_REVISIONS_LIMIT:  # type: ignore[operator]
        given = repr(max_revisions) if is_int else type(max_revisions).__name__
        raise ConfigurationError(
            f"max_revisions must be an int from 0 to {MAX_REVISIONS_LIMIT} (each revision is "
            f"one more model call and check), got {given}"
        )


def agent_action(
    report: GroundingReport[Any], policy: AgentPolicy, revisions: int, max_revisions: int
) -> AgentAction:
    """The action for a final answer whose check gave ``report``, after ``revisions``
    revisions: a passed (or empty, skipped) answer is kept; otherwise the policy decides, and
    ``revise`` falls back once ``max_revisions`` are spent or when the check itself failed
    (there are no claims to send back)."""
    if report.passed or report.skipped_reason is not None or policy == "annotate":
        return "keep"
    if policy == "revise":
        if report.error is None and revisions < max_revisions:
            return "revise"
        return "fallback"
    return policy


def _listed(text: str) -> str:
    one_line = " ".join(text.split())
    if len(one_line) <= MAX_CLAIM_CHARS:
        return one_line
    return one_line[: MAX_CLAIM_CHARS - 1] + "…"


def revision_request(report: GroundingReport[Any]) -> str:
    """The feedback that asks the model to revise: the unsupported claims (at most
    ``MAX_LISTED_CLAIMS``, each cut to ``MAX_CLAIM_CHARS`` characters, so that the request
    stays small whatever the answer) and what to do about them."""
    claims = [claim.text for claim in report.unsupported_claims]
    lines = [f"- {_listed(text)}" for text in claims[:MAX_LISTED_CLAIMS]]
    if len(claims) > MAX_LISTED_CLAIMS:
        lines.append(f"- ... and {len(claims) - MAX_LISTED_CLAIMS} more")
    return "\n".join(
        [
            "The sources do not support these claims of your answer:",
            *lines,
            "Answer again using only what the sources say: correct these claims or leave them "
            "out, and say so if the sources do not answer the question.",
        ]
    )
