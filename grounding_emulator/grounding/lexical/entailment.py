"""Does a fact entail a claim? A lexical and structural entailment test, NLI-style.

The claim is the hypothesis, a window of the fact is the premise. The score starts from how much
of the claim's content the premise covers, and drops sharply for each sign that the claim says
something the premise does not:

``coverage``
    The weighted share of the claim's content keys (see :mod:`text_features`) found in the
    premise: names, identifiers, numbers and dates weigh 1.5, other words 1.0, filler words
    ("also", "easily", "allows") 0.35, Hiragana particles 0.15; stop words and negation cues do
    not count. The base score is ``1 - (1 - coverage) * COVERAGE_SLOPE``, clipped to [0, 1], so
    a claim needs about 80 % coverage to reach the default threshold of 0.6.
    A word whose stem nearly equals one of the premise's (a stemmer's miss: "redondea" /
    "redondeado") counts 0.8 of its weight.
``missing`` (score x 0.45)
    A name, identifier, number, date, comparative ("faster", "more") or quantifier ("all",
    "only", "must") of the claim is not in the premise: an unsupported detail.
``contradiction`` (score x 0.15)
    The premise has the opposite of a claim word ("slower" for "faster", "disabled" for
    "enabled"), said of the same thing ("pressure is higher" where the fact says "pressure is
    lower"); or the claim's number has another unit or rate in the premise ("250 °F" for
    "250 °C", "per second" for "per minute"), or the premise gives its noun another number
    ("8 vCPUs" where the fact says "8 GiB" and "4 vCPUs"); or the claim is negated and the
    premise is not (on the same words of a clause), or the premise negates two or more of the
    claim's words and never states them together positively (a negated predicate, "the digits 8
    and 9 are never used", negates its subject too); or the two sides of a comparison are
    swapped ("A is faster than B" for "B is faster than A"; while "B is slower than A" is
    accepted).

A premise is a window of up to three consecutive sentences of one fact, plus the fact's first
sentence, its title and the acronyms it spells out ("Specialty Coffee Association" holds "SCA"),
which usually name what "it" refers to later. A claim may also be entailed by
two facts jointly (see :func:`entail` with two parts), each covering at least 40 % of it: the
engine tries that only when no single fact suffices.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from grounding_emulator.grounding.lexical import lexicon
from grounding_emulator.grounding.lexical.text_features import (
    CONTENT_KINDS,
    WEIGHT_LIGHT,
    Analyzer,
    NegationScope,
    Quantity,
    TextFeatures,
    TokenKind,
)

__all__ = [
    "COVERAGE_SLOPE",
    "WINDOW_SENTENCES",
    "ClaimProfile",
    "Entailment",
    "Premise",
    "entail",
    "prepare_claim",
    "prepare_premise",
]

COVERAGE_SLOPE = 2.0
WINDOW_SENTENCES = 3
MISSING_FACTOR = 0.45
CONTRADICTION_FACTOR = 0.15
BINDING_DISTANCE = 3
COMPARISON_REACH = 11
FUZZY_MIN_LENGTH = 5
FUZZY_CREDIT = 0.8
_THAN = lexicon.THAN_WORDS


@dataclass(frozen=True, slots=True)
class Premise:
    """A fact prepared once per request: its features, sentence windows (their keys, and for
    each key the windows that hold it, in window order) and topic keys."""

    features: TextFeatures
    keys: frozenset[str]
    window_keys: tuple[frozenset[str], ...]
    windows_with: Mapping[str, np.ndarray]
    window_ranges: tuple[tuple[int, int], ...]
    quantity_positions: tuple[int, ...]
    topic_keys: frozenset[str]
    topic_end: int
    negated_positions: frozenset[int]
    stems_by_prefix: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class ClaimProfile:
    """A claim prepared for checking: content weights, anchors and critical keys."""

    features: TextFeatures
    weights: Mapping[str, float]
    total: float
    anchors: frozenset[str]
    criticals: frozenset[str]


@dataclass(frozen=True, slots=True)
class Entailment:
    """The verdict for one claim and one premise: score in [0, 1], coverage, and why."""

    score: float
    coverage: float
    problems: tuple[str, ...] = ()


def prepare_premise(analyzer: Analyzer, text: str, title: str = "") -> Premise:
    """Analyze a fact once: windows of ``WINDOW_SENTENCES`` sentences and the topic keys."""
    features = analyzer.analyze(text)
    sentences = features.sentences
    count = max(features.sentence_count, 1)
    bounds = [0] * (count + 1)
    for sentence in sentences:
        bounds[sentence + 1] += 1
    for i in range(count):
        bounds[i + 1] += bounds[i]
    per_sentence_sets = [set(features.keys[bounds[i] : bounds[i + 1]]) for i in range(count)]
    if count == 1:
        per_sentence_sets[0].update(features.aliases)
    else:
        for alias, where in features.aliases.items():
            for position in where:
                per_sentence_sets[sentences[position]].add(alias)
    per_sentence = [frozenset(keys) for keys in per_sentence_sets]
    title_keys = analyzer.keys_of(title) if title else frozenset()
    topic_keys = per_sentence[0] | title_keys | _acronyms(text)
    starts = range(max(1, count - WINDOW_SENTENCES + 1))
    window_keys = tuple(frozenset().union(*per_sentence[i : i + WINDOW_SENTENCES]) for i in starts)
    windows_with: dict[str, list[int]] = {}  # key -> the windows holding it, in window order
    for window, keys in enumerate(window_keys):
        for key in keys:
            windows_with.setdefault(key, []).append(window)
    window_ranges = tuple((bounds[i], bounds[min(count, i + WINDOW_SENTENCES)]) for i in starts)
    negated = frozenset(p for scope in features.negations for p in scope.positions)
    by_prefix: dict[str, set[str]] = {}
    for key, kind in zip(features.keys, features.kinds, strict=True):
        if kind == TokenKind.WORD and len(key) >= FUZZY_MIN_LENGTH and key[0].isalpha():
            by_prefix.setdefault(key[:4], set()).add(key)
    return Premise(
        features=features,
        keys=features.all_keys | features.aliases.keys() | title_keys,
        window_keys=window_keys,
        windows_with={k: np.array(v, dtype=np.intp) for k, v in windows_with.items()},
        window_ranges=window_ranges,
        quantity_positions=tuple(q.position for q in features.quantities),
        topic_keys=topic_keys,
        topic_end=bounds[1],
        negated_positions=negated,
        stems_by_prefix={k: tuple(v) for k, v in by_prefix.items()},
    )


_CAPITALIZED_RUN = re.compile(
    r"\b[A-Z][\w-]*(?:\s+(?:(?:of|for|and|the|on|de|du|des|der|für)\s+)?[A-Z][\w-]*)+"
)


def _acronyms(text: str) -> frozenset[str]:
    """The acronyms a fact spells out: "Specialty Coffee Association" holds "SCA" (a claim's
    acronym is matched by its key and by its exact form)."""
    found: set[str] = set()
    for match in _CAPITALIZED_RUN.finditer(text):
        words = [w for w in match.group(0).split() if w[0].isupper()]
        for start in range(len(words) - 1):  # "The Specialty Coffee Association" too
            acronym = "".join(w[0] for w in words[start:]).casefold()
            found.update((acronym, "=" + acronym))
    return frozenset(found)


def prepare_claim(features: TextFeatures, proper_names: frozenset[str]) -> ClaimProfile:
    """A claim's profile; sentence-initial capitalized words named elsewhere are anchors."""
    anchors = features.anchors | (features.initial_capitals & proper_names)
    weights = dict(features.content)
    for key in features.initial_capitals & proper_names:
        if key in weights:
            weights[key] = max(weights[key], 1.5)
    return ClaimProfile(
        features=features,
        weights=weights,
        total=sum(weights.values()),
        anchors=anchors & weights.keys(),
        criticals=features.criticals,
    )


