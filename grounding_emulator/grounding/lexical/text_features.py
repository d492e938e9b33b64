"""Text analysis for the grounding checker: normalized, typed tokens and the features built on them.

Every text (a claim or a fact) becomes a :class:`TextFeatures`: a list of tokens, each with a
*match key* and a kind, plus what the entailment checks need (numbers with their units, negation
scopes, sentence windows, key positions). Two words match when their keys are equal.

Normalization: NFKC, casefolding, and removal of the optional diacritics of Latin, Greek,
Cyrillic, Hebrew and Arabic (``café`` = ``cafe``, Arabic short vowels), keeping the marks that
spell words (Devanagari vowel signs, Thai vowels); emoji and their modifiers are not words.
``n't`` and ``cannot`` become ``not``. Capitalized words in mid-sentence, mixed-case words
(``BigQuery``) and acronyms are names (anchors), as is a sentence's first word when the request
writes it capitalized in mid-sentence elsewhere.

Keys by token kind:

- a word: its Snowball stem (PyStemmer; the language is guessed once per request for Latin
  script, and taken from the script otherwise: Cyrillic, Greek, Arabic, Devanagari, Tamil,
  Armenian; Hebrew loses up to three prefixed particles instead), then its unit (``km`` =
  ``kilometres``) or English synonym group if it has one (``allows`` = ``enables``);
- a number: ``#`` and its value (``1,000`` = ``1000``, ``1.5 million`` = ``2M`` scaled, ``three``
  = ``3``, "twice" = ``2``, "once" in a frequency = ``1``, any script's digits; decimals as
  written: ``3.10`` is not ``3.1``); a version or IP (``1.2.3``, ``v1.2.3``) stays literal; an
  ISO date is a year, a month and a day. A number's unit (``250 °C``, ``100 degrees Celsius``)
  and the unit of its rate (``100 requests per minute``) must agree with the fact's;
- a bound: ``up to``, ``at most``, ``no more than``, and before a number ``less than``, ``under``
  share one key; ``at least``, and before a number ``more than``, ``over``, another;
- an identifier (``client.search``, ``us-central1``, ``v1.2.3``, ``H100``, a URL) and any word in
  a code span: ``=`` and itself, unstemmed (every word of a fact is also reachable that way);
- a month (``March``, ``mars``, ``3月``): ``@m`` and its number; a day of the week
  (``Friday``, ``пятница``, ``शुक्रवार``): ``@d`` and its number;
- scripts written without spaces: Han runs become character bigrams (split at function characters
  such as 的 and at negation characters), Katakana runs are words, Hiragana runs are weak tokens,
  Hangul words lose their particles and become bigrams, Thai/Lao/Khmer/Myanmar runs become bigrams.
"""

from __future__ import annotations

import enum
import functools
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import Stemmer

from grounding_emulator.grounding.lexical import lexicon

__all__ = [
    "Analyzer",
    "NegationScope",
    "Quantity",
    "TextFeatures",
    "TokenKind",
    "guess_language",
    "normalize_word",
]


class TokenKind(enum.IntEnum):
    """What a token is; only content kinds count towards coverage."""

    WORD = 1
    NUMBER = 2
    IDENT = 3
    MONTH = 4
    CJK = 5
    WEAK = 6
    STOP = 7
    NEG_FORWARD = 8
    NEG_BACKWARD = 9
    SYMBOL = 10
    BREAK = 11


CONTENT_KINDS = frozenset(
    {
        TokenKind.WORD,
        TokenKind.NUMBER,
        TokenKind.IDENT,
        TokenKind.MONTH,
        TokenKind.CJK,
        TokenKind.WEAK,
    }
)


# --- character classes ---------------------------------------------------------------------


def _char_class(codes: Iterable[int]) -> str:
    """A regex character class body for ``codes`` (sorted), as ranges."""
    parts = []
    run_start = previous = -2
    for code in [*sorted(codes), -10]:
        if code == previous + 1:
            previous = code
            continue
        if run_start >= 0:
            parts.append(
                re.escape(chr(run_start))
                if run_start == previous
                else f"{re.escape(chr(run_start))}-{re.escape(chr(previous))}"
            )
        run_start = previous = code
    return "".join(parts)


_HAN = "\u3005\u3006\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_SUPPLEMENT = "\U00020000-\U0003134f"
_HIRAGANA = "\u3040-\u309f"
_KATAKANA = "\u30a0-\u30ff\u31f0-\u31ff"
_HANGUL = "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
_SEA = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"  # Thai, Lao, Myanmar, Khmer
_UNSPACED_RANGES = (
    (0x3005, 0x3007),
    (0x3040, 0x30FF),
    (0x3130, 0x318F),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0x0E00, 0x0EFF),
    (0x1000, 0x109F),
    (0x1100, 0x11FF),
    (0x1780, 0x17FF),
)
_SEPARATOR = r"[._/:@#~=?&+-]{1,3}"


def _is_letter(code: int) -> bool:
    """A letter, digit or combining mark of a script that spaces its words (BMP)."""
    if any(lo <= code <= hi for lo, hi in _UNSPACED_RANGES):
        return False
    if 0x20D0 <= code <= 0x20FF or 0xFE00 <= code <= 0xFE0F:  # emoji and symbol modifiers
        return False
    ch = chr(code)
    return ch.isalnum() or unicodedata.category(ch) in ("Mn", "Mc", "Me")


