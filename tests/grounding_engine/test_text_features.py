"""Normalization, tokens and match keys of the grounding checker's text analysis."""

from __future__ import annotations

import pytest

from grounding_emulator.grounding.lexical.text_features import (
    Analyzer,
    TokenKind,
    guess_language,
    normalize_word,
    parse_number,
)

EN = Analyzer("english")


def keys(text: str, analyzer: Analyzer = EN) -> set[str]:
    return set(analyzer.analyze(text, claim=True).content)


@pytest.mark.parametrize(
    ("word", "expected"),
    [("Café", "cafe"), ("ÉCOLE", "ecole"), ("Straße", "strasse"), ("İstanbul", "istanbul")],
)
def test_normalize_word_casefolds_and_drops_diacritics(word, expected):
    assert normalize_word(word) == expected


def test_devanagari_vowel_signs_are_kept():
    assert normalize_word("हिन्दी") == "हिन्दी"


def test_nfkc_full_width_and_ligatures():
    assert keys("ＧＰＵ ﬁle") == keys("GPU file")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1,000", ("1000", False)),
        ("1,000,000", ("1000000", False)),
        ("3.5", ("3.5", False)),
        ("3.10", ("3.10", False)),
        ("3,5", ("3.5", False)),
        ("1.234,5", ("1234.5", False)),
        ("007", ("7", False)),
        ("1.2.3", ("1.2.3", True)),
        ("٣", ("3", False)),
        ("१२", ("12", False)),
    ],
)
def test_parse_number(raw, expected):
    assert parse_number(raw) == expected


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("It supports 3 regions.", "It supports three regions."),
        ("1.5 million users", "1,500,000 users"),
        ("2M tokens", "2,000,000 tokens"),
        ("on 2024-03-05", "on March 5, 2024"),
        ("30 km", "30 kilometres"),
        ("up to 10 tasks", "at most 10 tasks"),
        ("The APIs scale.", "The API scales."),
    ],
)
def test_same_meaning_same_keys(a, b):
    assert keys(a) == keys(b)


def test_synonyms_and_stems_share_keys():
    assert keys("It allows deployments") == keys("It enables deploying")


def test_stop_words_and_negations_are_not_content():
    features = EN.analyze("Cloud Run does not need the Dockerfile.", claim=True)
    assert "not" not in features.content
    assert TokenKind.NEG_FORWARD in features.kinds
    assert [scope.head for scope in features.negations] == ["~need"]


def test_contractions_become_negations():
    for text in ("It doesn't scale.", "It can't scale.", "It cannot scale.", "It won't scale."):
        assert len(EN.analyze(text, claim=True).negations) == 1, text


def test_code_is_matched_exactly_and_is_never_a_negation():
    features = EN.analyze("`sorted()` returns `None`.", claim=True)
    assert {"=sorted", "=none"} <= features.anchors
    assert features.negations == ()


def test_identifiers_and_names_are_anchors():
    features = EN.analyze(
        "Deploy to us-central1 with gcloud and BigQuery on H100 GPUs.", claim=True
    )
    assert {"=us-central1", "=h100", "bigqueri", "gpu"} <= features.anchors


def test_numbers_carry_units_and_attached_nouns():
    features = EN.analyze("It has 8 GB of memory, 4 vCPUs and costs $5 per month.", claim=True)
    assert [(q.key, q.unit) for q in features.quantities] == [
        ("#8", "gb"),
        ("#4", "vcpu"),
        ("#5", "usd"),
    ]


def test_han_text_becomes_bigrams_split_at_function_characters():
    features = Analyzer("english").analyze("东京是日本的首都。", claim=True)
    assert set(features.content) == {"东京", "日本", "首都"}


def test_han_negation_is_a_cue():
    features = Analyzer("english").analyze("东京不是日本的首都。", claim=True)
    assert len(features.negations) == 1
    assert "非常" not in {s.keys for s in features.negations}


def test_japanese_and_korean_negations():
    assert EN.analyze("変更できません。", claim=True).negations
    assert EN.analyze("수도가 아닙니다.", claim=True).negations
    assert not EN.analyze("変更できます。", claim=True).negations


def test_sentences_of_a_fact():
    features = EN.analyze("Smith works here. Python 3.5 added it, e.g. here! 東京です。Done")
    assert features.sentence_count == 4


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("The service is not available in the region.", "english"),
        ("Der Dienst ist nicht in der Region verfügbar und die Kosten sind hoch.", "german"),
        ("Le service n'est pas disponible dans la région et les coûts sont élevés.", "french"),
        ("El servicio no está disponible en la región y los costos son altos.", "spanish"),
        ("東京は日本の首都です。", "english"),
    ],
)
def test_guess_language(text, language):
    assert guess_language(text) == language