def coverage_score(coverage: float) -> float:
    """The base score of a coverage in [0, 1]."""
    return min(1.0, max(0.0, 1.0 - (1.0 - coverage) * COVERAGE_SLOPE))


@dataclass(frozen=True, slots=True)
class _Part:
    premise: Premise
    lo: int
    hi: int

    def in_range(self, position: int) -> bool:
        return self.lo <= position < self.hi or position < self.premise.topic_end

    def quantities(self) -> tuple[Quantity, ...]:
        """The premise's quantities in range, in position order: found by binary search (a
        fact's quantities are in position order), not by testing each."""
        quantities = self.premise.features.quantities
        at = self.premise.quantity_positions
        head = bisect.bisect_left(at, self.premise.topic_end)
        lo, hi = bisect.bisect_left(at, self.lo), bisect.bisect_left(at, self.hi)
        if lo <= head:
            return quantities[: max(head, hi)]
        return quantities[:head] + quantities[lo:hi]


def _positions(part: _Part, key: str) -> list[int]:
    features = part.premise.features
    where = features.positions.get(key) or features.aliases.get(key, ())
    return [p for p in where if part.in_range(p)]


def entail(
    claim: ClaimProfile, parts: Sequence[tuple[Premise, int]], analyzer: Analyzer
) -> Entailment:
    """Score ``claim`` against the premise made of ``parts`` (fact, window index) jointly."""
    if claim.total <= 0:
        return Entailment(0.0, 0.0, ("nothing to check",))
    views = []
    keys: set[str] = set()
    for premise, window in parts:
        lo, hi = premise.window_ranges[window]
        views.append(_Part(premise, lo, hi))
        keys |= premise.window_keys[window]
        keys |= premise.topic_keys
    swapped = _comparison_swapped(claim, views, analyzer)
    if swapped is True:
        keys |= claim.criticals  # "B is slower than A" states "A is faster than B"
    fuzzy = {
        k
        for k in claim.weights
        if k not in keys and any(_near_stem(k, view.premise) for view in views)
    }
    matched = sum(w for k, w in claim.weights.items() if k in keys)
    matched += FUZZY_CREDIT * sum(claim.weights[k] for k in fuzzy)
    coverage = matched / claim.total
    base = coverage_score(coverage)
    problems: list[str] = []
    contradiction = False
    missing = False
    for key in claim.weights:
        if key in keys or key in fuzzy:
            continue
        opposite = analyzer.antonyms(key) & keys
        if opposite:
            contradiction = True
            problems.append(f"opposite of {key!r} in fact: {sorted(opposite)}")
        elif key in claim.anchors or key in claim.criticals:
            missing = True
            problems.append(f"{key!r} not in fact")
    if swapped is False:
        contradiction = True
        problems.append("comparison reversed")
    for problem in _polarity_problems(claim, views, keys, analyzer) if swapped is None else ():
        contradiction = True
        problems.append(problem)
    for problem in _number_problems(claim, views, keys):
        contradiction = True
        problems.append(problem)
    for problem in _negation_problems(claim, views):
        contradiction = True
        problems.append(problem)
    score = base
    if missing:
        score *= MISSING_FACTOR
    if contradiction:
        score *= CONTRADICTION_FACTOR
    return Entailment(round(score, 6), coverage, tuple(problems))