@functools.cache
def _letter_classes() -> tuple[str, str]:
    """Character classes of letters (with digits and marks) and of letters that start a word.

    Built once, for the Basic Multilingual Plane only: a class that stays within it compiles
    to a bitmap, which keeps tokenizing at a fraction of a microsecond per token.
    """
    codes = [c for c in range(0x10000) if _is_letter(c)]
    starts = [c for c in codes if not chr(c).isdigit() and unicodedata.category(chr(c))[0] != "M"]
    return f"[{_char_class(codes)}]", f"[{_char_class(starts)}]"


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    letter, start = _letter_classes()
    return re.compile(
        rf"(?P<word>{start}{letter}*(?:{_SEPARATOR}{letter}+)*)"
        r"|(?P<date>(?<![\d.])\d{4}-[01]?\d-[0-3]?\d(?!\d|\.\d))"
        r"|(?P<num>\d+(?:[.,]\d+)*)(?P<scale>[kKMB](?!\w))?"
        r"|(?P<code>`+[^`\n]+`+)"
        rf"|(?P<han>(?:[{_HAN}]|[{_HAN_SUPPLEMENT}])+)"
        rf"|(?P<hira>[{_HIRAGANA}]+)"
        rf"|(?P<kata>[{_KATAKANA}]+)"
        rf"|(?P<hangul>[{_HANGUL}]+)"
        rf"|(?P<sea>[{_SEA}]+)"
        r"|(?P<sym>°[CFcf](?![^\W\d_])|[%‰$€£¥₹°℃℉])"
        r"|(?P<brk>[.,;:!?()\[\]{}\"“”«»。！？、，；：（）「」『』\n]|--|—|–)"
    )


_CONTRACTION = re.compile(r"\b(?:(can)not|(won)['’]t|(can)['’]t)\b|n['’]t\b", re.IGNORECASE)
# Where a new sentence starts in a fact. Cruder than the claim splitter (an abbreviation before a
# capital starts a sentence), which only makes a window a little shorter, and much faster.
_FACT_SENTENCE_BREAK = re.compile(
    r"[.!?…][\"'”’)\]]*\s+(?![a-z])|[。！？।॥؟۔]+[\"'”’)\]」』]*\s*|\n\s*"
)


def _expand_contraction(match: re.Match[str]) -> str:
    if match.group(2):
        return "will not"
    if match.group(1) or match.group(3):
        return (match.group(1) or match.group(3)) + " not"
    return " not"


def _fact_sentence_starts(text: str) -> list[int]:
    starts = [0]
    for match in _FACT_SENTENCE_BREAK.finditer(text):
        if match.end() < len(text) and match.end() > starts[-1]:
            starts.append(match.end())
    return starts


_STRIPPED_MARKS = re.compile(
    "[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u064b-\u065f\u0670\u1ab0-\u1aff"
    "\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
)
_CLAUSE_WORDS = lexicon.words(
    "but however although though whereas while except yet instead unless because when whenever "
    "if which where whereby aber jedoch wenn weil mais cependant quand lorsque pero sino cuando "
    "mas porem quando ma pero но однако если когда 但 但是 而 然而 しかし 하지만 لكن लेकिन"
)
_LETTER_SCALES = {"K": 1_000, "M": 1_000_000, "B": 1_000_000_000}
# Capitalized in mid-sentence these are values ("defaults to None"), not negations.
_LITERALS = frozenset({"none", "null", "nil", "false"})
_ABBREVIATION_IDENTS = frozenset(
    {"e.g", "i.e", "etc", "cf", "vs", "z.b", "d.h", "p.ex", "p.ej", "t/m", "o.a", "bzw", "u.a"}
)
_VERSION_PREFIX = re.compile(r"^v(?=\d+(?:\.\d+)+$)")
_DISCOURSE_MARKER = re.compile(
    r"\W*((?:first|second|third|fourth|fifth|finally|lastly|next|then|additionally|moreover"
    r"|furthermore|besides|however|overall|importantly|notably|in\s+(?:short|summary|addition"
    r"|practice|general|particular)|for\s+(?:example|instance))(?:ly)?)\s*,",
    re.IGNORECASE,
)
_LABEL = re.compile(r"[\W_]*([^\W\d_][^:\n]{0,40}?)[\W_]*:[*_]*\s+\S")


def _nfkc(text: str) -> str:
    """``text`` in NFKC, except that the numero sign stays a sign: NFKC spells it "No", which
    would read as a negation ("№ 1/2")."""
    return unicodedata.normalize("NFKC", text.replace("№", "#"))


@functools.lru_cache(maxsize=65536)
def normalize_word(word: str) -> str:
    """``word`` casefolded, with optional diacritics removed (``Café`` -> ``cafe``)."""
    folded = word.casefold()
    if folded.isascii():
        return folded
    decomposed = unicodedata.normalize("NFD", folded)
    return unicodedata.normalize("NFC", _STRIPPED_MARKS.sub("", decomposed))


def _script_language(ch: str) -> str | None:
    code = ord(ch)
    if 0x0400 <= code <= 0x052F:
        return "russian"
    if 0x0370 <= code <= 0x03FF or 0x1F00 <= code <= 0x1FFF:
        return "greek"
    if 0x0600 <= code <= 0x06FF or 0x0750 <= code <= 0x077F:
        return "arabic"
    if 0x0900 <= code <= 0x097F:
        return "hindi"
    if 0x0B80 <= code <= 0x0BFF:
        return "tamil"
    if 0x0530 <= code <= 0x058F:
        return "armenian"
    if 0x0590 <= code <= 0x05FF:
        return "hebrew"
    return None


_LATIN_LANGUAGES = (
    "english",
    "german",
    "french",
    "spanish",
    "portuguese",
    "italian",
    "dutch",
    "swedish",
    "indonesian",
    "turkish",
    "polish",
)


def guess_language(text: str) -> str:
    """The Snowball language whose stop words ``text`` uses most (English when unsure)."""
    counts: Counter[str] = Counter()
    for match in re.finditer(r"[^\W\d_]+", text[:4000]):
        word = normalize_word(match.group(0))
        for language in _LATIN_LANGUAGES:
            if word in lexicon.STOPWORDS[language]:
                counts[language] += 1
    if not counts:
        return "english"
    best, best_count = counts.most_common(1)[0]
    return best if best_count > counts["english"] + 1 else "english"


@functools.lru_cache(maxsize=32)
def _stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(language, 50_000)


# --- numbers -------------------------------------------------------------------------------


def _digits(text: str) -> str:
    return "".join(str(unicodedata.decimal(ch, 0)) if not ch.isascii() else ch for ch in text)


