"""The emulator's grounding checker (CheckGrounding semantics), pure: no gRPC, no protos.

``check_grounding(answer, facts)`` splits the answer into claims (one sentence, one list item, one
table row: :mod:`claims`), then ``check_claims`` (what the lexical judge runs) decides which claims
need a check (:mod:`checkworthiness`) and scores every checked claim against every fact
(:mod:`entailment`):

- a fact is **cited** by a claim when its entailment score is at least ``citation_threshold``
  (0.6 by default); citations are ordered best first;
- a claim is **supported** when at least one fact is cited. A claim is entailed by one fact, or,
  when no single fact entails it and the claim is a coordination ("X and Y", "X as well as Y"),
  jointly by two facts that each cover at least 40 % of it (both are then cited, with the joint
  score);
- ``CheckedClaim.score`` is the claim's best entailment score in [0, 1] (single or joint); a
  claim that needs no check gets score 0.0 and no citations;
- ``support_score = supported checked claims / checked claims`` (0.0 when no claim needs a
  check). Every checked claim counts the same, whatever its length.

Fact features are computed once per request (and cached across requests, keyed by the text, title
and language); a claim is scored in full only against facts whose coverage could still reach the
threshold or beat the best score so far.
"""

from __future__ import annotations

import functools
import logging
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from grounding_emulator import call_state
from grounding_emulator.grounding.judge import Claim, Fact, claims_of, support_score
from grounding_emulator.grounding.lexical.checkworthiness import needs_grounding_check
from grounding_emulator.grounding.lexical.entailment import (
    ClaimProfile,
    Entailment,
    Premise,
    coverage_score,
    entail,
    prepare_claim,
    prepare_premise,
)
from grounding_emulator.grounding.lexical.lexicon import words
from grounding_emulator.grounding.lexical.text_features import Analyzer, guess_language

__all__ = ["CheckOutcome", "CheckedClaim", "Fact", "check_claims", "check_grounding"]

logger = logging.getLogger(__name__)

JOINT_MIN_COVERAGE = 0.4
JOINT_CANDIDATES = 4
_COORDINATORS = words(
    "and or both plus also well , ; und sowie et ainsi y e ed en и 和 与 與 及 と や 및 와 과 و और"
)
_WINDOWS_TRIED = 3


@dataclass(frozen=True, slots=True)
class CheckedClaim:
    """One claim of the answer: string span, whether it needed a check, cited facts, score.

    ``fact_indices`` are the cited facts, best first; ``problems`` says why the best fact fell
    short (empty for a supported claim).
    """

    start: int
    end: int
    text: str
    grounding_check_required: bool
    fact_indices: tuple[int, ...]
    score: float
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """The checker's verdict: ``support_score`` = supported checked claims / checked claims."""

    support_score: float
    claims: tuple[CheckedClaim, ...]


# A hedge or an attribution in front of a claim ("I'm not sure, but I believe X", "According to
# the documentation, X") qualifies X without adding to it or negating it.
_HEDGE = re.compile(
    r"^\W*(?:(?:i['’]?m|i\s+am)\s+not\s+(?:entirely\s+|completely\s+|100%\s+|quite\s+)?"
    r"(?:sure|certain)[^,;:]*[,;:]?\s*(?:but\s+)?)?"
    r"(?:i\s+(?:believe|think|suspect)|it\s+(?:seems|appears))(?:\s+that)?\s+"
    r"|^\W*(?:i\s+think|i\s+believe|probably|perhaps|likely|if\s+i\s+recall\s+correctly)"
    r"\s*,\s*"
    r"|^\W*(?:according\s+to|based\s+on|per|as\s+(?:stated|described|mentioned|noted|shown)\s+in)"
    r"\s+(?:the\s+|these\s+|this\s+)?(?:provided\s+|available\s+|official\s+|retrieved\s+)?"
    r"(?:documentation|docs|documents?|sources?|context|information|articles?|pages?|guides?"
    r"|results?|passages?|excerpts?)(?:\s+(?:provided|above|you\s+shared))?\s*,\s*"
    r"|^\W*(?:the\s+)?(?:documentation|docs|documents?|sources?|context|guide|article)\s+"
    r"(?:says|states|notes|mentions|explains|indicates)\s+(?:that\s+)?",
    re.IGNORECASE,
)