def _claim_neighbour(features: TextFeatures, position: int) -> str | None:
    """The content word that a claim word at ``position`` is said of (the one before it)."""
    clause = features.clauses[position]
    for step in (-1, -2, -3, 1, 2):
        j = position + step
        if (
            0 <= j < len(features.keys)
            and features.clauses[j] == clause
            and features.kinds[j] in CONTENT_KINDS
        ):
            return features.keys[j]
    return None


def _polarity_problems(
    claim: ClaimProfile, views: Sequence[_Part], keys: set[str], analyzer: Analyzer
) -> list[str]:
    """Claim words whose opposite, not themselves, is said of the same thing in the premise.

    "pressure is higher" against "At higher altitudes ... pressure is lower".
    """
    problems = []
    features = claim.features
    for key in claim.weights:
        opposites = analyzer.antonyms(key) & keys
        if not opposites or key not in keys:
            continue
        neighbour = _claim_neighbour(features, features.positions[key][0])
        if neighbour is None or neighbour not in keys:
            continue
        for view in views:
            anchors = _positions(view, neighbour)
            near_self = any(
                abs(a - p) <= BINDING_DISTANCE for a in anchors for p in _positions(view, key)
            )
            near_opposite = any(
                abs(a - p) <= BINDING_DISTANCE
                for a in anchors
                for opposite in opposites
                for p in _positions(view, opposite)
            )
            if near_opposite and not near_self:
                problems.append(f"{key!r} of {neighbour!r}, fact says {sorted(opposites)}")
                break
    return problems