def parse_number(raw: str) -> tuple[str, bool]:
    """The canonical value of a number token, and whether it is a version-like literal.

    Thousands separators go and a decimal comma becomes a point, but decimals are kept as
    written: ``3.10`` (a Python version) is not ``3.1``.
    """
    text = _digits(raw)
    if "," in text and "." in text:
        if text.rfind(",") > text.rfind("."):
            text = text.replace(".", "").replace(",", ".")
        else:
            text = text.replace(",", "")
    elif "," in text:
        groups = text.split(",")
        if all(len(g) == 3 for g in groups[1:]):
            text = "".join(groups)
        elif len(groups) == 2:
            text = ".".join(groups)
        else:
            return text, True
    elif text.count(".") > 1:
        groups = text.split(".")
        if all(len(g) == 3 for g in groups[1:]):
            text = "".join(groups)
        else:
            return text, True
    whole, _, fraction = text.partition(".")
    whole = whole.lstrip("0") or "0"
    return (f"{whole}.{fraction}" if fraction else whole), False


def _canonical(text: str) -> str:
    try:
        value = Decimal(text)
    except InvalidOperation:
        return text
    normalized = value.normalize()
    return format(normalized, "f") if normalized == normalized.to_integral() else str(normalized)


def _scaled(value: str, factor: int) -> str:
    try:
        return _canonical(str(Decimal(value) * factor))
    except InvalidOperation:
        return value


# --- features ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number in a text: value key (``#3.5``), unit key or ``None``, the word it counts,
    its token position, and the unit of its rate or ``None`` ("100 requests per minute":
    ``min``)."""

    key: str
    unit: str | None
    attached: str | None
    position: int
    rate: str | None = None


@dataclass(frozen=True, slots=True)
class NegationScope:
    """A negation cue, the content keys it negates (in its clause), the first of them, and
    their token positions."""

    position: int
    keys: frozenset[str]
    head: str | None
    positions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TextFeatures:
    """The analysis of one text.

    ``keys``/``kinds``/``weights``/``sentences``/``surfaces`` are parallel, one entry per token
    (``surfaces`` holds the normalized, unstemmed word).
    ``content`` maps each content key of a claim to its weight (the largest if it occurs
    twice); ``anchors`` and ``criticals`` are the claim's keys that must be matched. For a fact,
    ``content`` and ``criticals`` are empty.
    ``positions`` maps every key (stop words included) to its token positions; ``aliases`` maps
    the exact form of every word (``=sorted``, which code spans in claims use) to its positions.
    """

    keys: tuple[str, ...]
    kinds: tuple[TokenKind, ...]
    weights: tuple[float, ...]
    sentences: tuple[int, ...]
    clauses: tuple[int, ...]
    surfaces: tuple[str, ...]
    content: Mapping[str, float]
    anchors: frozenset[str]
    criticals: frozenset[str]
    positions: Mapping[str, Sequence[int]]
    aliases: Mapping[str, Sequence[int]]
    quantities: tuple[Quantity, ...]
    negations: tuple[NegationScope, ...]
    sentence_count: int
    proper_votes: Mapping[str, int]
    initial_capitals: frozenset[str]

    @property
    def all_keys(self) -> frozenset[str]:
        """Every key of the text, stop words included."""
        return frozenset(self.positions)


@dataclass(frozen=True, slots=True)
class _Lexicon:
    """The lexicon's words turned into keys for one language."""

    stopwords: frozenset[str]
    synonyms: Mapping[str, str]
    antonyms: Mapping[str, frozenset[str]]
    criticals: frozenset[str]
    light: frozenset[str]
    upper_bound: str
    lower_bound: str
    units: Mapping[str, str]


WEIGHT_NORMAL = 1.0
WEIGHT_LIGHT = 0.35
WEIGHT_ANCHOR = 1.5
WEIGHT_WEAK = 0.15


class Analyzer:
    """Turns texts into :class:`TextFeatures` for one request (one Latin-script language).

    >>> analyzer = Analyzer("english")
    >>> sorted(analyzer.analyze("Cloud Run doesn't allow 3 GPUs.", claim=True).content)
    ['#3', 'cloud', 'gpu', '~allow', '~run']
    """

    def __init__(self, language: str = "english") -> None:
        self.language = language if language in _LATIN_LANGUAGES else "english"
        self._lexicon = _build_lexicon(self.language)

    # keys -----------------------------------------------------------------------------------

    def antonyms(self, key: str) -> frozenset[str]:
        """Keys of the opposites of ``key``."""
        return self._lexicon.antonyms.get(key, frozenset())

    def is_critical(self, key: str) -> bool:
        """Whether a claim word with this key must be matched (comparatives, quantifiers)."""
        return key in self._lexicon.criticals

    # analysis -------------------------------------------------------------------------------

    def keys_of(self, text: str) -> frozenset[str]:
        """The keys of the words and numbers of a short text such as a title (no context)."""
        found: set[str] = set()
        for match in _token_pattern().finditer(_nfkc(text)):
            group = match.lastgroup
            if group == "word":
                category, word, key = _classify(self.language, match.group(0))
                found.add(key if category == _CONTENT else "=" + word)
            elif group == "num":
                found.add("#" + parse_number(match.group("num"))[0])
        return frozenset(found)

    def analyze(self, text: str, *, claim: bool = False) -> TextFeatures:
        """Features of ``text``; a claim is one sentence, a fact is split into sentences."""
        nfkc = _CONTRACTION.sub(_expand_contraction, _nfkc(text))
        sentence_starts = [0] if claim else _fact_sentence_starts(nfkc)
        label_end = -1
        if claim:
            label = _LABEL.match(nfkc)
            if label and len(label.group(1).split()) <= 4:
                label_end = label.end(1)
            marker = _DISCOURSE_MARKER.match(nfkc)
            if marker:  # "Second, ...": the order of the answer's points, not a claim
                label_end = max(label_end, marker.end(1))
        builder = _Builder(self, len(sentence_starts))
        sentence = 0
        next_start = sentence_starts[1] if len(sentence_starts) > 1 else len(nfkc) + 1
        for match in _token_pattern().finditer(nfkc):
            start = match.start()
            while start >= next_start:
                sentence += 1
                builder.new_sentence(sentence)
                next_start = (
                    sentence_starts[sentence + 1]
                    if sentence + 1 < len(sentence_starts)
                    else len(nfkc) + 1
                )
            if match.lastgroup == "word" and not _HAS_SEPARATOR(match.group(0)):
                builder._word(match.group(0), light=start < label_end)
            else:
                builder.add(match, light=start < label_end)
        return builder.finish(claim=claim)