def _without_hedge(text: str) -> str:
    """``text`` without a leading hedge or attribution, for analysis only."""
    return _HEDGE.sub("", text, count=1)


@functools.lru_cache(maxsize=1024)
def _premise(language: str, text: str, title: str) -> Premise:
    return prepare_premise(Analyzer(language), text, title)


def check_grounding(
    answer: str,
    facts: Sequence[Fact],
    *,
    citation_threshold: float = 0.6,
    language: str | None = None,
) -> CheckOutcome:
    """Check every claim of ``answer`` against ``facts``; cite facts scoring >= threshold.

    ``language`` (a Snowball name such as ``"english"``) picks the stemmer for Latin-script
    words; by default it is guessed from the claims. A fact's ``title`` attribute counts as
    part of its topic.

    >>> facts = [Fact("Cloud Run scales to zero when there is no traffic.")]
    >>> outcome = check_grounding("Cloud Run scales to zero. It is 10x faster. Thanks!", facts)
    >>> [(c.text, c.grounding_check_required, c.fact_indices) for c in outcome.claims]
    [('Cloud Run scales to zero.', True, (0,)), ('It is 10x faster.', True, ()), \
('Thanks!', False, ())]
    >>> outcome.support_score
    0.5
    """
    claims = check_claims(
        claims_of(answer), facts, citation_threshold=citation_threshold, language=language
    )
    return CheckOutcome(support_score=support_score(claims), claims=claims)


def check_claims(
    claims: Sequence[Claim],
    facts: Sequence[Fact],
    *,
    citation_threshold: float,
    language: str | None = None,
) -> tuple[CheckedClaim, ...]:
    """``check_grounding`` on claims already split out of an answer (every claim of it: the
    others' words help tell names from common words). The language is guessed from the claims'
    text unless given."""
    analyzer = Analyzer(language or guess_language(" ".join(c.text for c in claims)))
    premises = [
        _premise(analyzer.language, fact.text, fact.attributes.get("title", ""))
        for fact in call_state.checked(facts, "fact prepared")
    ]
    analyzed = [analyzer.analyze(_without_hedge(c.text), claim=True) for c in claims]
    votes: Counter[str] = Counter()
    for features in [*(p.features for p in premises), *analyzed]:
        votes.update(features.proper_votes)
    proper_names = frozenset(k for k, v in votes.items() if v > 0)
    checked = []
    for segment, features in zip(claims, analyzed, strict=True):
        text = segment.text
        if not needs_grounding_check(text, segment.kind, features):
            checked.append(CheckedClaim(segment.start, segment.end, text, False, (), 0.0))
            continue
        claim = prepare_claim(features, proper_names)
        cited, score, problems = _cite(claim, premises, analyzer, citation_threshold)
        logger.debug("claim %r: score %.3f, cited %s, %s", text, score, cited, problems)
        checked.append(CheckedClaim(segment.start, segment.end, text, True, cited, score, problems))
    return tuple(checked)