def _near_stem(key: str, premise: Premise) -> bool:
    """Whether the premise has a word whose stem nearly equals ``key`` ("redonde"/"redond").

    A fallback for stemmers that miss a form: the stems must share a prefix of at least five
    characters and three quarters of the shorter one, and differ in length by at most 30 %.
    """
    if len(key) < FUZZY_MIN_LENGTH or not key[0].isalpha():
        return False
    for other in premise.stems_by_prefix.get(key[:4], ()):
        shorter, longer = sorted((len(key), len(other)))
        if shorter < 0.7 * longer:
            continue
        common = 0
        for a, b in zip(key, other, strict=False):
            if a != b:
                break
            common += 1
        if common >= max(FUZZY_MIN_LENGTH, 0.75 * shorter):
            return True
    return False


def _same_unit(claim: str, fact: str | None) -> bool:
    """Whether a claim's unit agrees with a fact's (a fact that names none, or names only
    "degrees" for a temperature, agrees)."""
    if fact is None or claim == fact:
        return True
    return "degree" in (claim, fact) and (claim + fact).count("°") == 1


def _number_problems(claim: ClaimProfile, views: Sequence[_Part], keys: set[str]) -> list[str]:
    problems = []
    fact_quantities: dict[tuple[int, int], Quantity] | None = None
    for quantity in claim.features.quantities:
        found = [(view, p) for view in views for p in _positions(view, quantity.key)]
        if not found:
            continue  # reported as a missing anchor
        if fact_quantities is None:  # positions are per fact: a joint premise's views apart
            fact_quantities = {(id(v), q.position): q for v in views for q in v.quantities()}
        matches = [fact_quantities.get((id(view), p)) for view, p in found]
        if quantity.unit is not None:
            units = {q.unit if q is not None else None for q in matches}
            if not any(_same_unit(quantity.unit, unit) for unit in units):
                problems.append(f"{quantity.key} is in {sorted(u or '' for u in units)}")
                continue
        if quantity.rate is not None:
            rates = {q.rate if q is not None else None for q in matches}
            if not any(_same_unit(quantity.rate, rate) for rate in rates):
                problems.append(f"{quantity.key} is per {sorted(r or '' for r in rates)}")
                continue
        if quantity.unit is not None:
            continue  # the unit is the noun, checked above ("3元", "ten times the amplitude")
        attached = quantity.attached
        if attached is not None and attached in keys and attached != quantity.key:
            nouns = [(view, q) for view in views for q in _positions(view, attached)]
            near = any(
                abs(p - q) <= BINDING_DISTANCE for view, p in found for v, q in nouns if v is view
            )
            other = any(
                fact.key != quantity.key and abs(fact.position - q) <= BINDING_DISTANCE
                for view, q in nouns
                for fact in view.quantities()
            )
            if not near and other:  # the fact gives the noun another number
                problems.append(f"{quantity.key} is not said of {attached!r}")
    return problems


def _negation_problems(claim: ClaimProfile, views: Sequence[_Part]) -> list[str]:
    """Negations that do not line up between claim and premise.

    A negated claim needs a premise negation on some of the same words. A premise negation
    contradicts the claim when the claim states at least two of its words (or all, if fewer)
    in a clause without negation, and no clause of the premise states them all positively.
    """
    problems = []
    fact_scopes = [
        (view, scope)
        for view in views
        for scope in view.premise.features.negations
        if view.in_range(scope.position)
    ]
    for scope in claim.features.negations:
        relevant = scope.keys & claim.weights.keys()
        if not any(
            (relevant & _clause_keys(view, fact)) if relevant else True
            for view, fact in fact_scopes
        ):
            problems.append(f"negation of {sorted(relevant)} not in fact")
    if not fact_scopes:
        return problems
    stated = _positive_claim_keys(claim.features)
    for view, scope in fact_scopes:
        # a predicate negation ("the digits 8 and 9 are never used") negates its subject too,
        # when the claim states the whole predicate ("backups persist" is not "backups are
        # not deleted automatically")
        negated, clause = scope.keys, -1
        if _after_copula(view, scope) and scope.keys <= stated:
            negated = _clause_keys(view, scope)
            clause = view.premise.features.clauses[scope.position]
        overlap = negated & stated
        if len(overlap) < min(2, len(scope.keys)) or not overlap:
            continue
        if not _stated_positively(view, overlap, clause):
            problems.append(f"fact negates {sorted(overlap)}")
    return problems


def _clause_keys(view: _Part, scope: NegationScope) -> frozenset[str]:
    """The keys a premise negation bears on: its scope and the rest of its clause (a passive
    negates what comes before it: "an exclusive lock is not obtained")."""
    features = view.premise.features
    clause = features.clauses[scope.position]
    before = scope.position
    while before > 0 and features.clauses[before - 1] == clause:
        before -= 1
    return scope.keys | frozenset(features.keys[before : scope.position])