@functools.lru_cache(maxsize=65536)
def _word_key(language: str, word: str) -> str:
    if language == "hebrew":
        # no stemmer: drop up to three prefixed particles (ב, ה, ו, כ, ל, מ, ש), so that
        # "ומהפקת" ("and from the production of") and "והפקת" share a key
        for _ in range(3):
            if len(word) > 3 and word[0] in "בהוכלמש":
                word = word[1:]
        return word
    if language == "english":
        word = lexicon.IRREGULAR_FORMS.get(word, word)  # "frozen" is "freeze"
    stem = _stemmer(language).stemWord(word)
    lex = _build_lexicon(language)
    return lex.units.get(stem) or lex.synonyms.get(stem, stem)


@functools.lru_cache(maxsize=64)
def _build_lexicon(language: str) -> _Lexicon:
    stem = _stemmer(language).stemWord
    synonyms: dict[str, str] = {}
    if language == "english":
        for group in lexicon.SYNONYM_GROUPS:
            key = "~" + stem(normalize_word(group[0]))
            for word in group:
                synonyms.setdefault(stem(normalize_word(word)), key)

    def key_of(word: str) -> str:
        normalized = normalize_word(word)
        script = _script_language(normalized[0])  # a Cyrillic word is keyed as Russian text is
        stemmed = str(_stemmer(script).stemWord(normalized) if script else stem(normalized))
        return synonyms.get(stemmed, stemmed)

    antonyms: dict[str, set[str]] = {}
    for left, right in lexicon.ANTONYM_PAIRS:
        a, b = key_of(left), key_of(right)
        if a != b:
            antonyms.setdefault(a, set()).add(b)
            antonyms.setdefault(b, set()).add(a)
    stopwords = (
        frozenset(normalize_word(w) for words in lexicon.STOPWORDS.values() for w in words)
        - lexicon.FORWARD_NEGATIONS
    )
    return _Lexicon(
        stopwords=stopwords,
        synonyms=synonyms,
        antonyms={k: frozenset(v) for k, v in antonyms.items()},
        criticals=frozenset(key_of(w) for w in lexicon.COMPARATIVES | lexicon.QUANTIFIERS),
        light=frozenset(key_of(w) for w in lexicon.LIGHT_WORDS),
        upper_bound=key_of("maximum"),
        lower_bound=key_of("minimum"),
        units={stem(normalize_word(w)): "%" + u for w, u in lexicon.UNIT_WORDS.items()},
    )


_FORWARD = frozenset(normalize_word(w) for w in lexicon.FORWARD_NEGATIONS)
_BACKWARD = frozenset(normalize_word(w) for w in lexicon.BACKWARD_NEGATIONS)
_BREAKERS = frozenset(lexicon.NEGATION_BREAKERS)
_MONTHS = {normalize_word(k): v for k, v in lexicon.MONTHS.items()}
_WEEKDAYS = {normalize_word(k): v for k, v in lexicon.WEEKDAYS.items()}
_UNITS = {normalize_word(k): v for k, v in lexicon.UNITS.items()}
_NUMBER_WORDS = {normalize_word(k): v for k, v in lexicon.NUMBER_WORDS.items()}
_SCALES = {normalize_word(k): v for k, v in lexicon.SCALE_WORDS.items()}
_HANGUL_SUFFIXES = lexicon.HANGUL_SUFFIXES
_PREPOSITIONS = lexicon.words("of for in on at by with to from per than versus vs into over under")
# Words that _resolve_words looks at (numbers are looked at too).
_RESOLVE_TRIGGERS = (
    frozenset(_MONTHS)
    | frozenset(_NUMBER_WORDS)
    | frozenset(_SCALES)
    | frozenset(lexicon.FREQUENCY_WORDS)
    | frozenset(_WEEKDAYS)
    | frozenset(lexicon.ORDINALS)
    | {phrase[0] for phrase in lexicon.NEGATION_PHRASES}
    | {"degree", "degrees"}
)


_PARTICLES = frozenset(particle for _, particle in lexicon.PHRASAL_VERBS)


@functools.lru_cache(maxsize=65536)
def _english_base(word: str) -> str:
    """The stem of an English verb form ("took" -> "take")."""
    return str(_stemmer("english").stemWord(lexicon.IRREGULAR_FORMS.get(word, word)))


@functools.cache
def _phrasal_verbs() -> dict[tuple[str, str], str]:
    """``(stem of the verb, particle) -> the word the phrase means``."""
    stem = _stemmer("english").stemWord
    return {
        (stem(verb), particle): word for (verb, particle), word in lexicon.PHRASAL_VERBS.items()
    }


def _counts_times(surfaces: Sequence[str], i: int) -> bool:
    """Whether the word at ``i`` ("once") counts occurrences ("once a day", "at least once")
    rather than joining clauses ("once it starts")."""
    after = normalize_word(surfaces[i + 1]) if i + 1 < len(surfaces) else ""
    before = normalize_word(surfaces[i - 1]) if i > 0 else ""
    return (
        after in lexicon.RATE_WORDS
        or after in ("or", "and", "")
        or before
        in (
            "least",
            "most",
            "only",
            "exactly",
            "than",
            "just",
        )
    )