def _cite(
    claim: ClaimProfile,
    premises: Sequence[Premise],
    analyzer: Analyzer,
    threshold: float,
) -> tuple[tuple[int, ...], float, tuple[str, ...]]:
    """Cited fact indices (best first), the claim's score, and the best fact's problems."""
    if claim.total <= 0 or not premises:
        return (), 0.0, ("no fact" if not premises else "nothing to check",)
    bounds = sorted(
        (
            (sum(w for k, w in claim.weights.items() if k in premise.keys) / claim.total, i)
            for i, premise in enumerate(premises)
        ),
        key=lambda item: (-item[0], item[1]),
    )
    results: dict[int, tuple[Entailment, int]] = {}
    best = Entailment(
        0.0, 0.0, (f"no fact holds more than {bounds[0][0]:.0%} of the claim's content",)
    )
    for bound, index in bounds:
        ceiling = coverage_score(bound)
        if bound == 0 or (ceiling < threshold and ceiling <= best.score):
            break
        verdict, window = _score_fact(claim, premises[index], analyzer)
        results[index] = (verdict, window)
        if verdict.score > best.score:
            best = verdict
    cited = sorted(
        (i for i, (v, _) in results.items() if v.score >= threshold),
        key=lambda i: (-results[i][0].score, i),
    )
    if cited:
        return tuple(cited), best.score, ()
    if not _is_coordination(claim):
        return (), best.score, best.problems
    for bound, index in bounds[: JOINT_CANDIDATES * 2]:  # facts the pruning skipped
        if bound >= JOINT_MIN_COVERAGE and index not in results:
            results[index] = _score_fact(claim, premises[index], analyzer)
    joint = _joint(claim, premises, results, analyzer)
    if joint is not None and joint[1].score >= threshold:
        return joint[0], joint[1].score, ()
    return (), best.score, best.problems


def _score_fact(
    claim: ClaimProfile, premise: Premise, analyzer: Analyzer
) -> tuple[Entailment, int]:
    """The best window of ``premise`` for ``claim``: its verdict and index.

    The windows are ranked by the claim weight each holds (its own keys and the fact's topic
    keys), best first, ties in window order. Each key adds its weight to the windows that hold
    it (``Premise.windows_with``; a topic key to all), in claim order: the sums, and so the
    ranking, are those of summing each window's keys one window at a time, at the cost of the
    claim's keys, not of every window times every key."""
    topic = premise.topic_keys
    held = np.zeros(len(premise.window_keys))
    for key, weight in claim.weights.items():
        if key in topic:
            held += weight
        elif key in premise.windows_with:
            held[premise.windows_with[key]] += weight
    best: tuple[Entailment, int] | None = None
    for window in np.argsort(-held, kind="stable")[:_WINDOWS_TRIED].tolist():
        if best is not None and coverage_score(float(held[window]) / claim.total) <= best[0].score:
            break
        verdict = entail(claim, [(premise, window)], analyzer)
        if best is None or verdict.score > best[0].score:
            best = (verdict, window)
    assert best is not None  # a premise has at least one window
    return best


def _is_coordination(claim: ClaimProfile) -> bool:
    """Whether the claim joins two statements ("X and Y", "X, as well as Y"): only then can two
    facts entail it jointly (never by lending a number of one fact to a name of another)."""
    return any(surface in _COORDINATORS for surface in claim.features.surfaces)


def _joint(
    claim: ClaimProfile,
    premises: Sequence[Premise],
    results: Mapping[int, tuple[Entailment, int]],
    analyzer: Analyzer,
) -> tuple[tuple[int, ...], Entailment] | None:
    """The best pair of facts that entail the claim together, each covering 40 % of it."""
    candidates = sorted(
        (i for i, (v, _) in results.items() if v.coverage >= JOINT_MIN_COVERAGE),
        key=lambda i: (-results[i][0].coverage, i),
    )[:JOINT_CANDIDATES]
    best: tuple[tuple[int, ...], Entailment] | None = None
    for a_pos, a in enumerate(candidates):
        for b in candidates[a_pos + 1 :]:
            if results[a][0].coverage >= 1.0 or results[b][0].coverage >= 1.0:
                continue  # one fact covers it all: its own verdict stands
            parts = [(premises[a], results[a][1]), (premises[b], results[b][1])]
            verdict = entail(claim, parts, analyzer)
            if best is None or verdict.score > best[1].score:
                best = ((a, b), verdict)
    return best