def _after_copula(view: _Part, scope: NegationScope) -> bool:
    """Whether the negation follows a form of "be" ("is not obtained", "are never used")."""
    features = view.premise.features
    before = features.surfaces[max(0, scope.position - 2) : scope.position]
    return any(word in lexicon.COPULAS for word in before)


def _positive_claim_keys(features: TextFeatures) -> frozenset[str]:
    """Content keys of the claim that occur in a clause without negation."""
    negated_clauses = {features.clauses[scope.position] for scope in features.negations}
    return frozenset(
        key
        for key, kind, clause in zip(features.keys, features.kinds, features.clauses, strict=True)
        if kind in CONTENT_KINDS and clause not in negated_clauses
    )


def _stated_positively(view: _Part, keys: frozenset[str], negated_clause: int = -1) -> bool:
    """Whether one clause of the premise window (not ``negated_clause``) holds all ``keys``
    outside negation scopes."""
    premise = view.premise
    features = premise.features
    by_clause: dict[int, set[str]] = {}
    for key in keys:
        for position in _positions(view, key):
            if (
                features.kinds[position] in CONTENT_KINDS
                and position not in premise.negated_positions
                and features.clauses[position] != negated_clause
            ):
                by_clause.setdefault(features.clauses[position], set()).add(key)
    return any(found >= keys for found in by_clause.values())


def _comparison_swapped(
    claim: ClaimProfile, views: Sequence[_Part], analyzer: Analyzer
) -> bool | None:
    """Whether the premise states the claim's comparison with its sides swapped.

    The claim's sides are the content words before the comparative (in its clause) and the
    phrase after "than"; the premise's, the same (its "than" part may be missing: "while B
    offers higher availability"). Words on both sides and filler words do not count.
    ``None`` when the claim compares nothing or the premise has no matching comparison;
    ``True`` when the sides are swapped (with the opposite word, that is the same statement);
    ``False`` when the same word compares the sides the other way round.
    """
    sides = _comparison_sides(claim.features, analyzer, None, None, require_than=True)
    if sides is None:
        return None
    word, left, right = sides
    left, right = left - right, right - left
    for view in views:
        for candidate in (word, *analyzer.antonyms(word)):
            fact_sides = _comparison_sides(
                view.premise.features, analyzer, candidate, view, require_than=False
            )
            if fact_sides is None:
                continue
            _, fact_left, fact_right = fact_sides
            fact_left, fact_right = fact_left - fact_right, fact_right - fact_left
            same = len(left & fact_left) + len(right & fact_right)
            crossed = len(left & fact_right) + len(right & fact_left)
            if crossed > same:
                return candidate != word
            if same > crossed and candidate == word:
                return None
    return None


def _comparison_sides(
    features: TextFeatures,
    analyzer: Analyzer,
    word: str | None,
    view: _Part | None,
    *,
    require_than: bool,
) -> tuple[str, frozenset[str], frozenset[str]] | None:
    """``(comparative, keys before it, keys after "than")`` of the first comparison."""
    keys, kinds, clauses, weights = (
        features.keys,
        features.kinds,
        features.clauses,
        features.weights,
    )
    lo, hi = (view.lo, view.hi) if view else (0, len(keys))
    for i in range(lo, hi):
        key = keys[i]
        if kinds[i] != TokenKind.WORD or not analyzer.is_critical(key):
            continue
        if word is not None and key != word:
            continue
        clause = clauses[i]
        than = next(
            (
                j
                for j in range(i + 1, min(hi, i + COMPARISON_REACH))
                if features.surfaces[j] in _THAN and clauses[j] == clause
            ),
            None,
        )
        if than is None and require_than:
            continue
        left = frozenset(
            keys[j]
            for j in range(lo, i)
            if kinds[j] in CONTENT_KINDS and clauses[j] == clause and weights[j] > WEIGHT_LIGHT
        )
        right: set[str] = set()
        for j in range(hi if than is None else than + 1, min(hi, (than or 0) + 8)):
            if kinds[j] in CONTENT_KINDS and clauses[j] == clause:
                if weights[j] > WEIGHT_LIGHT:
                    right.add(keys[j])
            elif right:
                break  # the compared thing ends at the first function word
        return key, left, frozenset(right)
    return None