class _Builder:
    """Accumulates the tokens of one text."""

    def __init__(self, analyzer: Analyzer, sentence_count: int) -> None:
        self.analyzer = analyzer
        self.lex = analyzer._lexicon
        self.keys: list[str] = []
        self.kinds: list[TokenKind] = []
        self.weights: list[float] = []
        self.sentences: list[int] = []
        self.clauses: list[int] = []
        self.surfaces: list[str] = []
        self.anchors: set[str] = set()
        self.proper_votes: Counter[str] = Counter()
        self.initial_capitals: set[str] = set()
        self.sentence = 0
        self.clause = 0
        self.sentence_count = sentence_count
        self.at_start = True
        self.in_code = False
        self.aliases: dict[str, list[int]] = {}

    def new_sentence(self, sentence: int) -> None:
        self.sentence = sentence
        self.clause += 1
        self.at_start = True

    def _push(self, key: str, kind: TokenKind, weight: float, surface: str) -> None:
        self.keys.append(key)
        self.kinds.append(kind)
        self.weights.append(weight)
        self.sentences.append(self.sentence)
        self.clauses.append(self.clause)
        self.surfaces.append(surface)

    def add(self, match: re.Match[str], *, light: bool) -> None:
        group = match.lastgroup
        raw = match.group(0)
        if group == "code":
            self.in_code = True
            for inner in _token_pattern().finditer(raw.strip("`")):
                self.add(inner, light=light)
            self.in_code = False
            self.at_start = False
        elif group in ("num", "scale"):
            value, literal = parse_number(match.group("num"))
            if literal:
                self._anchor("=" + value, raw)
            else:
                scale = match.group("scale")
                if scale:
                    value = _scaled(value, _LETTER_SCALES[scale.upper()])
                self._push("#" + value, TokenKind.NUMBER, WEIGHT_ANCHOR, raw)
            self.at_start = False
        elif group == "date":  # ISO 8601: 2024-03-05 is March 5, 2024
            year, month, day = raw.split("-")
            self._push("#" + year, TokenKind.NUMBER, WEIGHT_ANCHOR, year)
            self._push(f"@m{int(month)}", TokenKind.MONTH, WEIGHT_ANCHOR, month)
            self._push("#" + str(int(day)), TokenKind.NUMBER, WEIGHT_ANCHOR, day)
            self.at_start = False
        elif group == "word":
            if _HAS_SEPARATOR(raw):
                self._ident(raw, light=light)
            else:
                self._word(raw, light=light)
        elif group == "han":
            self._han(raw)
        elif group == "hira":
            self._hiragana(raw)
        elif group == "kata":
            key = raw.rstrip("ー")
            self._push(key or raw, TokenKind.CJK, WEIGHT_NORMAL, raw)
            self.at_start = False
        elif group == "hangul":
            self._hangul(raw)
        elif group == "sea":
            self._sea(raw)
        elif group == "sym":
            # "°C" has the key of "Celsius": a fact's "°C" holds a claim's "degrees Celsius"
            unit = _UNITS.get(normalize_word(raw))
            key = "%" + unit if unit is not None and unit.startswith("°") else raw
            self._push(key, TokenKind.SYMBOL, 0.0, normalize_word(raw))
        else:
            self._push("", TokenKind.BREAK, 0.0, raw)
            if raw not in '()[]{}"“”«»':
                self.clause += 1
            if raw in ":\n":
                self.at_start = True

    def _anchor(self, key: str, surface: str) -> None:
        self._push(key, TokenKind.IDENT, WEIGHT_ANCHOR, surface)
        self.anchors.add(key)
        self.at_start = False

    def _ident(self, raw: str, *, light: bool) -> None:
        lowered = normalize_word(raw)
        if lowered in _ABBREVIATION_IDENTS:
            self._push(lowered, TokenKind.STOP, 0.0, lowered)
            return
        parts = raw.split("-")
        if all(part and not _HAS_SEPARATOR(part) and not _HAS_DIGIT(part) for part in parts):
            for part in parts:  # "open-source", "end-of-life": words; "gpt-4" is a name
                self._word(part, light=light)
            return
        # "v3.45.0" is version 3.45.0, as a fact writes it after "version"
        self._anchor("=" + _VERSION_PREFIX.sub("", lowered.rstrip(".")), raw)

    def _word(self, raw: str, *, light: bool) -> None:
        category, word, key = _classify(self.analyzer.language, raw)
        initial = self.at_start
        self.at_start = False
        if category == _DIGITS or (self.in_code and category != _STOP):
            # code is matched exactly: `sorted()` is not "sorts", `None` is no negation; its
            # stop words are not (`429 Too Many Requests` is the fact's "429 Too Many Requests")
            self.aliases.setdefault("=" + word, []).append(len(self.keys))
            self._anchor("=" + word, raw)
        elif category == _CLAUSE:
            self.clause += 1
            # "unless directed by a doctor" negates its clause, as "without" does
            kind = (
                TokenKind.NEG_FORWARD if word in lexicon.CONDITIONAL_NEGATIONS else TokenKind.STOP
            )
            self._push(word, kind, 0.0, word)
        elif category == _FORWARD_CUE and not (
            raw[0].isupper() and not initial and word in _LITERALS
        ):
            # reachable by its exact form too: a claim's `404 Not Found` is a fact's "Not Found"
            self.aliases.setdefault("=" + word, []).append(len(self.keys))
            self._push(word, TokenKind.NEG_FORWARD, 0.0, word)
        elif category == _BACKWARD_CUE:
            self._push(word, TokenKind.NEG_BACKWARD, 0.0, word)
            if key:  # "unsupported" also stands for a negated "supported"
                self._push(key, TokenKind.STOP, 0.0, word)
        elif category == _STOP:
            self._push(word, TokenKind.STOP, 0.0, word)
        else:
            self.aliases.setdefault("=" + word, []).append(len(self.keys))
            self._content_word(raw, word, key, initial=initial, light=light)

    def _content_word(self, raw: str, word: str, key: str, *, initial: bool, light: bool) -> None:
        lex = self.lex
        weight = WEIGHT_LIGHT if light or key in lex.light else WEIGHT_NORMAL
        if key in lex.criticals:
            weight = WEIGHT_NORMAL
        if raw != word:  # not all lower case
            rest = raw[1:]
            if rest != rest.lower() and not light:
                self.anchors.add(key)  # "BigQuery", "GPU", "gRPC": always a name
                weight = WEIGHT_ANCHOR
            elif raw[0].isupper() and not initial:
                self.proper_votes[key] += 1
                if not light:
                    self.anchors.add(key)
                    weight = WEIGHT_ANCHOR
            elif raw[0].isupper():
                self.initial_capitals.add(key)
        elif raw[0].islower():
            self.proper_votes[key] -= 1
        self.keys.append(key)
        self.kinds.append(TokenKind.WORD)
        self.weights.append(weight)
        self.sentences.append(self.sentence)
        self.clauses.append(self.clause)
        self.surfaces.append(word)

    def _han(self, raw: str) -> None:
        self.at_start = False
        piece: list[str] = []
        i = 0
        while i < len(raw):
            ch = raw[i]
            pair = raw[i : i + 2]
            if ch in lexicon.HAN_NEGATION_CHARS and pair not in lexicon.HAN_NEGATION_EXCEPTIONS:
                self._han_piece(piece)
                piece = []
                self._push(ch, TokenKind.NEG_FORWARD, 0.0, ch)
            elif ch in lexicon.HAN_STOP_CHARS:
                self._han_piece(piece)
                piece = []
                self._push(ch, TokenKind.STOP, 0.0, ch)
            else:
                piece.append(ch)
            i += 1
        self._han_piece(piece)

    def _han_piece(self, chars: list[str]) -> None:
        if len(chars) == 1:
            self._push(chars[0], TokenKind.CJK, WEIGHT_NORMAL, chars[0])
        for a, b in itertools.pairwise(chars):
            self._push(a + b, TokenKind.CJK, WEIGHT_NORMAL, a + b)

    def _hiragana(self, raw: str) -> None:
        self.at_start = False
        for cue in lexicon.KANA_NEGATIONS:
            if cue in raw:
                self._push(cue, TokenKind.NEG_BACKWARD, 0.0, raw)
                return
        self._push(raw, TokenKind.WEAK, WEIGHT_WEAK, raw)

    def _hangul(self, raw: str) -> None:
        self.at_start = False
        if raw in ("안", "못"):
            self._push(raw, TokenKind.NEG_FORWARD, 0.0, raw)
            return
        for cue in lexicon.HANGUL_NEGATIONS:
            if raw.startswith(cue) or (cue in "않못없" and cue in raw[-4:]):
                self._push(cue, TokenKind.NEG_BACKWARD, 0.0, raw)
                return
        stem = raw
        for suffix in _HANGUL_SUFFIXES:
            if len(stem) > len(suffix) and stem.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        self._han_piece(list(stem))

    def _sea(self, raw: str) -> None:
        self.at_start = False
        rest = raw
        for cue in lexicon.THAI_NEGATIONS:
            while cue in rest:
                before, _, rest = rest.partition(cue)
                self._han_piece(_clusters(before))
                self._push(cue, TokenKind.NEG_FORWARD, 0.0, cue)
        self._han_piece(_clusters(rest))

    # ---------------------------------------------------------------------------------------

    def finish(self, *, claim: bool) -> TextFeatures:
        keys, kinds = self.keys, self.kinds
        self._resolve_words()
        if "square" in self.surfaces or "cubic" in self.surfaces:
            self._resolve_spelled_units()
        if self.analyzer.language == "english" and not _PARTICLES.isdisjoint(self.surfaces):
            self._resolve_phrasal_verbs()
        positions: dict[str, list[int]] = {}
        for i, key in enumerate(keys):
            where = positions.get(key)
            if where is None:
                positions[key] = [i]
            else:
                where.append(i)
        content: dict[str, float] = {}
        criticals = set()
        if claim:  # facts need no weights per key: they are matched, not measured
            lex_criticals = self.lex.criticals
            for key, kind, weight in zip(keys, kinds, self.weights, strict=True):
                if kind in CONTENT_KINDS and key:
                    if weight > content.get(key, -1.0):
                        content[key] = weight
                    if key in lex_criticals or kind in (TokenKind.NUMBER, TokenKind.MONTH):
                        criticals.add(key)
        return TextFeatures(
            keys=tuple(keys),
            kinds=tuple(kinds),
            weights=tuple(self.weights),
            sentences=tuple(self.sentences),
            clauses=tuple(self.clauses),
            surfaces=tuple(self.surfaces),
            content=content,
            anchors=frozenset(self.anchors | {k for k in criticals if k[0] in "#@"}),
            criticals=frozenset(criticals),
            positions=positions,
            aliases=self.aliases,
            quantities=self._quantities(),
            negations=self._negations(),
            sentence_count=self.sentence_count,
            proper_votes=dict(self.proper_votes),
            initial_capitals=frozenset(self.initial_capitals),
        )

    def _resolve_spelled_units(self) -> None:
        """ "cubic metres" is the unit "m³": one unit key, "cubic" stops counting."""
        keys, kinds, surfaces = self.keys, self.kinds, self.surfaces
        for i in range(len(keys) - 1):
            unit = lexicon.SPELLED_UNITS.get((surfaces[i], surfaces[i + 1]))
            if unit is not None:
                keys[i], kinds[i], self.weights[i] = "", TokenKind.STOP, 0.0
                keys[i + 1] = "%" + unit
                surfaces[i + 1] = unit  # the quantity before it is in this unit

    def _resolve_phrasal_verbs(self) -> None:
        """A verb and its particle, next to it or one word on ("switch timeouts off"), become
        the one word they mean ("disable"); the particle stops counting."""
        keys, kinds, surfaces = self.keys, self.kinds, self.surfaces
        phrasal = _phrasal_verbs()
        for i in range(len(keys) - 1):
            if kinds[i] != TokenKind.WORD or not (
                surfaces[i + 1] in _PARTICLES
                or (i + 2 < len(keys) and surfaces[i + 2] in _PARTICLES)
            ):
                continue
            base = _english_base(surfaces[i])
            for j in (i + 1, i + 2):
                if j >= len(keys) or kinds[j - 1] == TokenKind.BREAK:
                    break
                target = phrasal.get((base, surfaces[j]))
                if target is not None:
                    keys[i] = _word_key("english", target)
                    keys[j], kinds[j], self.weights[j] = "", TokenKind.STOP, 0.0
                    break

    def _resolve_words(self) -> None:
        """Second pass: months, number words, scale words and bounds ("at most", "up to"),
        which depend on their neighbours."""
        keys, kinds, surfaces = self.keys, self.kinds, self.surfaces
        n = len(keys)
        triggers = _RESOLVE_TRIGGERS | _BOUND_STARTS | {"longer"}
        number = TokenKind.NUMBER
        consumed = -1
        for i in [i for i, s in enumerate(surfaces) if s in triggers or kinds[i] == number]:
            if i <= consumed:
                continue
            kind = kinds[i]
            surface = surfaces[i]
            if surface == "longer" and i > 0 and kinds[i - 1] == TokenKind.NEG_FORWARD:
                keys[i], kinds[i], self.weights[i] = "", TokenKind.STOP, 0.0  # "no longer"
                continue
            bound = _bound(surfaces, kinds, i)
            if bound is not None:
                phrase_end, upper = bound
                consumed = phrase_end
                for j in range(i, phrase_end):
                    keys[j] = ""
                    kinds[j] = TokenKind.STOP
                    self.weights[j] = 0.0
                keys[phrase_end] = self.lex.upper_bound if upper else self.lex.lower_bound
                kinds[phrase_end] = TokenKind.WORD
                self.weights[phrase_end] = WEIGHT_LIGHT
                continue
            if kind in (TokenKind.WORD, TokenKind.STOP) and surface in _MONTHS:
                near_number = (i + 1 < n and kinds[i + 1] == TokenKind.NUMBER) or (
                    i > 0 and kinds[i - 1] == TokenKind.NUMBER
                )
                if near_number or (kind == TokenKind.WORD and keys[i] in self.anchors):
                    self.anchors.discard(keys[i])
                    keys[i] = f"@m{_MONTHS[surface]}"
                    kinds[i] = TokenKind.MONTH
                    self.weights[i] = WEIGHT_ANCHOR
            elif surface in ("degree", "degrees") and _UNITS.get(
                normalize_word(surfaces[i + 1]) if i + 1 < n else "", ""
            ).startswith("°"):
                keys[i], kinds[i], self.weights[i] = "", TokenKind.STOP, 0.0  # "degrees Celsius"
            elif kind in (TokenKind.WORD, TokenKind.STOP) and surface in _WEEKDAYS:
                self.anchors.discard(keys[i])  # a day of the week is a date: "@d5" is Friday
                keys[i] = f"@d{_WEEKDAYS[surface]}"
                kinds[i] = TokenKind.MONTH
                self.weights[i] = WEIGHT_ANCHOR
            elif (
                surface in lexicon.ORDINALS
                and i > 0
                and surfaces[i - 1] in lexicon.ORDINAL_DETERMINERS
            ):
                keys[i] = f"#{lexicon.ORDINALS[surface]}th"  # "the third most abundant"
                kinds[i] = TokenKind.NUMBER
                self.weights[i] = WEIGHT_ANCHOR
            elif (surface, surfaces[i + 1] if i + 1 < n else "") in lexicon.NEGATION_PHRASES:
                keys[i], kinds[i], self.weights[i] = surface, TokenKind.NEG_FORWARD, 0.0
                keys[i + 1], kinds[i + 1], self.weights[i + 1] = "", TokenKind.STOP, 0.0
            elif surface in lexicon.FREQUENCY_WORDS and _counts_times(surfaces, i):
                keys[i] = "#" + _canonical(str(lexicon.FREQUENCY_WORDS[surface]))
                kinds[i] = TokenKind.NUMBER
                self.weights[i] = WEIGHT_ANCHOR
            elif kind in (TokenKind.WORD, TokenKind.STOP) and surface in _NUMBER_WORDS:
                keys[i] = "#" + _canonical(str(_NUMBER_WORDS[surface]))
                kinds[i] = TokenKind.NUMBER
                self.weights[i] = WEIGHT_ANCHOR
            if kinds[i] == TokenKind.NUMBER and i + 1 < n and surfaces[i + 1] in _SCALES:
                keys[i] = "#" + _scaled(keys[i][1:], _SCALES[surfaces[i + 1]])
                kinds[i + 1] = TokenKind.STOP
                self.weights[i + 1] = 0.0
            if (
                kinds[i] == TokenKind.CJK
                and surfaces[i] in _SCALES
                and i > 0
                and kinds[i - 1] == TokenKind.NUMBER
            ):
                keys[i - 1] = "#" + _scaled(keys[i - 1][1:], _SCALES[surfaces[i]])
                kinds[i] = TokenKind.STOP

    def _quantities(self) -> tuple[Quantity, ...]:
        keys, kinds, surfaces = self.keys, self.kinds, self.surfaces
        n = len(keys)
        found = []
        for i in range(n):
            if kinds[i] != TokenKind.NUMBER:
                continue
            unit = None
            attached = None
            if i > 0 and surfaces[i - 1] in lexicon.CURRENCY_SYMBOLS:
                unit = lexicon.CURRENCY_SYMBOLS[surfaces[i - 1]]
            j = i + 1
            # skip articles ("5 of the nodes" stays "5 of"), stop at a preposition: in "two
            # for a full handshake" the counted noun is left out, "full" is not it
            while (
                j < n
                and j <= i + 3
                and kinds[j] == TokenKind.STOP
                and surfaces[j] not in _PREPOSITIONS
            ):
                j += 1
            rate = None
            if j < n and j <= i + 3:
                surface = normalize_word(surfaces[j])
                if unit is None and surface in _UNITS:
                    unit = _UNITS[surface]
                    scale = normalize_word(surfaces[j + 1]) if j + 1 < n else ""
                    if unit == "degree" and _UNITS.get(scale, "").startswith("°"):
                        j += 1  # "100 degrees Celsius" is "100 °C"
                        unit = _UNITS[scale]
                if kinds[j] in (TokenKind.WORD, TokenKind.CJK, TokenKind.IDENT):
                    attached = keys[j]
                rate = self._rate(j + 1)
            found.append(Quantity(keys[i], unit, attached, i, rate))
        return tuple(found)

    def _rate(self, i: int) -> str | None:
        """The unit after "per" (or "a", "each", "/") at token ``i``, if any."""
        surfaces = self.surfaces
        if i + 1 < len(surfaces) and normalize_word(surfaces[i]) in lexicon.RATE_WORDS:
            return _UNITS.get(normalize_word(surfaces[i + 1]))
        return None

    def _negations(self) -> tuple[NegationScope, ...]:
        keys, kinds, clauses, surfaces = self.keys, self.kinds, self.clauses, self.surfaces
        n = len(keys)
        scopes = []
        for i in range(n):
            kind = kinds[i]
            if kind == TokenKind.NEG_FORWARD:
                if i + 1 < n and surfaces[i + 1] in _BREAKERS:
                    continue
                if surfaces[i] in ("ne", "n") and any(
                    surfaces[j] in _FORWARD for j in range(i + 1, min(n, i + 4))
                ):
                    continue  # French "ne ... pas": one negation, counted at "pas"
                picked: list[str] = []
                where: list[int] = []
                j = i + 1
                while j < n and clauses[j] == clauses[i] and len(picked) < 4:
                    if kinds[j] in CONTENT_KINDS:
                        picked.append(keys[j])
                        where.append(j)
                    j += 1
                scopes.append(
                    NegationScope(i, frozenset(picked), picked[0] if picked else None, tuple(where))
                )
            elif kind == TokenKind.NEG_BACKWARD:
                picked = []
                where = []
                j = i - 1
                while j >= 0 and clauses[j] == clauses[i] and len(picked) < 3:
                    if kinds[j] in CONTENT_KINDS:
                        picked.append(keys[j])
                        where.append(j)
                    j -= 1
                if i + 1 < n and kinds[i + 1] == TokenKind.STOP and surfaces[i + 1] == surfaces[i]:
                    picked.insert(0, keys[i + 1])  # "unsupported" also negates "support"
                    where.append(i + 1)
                scopes.append(
                    NegationScope(i, frozenset(picked), picked[0] if picked else None, tuple(where))
                )
        return tuple(scopes)


def _clusters(text: str) -> list[str]:
    """``text`` cut into base characters with their combining marks (Thai vowels, tones)."""
    clusters: list[str] = []
    for ch in text:
        if clusters and unicodedata.category(ch) in ("Mn", "Mc"):
            clusters[-1] += ch
        else:
            clusters.append(ch)
    return clusters


_DIGITS, _CLAUSE, _FORWARD_CUE, _BACKWARD_CUE, _STOP, _CONTENT = range(6)
# Bounds that say the same: "up to 10" = "at most 10" = "no more than 10" = "a maximum of 10".
# "More than 30" = "over 30" = "at least 30"; these bound a number only when one follows.
_UPPER_BOUNDS = (
    ("up", "to"),
    ("at", "most"),
    ("no", "more", "than"),
    ("not", "more", "than"),
    ("no", "over"),
)
_LOWER_BOUNDS = (("at", "least"), ("no", "less", "than"), ("not", "less", "than"))
_NUMBER_UPPER_BOUNDS = (("less", "than"), ("fewer", "than"), ("under",), ("below",))
_NUMBER_LOWER_BOUNDS = (
    ("more", "than"),
    ("greater", "than"),
    ("over",),
    ("above",),
    ("exceeding",),
)
_BOUND_STARTS = frozenset(
    p[0] for p in _UPPER_BOUNDS + _LOWER_BOUNDS + _NUMBER_UPPER_BOUNDS + _NUMBER_LOWER_BOUNDS
)


def _bound(surfaces: list[str], kinds: list[TokenKind], i: int) -> tuple[int, bool] | None:
    """``(index of the phrase's last token, is an upper bound)`` of a bound phrase at ``i``."""
    if surfaces[i] not in _BOUND_STARTS:
        return None
    for phrases, upper, numeric in (
        (_UPPER_BOUNDS, True, False),
        (_LOWER_BOUNDS, False, False),
        (_NUMBER_UPPER_BOUNDS, True, True),
        (_NUMBER_LOWER_BOUNDS, False, True),
    ):
        for phrase in phrases:
            end = i + len(phrase)
            if tuple(surfaces[i:end]) != phrase:
                continue
            if numeric and not _number_at(surfaces, kinds, end):
                continue
            return end - 1, upper
    return None


def _number_at(surfaces: list[str], kinds: list[TokenKind], i: int) -> bool:
    if i < len(kinds) and surfaces[i] in lexicon.CURRENCY_SYMBOLS:
        i += 1
    return i < len(kinds) and (kinds[i] == TokenKind.NUMBER or surfaces[i] in _NUMBER_WORDS)


_HAS_DIGIT = re.compile(r"\d").search
_HAS_SEPARATOR = re.compile(r"[._/:@#~=?&+-]").search


@functools.lru_cache(maxsize=65536)
def _classify(language: str, raw: str) -> tuple[int, str, str]:
    """``(category, normalized word, key)`` of a word token, whatever its context."""
    if len(raw) > 2 and raw[-1] == "s" and raw[:-1].isupper():
        raw = raw[:-1]  # "GPUs" -> "GPU", "APIs" -> "API"
    word = normalize_word(raw)
    if word in lexicon.AREA_VOLUME_UNITS:  # "km²" (NFKC: "km2") is the unit "square kilometres"
        return _CONTENT, word, "%" + lexicon.AREA_VOLUME_UNITS[word]
    if _HAS_DIGIT(word):
        return _DIGITS, word, ""
    if word in _CLAUSE_WORDS:
        return _CLAUSE, word, ""
    if word in _FORWARD:
        return _FORWARD_CUE, word, ""
    if word in _BACKWARD:
        positive = _positive_form(word)
        return _BACKWARD_CUE, word, _word_key(language, positive) if positive else ""
    if word in _build_lexicon(language).stopwords:
        return _STOP, word, ""
    script = _script_language(word[0])
    return _CONTENT, word, _word_key(script or language, word)


def _positive_form(word: str) -> str | None:
    for prefix in ("non", "dis", "un", "in", "im"):
        if word.startswith(prefix) and len(word) > len(prefix) + 3:
            return word[len(prefix) :]
    return None
