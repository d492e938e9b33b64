"""The grounding checker: CheckGrounding semantics on plain values."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_emulator.grounding.lexical.engine import (
    CheckedClaim,
    CheckOutcome,
    Fact,
    check_grounding,
)

RUN = Fact(
    "Cloud Run automatically scales container instances based on incoming requests. "
    "By default, Cloud Run services scale to zero instances when there is no traffic. "
    "Each instance handles up to 80 concurrent requests by default, and the request timeout "
    "is 5 minutes."
)
GPU = Fact("Cloud Run does not support GPUs in us-east1. GPUs are available in us-central1.")
SPEED = Fact("BigQuery is faster than Cloud SQL for analytical queries.")
DICT = Fact(
    "`dict.get(key, default=None)` returns the value for key if key is in the dictionary, "
    "else default, so that this method never raises a KeyError."
)
FACTS = [RUN, GPU, SPEED, DICT]


def check(claim: str, facts: list[Fact] = FACTS, **kwargs: float) -> CheckedClaim:
    outcome = check_grounding(claim, facts, **kwargs)
    assert len(outcome.claims) == 1, outcome.claims
    return outcome.claims[0]


def supported(claim: str, facts: list[Fact] = FACTS) -> bool:
    return bool(check(claim, facts).fact_indices)


@pytest.mark.parametrize(
    "claim",
    [
        "Cloud Run services scale to zero instances when there is no traffic.",
        "When there is no traffic, Cloud Run scales down to zero instances by default.",
        "Each instance can handle at most 80 concurrent requests by default.",
        "The default request timeout is 5 minutes.",
        "Cloud Run does not support GPUs in us-east1.",
        "Cloud SQL is slower than BigQuery for analytical queries.",
        "`dict.get()` never raises a KeyError.",
    ],
)
def test_entailed_claims_are_supported(claim):
    assert supported(claim), check(claim)


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        ("Each instance handles up to 100 concurrent requests by default.", "wrong number"),
        ("The default request timeout is 5 seconds.", "wrong unit"),
        ("Cloud Run services scale to zero instances when there is no traffic in 2019.", "date"),
        ("Cloud Functions services scale to zero instances when there is no traffic.", "name"),
        ("Cloud Run supports GPUs in us-east1.", "flipped negation"),
        ("`dict.get()` raises a KeyError.", "flipped negation"),
        ("BigQuery is slower than Cloud SQL for analytical queries.", "flipped comparative"),
        ("Cloud SQL is faster than BigQuery for analytical queries.", "swapped comparison"),
        ("Cloud Run scales to zero instances within 15 seconds of idle time.", "extra detail"),
        ("Cloud Run services scale to zero and support GPUs in all regions.", "extra detail"),
        ("Penguins live on the Moon.", "unrelated"),
    ],
)
def test_claims_that_are_not_wholly_entailed_are_unsupported(claim, kind):
    result = check(claim)
    assert result.grounding_check_required
    assert result.fact_indices == (), (kind, result)
    assert result.score < 0.6


def test_problems_say_why():
    assert "#8 is in ['gb']" in check("It has 8 vCPUs.", [Fact("8 GiB and 4 vCPUs.")]).problems
    bound = check("It runs 8 workers.", [Fact("It runs 8 threads and 2 workers.")])
    assert "#8 is not said of 'worker'" in bound.problems
    assert "#100" in " ".join(check("It handles up to 100 concurrent requests.").problems)


@pytest.mark.parametrize(
    "text",
    [
        "Here is what I found:",
        "Let me know if you need anything else.",
        "I hope this helps!",
        "Great question.",
        "Sure!",
        "Would you like more details?",
        "Feel free to ask follow-up questions about deployment.",
        "I couldn't find pricing details in the provided documents.",
        "Hope that helps — happy coding! 🚀",
        "希望对你有帮助！",
        "See https://example.com/docs for more.",
        "More details: https://example.com/docs.",
        "Short answer: it depends.",
        "Always consult your doctor before changing the dose.",
        "I'd recommend starting with the defaults.",
        "祝你好运！",
        "Надеюсь, это поможет!",
        "Espero que esto te ayude.",
        "도움이 되셨길 바랍니다.",
        "¡Claro!",
        "더 궁금한 점이 있으면 말씀해 주세요.",
        "Θέλετε να μάθετε περισσότερα;",
        "Сподіваюся, це допоможе!",
        "Chúc bạn nấu ngon 🍜!",
        "ご不明点があればお知らせください。",
        "The full list is at https://docs.python.org/3.12/whatsnew/3.12.html.",
        "See https://nodejs.org/en/about/previous-releases for the full schedule.",
        "Please check with your pediatrician about your child's schedule.",
        "Thanks for reaching out!",
        "Gute Reise 🚆!",
    ],
)
def test_connectives_need_no_check_and_get_no_citations(text):
    result = check(text)
    assert result.grounding_check_required is False
    assert result.fact_indices == ()
    assert result.score == 0.0


def test_headings_and_code_blocks_need_no_check():
    answer = "**Scaling**\nCloud Run scales to zero instances.\n```bash\ngcloud run deploy\n```"
    outcome = check_grounding(answer, FACTS)
    assert [(c.text, c.grounding_check_required) for c in outcome.claims] == [
        ("Scaling", False),
        ("Cloud Run scales to zero instances.", True),
        ("```bash\ngcloud run deploy\n```", False),
    ]
    assert outcome.support_score == 1.0


def test_a_connective_with_content_is_checked():
    result = check("Great question: Cloud Run scales to zero instances when there is no traffic.")
    assert result.grounding_check_required
    assert result.fact_indices == (0,)


def test_hedges_and_attributions_do_not_count_against_the_claim():
    assert supported("I believe Cloud Run does not support GPUs in us-east1.")
    assert supported("According to the documentation, the default request timeout is 5 minutes.")


def test_citations_list_every_fact_over_the_threshold_best_first():
    weaker = Fact("Cloud Run scales to zero instances, among many other features.")
    exact = Fact("Cloud Run automatically scales to zero instances.")
    result = check("Cloud Run automatically scales to zero instances.", [weaker, GPU, exact])
    assert result.fact_indices == (2, 0)
    assert result.score == 1.0


def test_threshold_decides_citations():
    claim = "Cloud Run quickly scales to zero instances when idle."
    lenient = check(claim, citation_threshold=0.2)
    strict = check(claim, citation_threshold=0.99)
    assert lenient.fact_indices == (0,)
    assert strict.fact_indices == ()
    assert lenient.score == strict.score
    assert 0.2 <= lenient.score < 0.99


def test_joint_support_by_two_facts():
    facts = [Fact("Cloud Run supports HTTP/2 end to end."), Fact("Cloud Run supports WebSockets.")]
    result = check("Cloud Run supports HTTP/2 and WebSockets.", facts)
    assert set(result.fact_indices) == {0, 1}
    assert not supported("Cloud Run supports HTTP/2 and gRPC.", facts)


def test_two_unrelated_halves_do_not_join():
    facts = [Fact("Cloud Run is a serverless platform."), Fact("Compute Engine supports GPUs.")]
    assert not supported("Cloud Run supports GPUs.", facts)


def test_only_a_coordination_joins_two_facts():
    facts = [
        Fact("Cloud Run functions handle up to 1,000 concurrent requests per instance."),
        Fact("Cloud Functions 1st gen instances handle one request at a time."),
    ]
    assert not supported("Cloud Functions 1st gen instances handle 1,000 requests.", facts)
    assert supported(
        "Cloud Run functions handle up to 1,000 concurrent requests per instance, and 1st gen "
        "instances handle one request at a time.",
        facts,
    )


def test_a_topic_named_earlier_in_the_fact_carries_over():
    fact = Fact(
        "Cloud Spanner is a distributed database. It offers strong consistency. "
        "Backups are kept for up to one year. It also handles sharding automatically."
    )
    assert supported("Cloud Spanner handles sharding automatically.", [fact])
    titled = Fact("It handles sharding automatically.", {"title": "Cloud Spanner"})
    assert supported("Cloud Spanner handles sharding automatically.", [titled])


@pytest.mark.parametrize(
    ("claim", "fact", "expected"),
    [
        ("It is available in more than 30 regions.", "It is available in over 30 regions.", True),
        ("It is available in fewer than 30 regions.", "It is available in over 30 regions.", False),
        ("A job can be retried at most 10 times.", "A job can be retried up to 10 times.", True),
        ("The API is no longer supported.", "The API is deprecated and no longer supported.", True),
        ("The API is still supported.", "The API is deprecated and no longer supported.", False),
        ("Sales fell by 12% in 2023.", "In 2023, sales grew by 12 percent.", False),
        ("It is enabled by default.", "It is disabled by default.", False),
        ("Einstein was born in Munich.", "Albert Einstein was born in Ulm, Germany.", False),
    ],
)
def test_bounds_negations_and_opposites(claim, fact, expected):
    assert supported(claim, [Fact(fact)]) is expected, check(claim, [Fact(fact)])


@pytest.mark.parametrize(
    ("claim", "fact"),
    [
        (
            "Rot comes from a shortage of water.",
            "Rot comes from heat rather than a shortage of water.",
        ),
        (
            "The digits 8 and 9 can appear in a code.",
            "The digits 8 and 9 are never used in a code.",
        ),
        ("The directive applies only to private caches.", "It applies only to shared caches."),
        ("Turn on two-factor login by default.", "Two-factor login is disabled by default."),
    ],
)
def test_what_the_fact_denies_is_unsupported(claim, fact):
    assert not supported(claim, [Fact(fact)]), check(claim, [Fact(fact)])


def test_joint_facts_keep_their_own_numbers_and_units():
    facts = [
        Fact("It brews with water between 90 and 96 °C."),
        Fact("It uses about 55 g of coffee per litre of water."),
    ]
    result = check("It brews at 90–96 °C and uses about 55 g of coffee per litre.", facts)
    assert sorted(result.fact_indices) == [0, 1], result


def test_a_link_with_content_is_checked():
    assert check("The endpoint is https://api.example.com/v1.").grounding_check_required


@pytest.mark.parametrize(
    ("claim", "fact", "expected"),
    [
        ("Preheat the oven to 230 °F.", "Preheat the oven to 230 °C (446 °F).", False),
        ("Water boils at 100 degrees Celsius.", "Water boils at 100 °C at sea level.", True),
        ("Water boils at 100 °C.", "Water boils at 100 degrees at sea level.", True),
        (
            "The plan allows 60 requests per second.",
            "The plan allows 60 requests per minute.",
            False,
        ),
        (
            "The plan allows 60 requests per minute.",
            "The plan allows 60 requests per minute per key.",
            True,
        ),
        ("The plan allows 60 requests.", "The plan allows 60 requests per minute.", True),
        ("Backups run once a day.", "Backups run twice a day.", False),
        ("Backups run at least twice a day.", "Backups run at least twice a day.", True),
        ("Once the job starts, logs stream.", "Once the job starts, logs stream.", True),
        ("JSON support was added in v2.4.0.", "Version 2.4.0 added JSON support.", True),
        ("The museum is closed on Mondays.", "The museum is closed on Tuesdays.", False),
        ("संग्रहालय सोमवार को बंद रहता है।", "संग्रहालय मंगलवार को बंद रहता है।", False),
        ("Музей закрыт в понедельник.", "Музей закрыт в пятницу.", False),
        ("Река течёт севернее города.", "Река течёт южнее города.", False),
        ("Река течёт южнее города.", "Река течёт южнее города.", True),
        ("Argon is the second most abundant gas.", "Argon is the third most abundant gas.", False),
        ("Argon is the third most abundant gas.", "Argon is the third most abundant gas.", True),
        ("每天要花10到16分钟进食。", "成年大熊猫每天要花10到16个小时进食。", False),
        (
            "Man kann mit zwei Monaten Frist kündigen.",
            "Man kann mit zwei Wochen Frist kündigen.",
            False,
        ),
        ("Each step means ten times the amplitude.", "Each step means a tenfold amplitude.", True),
        ("Trụng bánh phở khoảng 10 phút.", "Trụng bánh phở khoảng 10 giây.", False),
        ("The lake holds 23,000 km³ of water.", "The lake holds 23,000 km³ of water.", True),
        ("The lake holds 23,000 km³ of water.", "The lake holds 23,000 km² of water.", False),
        ("It moves 209,000 m³ of water.", "It moves 209,000 cubic metres of water.", True),
        ("Bilet kosztuje 5 zł za 20 minut.", "Bilet kosztuje 5 zł za 20 minut.", True),
        ("Launch is 3 days after arrival.", "Launch is 3 hours after arrival.", False),
        (
            "La garantie commerciale est obligatoire.",
            "La garantie commerciale est facultative.",
            False,
        ),
    ],
)
def test_units_rates_counts_and_days(claim, fact, expected):
    assert supported(claim, [Fact(fact)]) is expected, check(claim, [Fact(fact)])


@pytest.mark.parametrize(
    ("claim", "fact"),
    [
        (
            "A `404 Not Found` response means the bucket does not exist.",
            "HTTP 404 Not Found means the bucket does not exist.",
        ),
        (
            "Refunds cannot exceed $50 without a manager's approval.",
            "Refunds cannot exceed $50 unless approved by a manager.",
        ),
        ("Never freeze the samples.", "The samples must not be frozen."),
        ("Readers do not take an exclusive lock.", "An exclusive lock is not taken by readers."),
        ("Поезд № 5 отправляется в полдень.", "Поезд № 5 отправляется в полдень."),
        (
            "The SCA recommends water at 93 °C.",
            "The Specialty Coffee Association recommends water at 93 °C.",
        ),
        (
            "On-demand backups persist until you delete them.",
            "On-demand backups are not deleted automatically; they persist until you delete them.",
        ),
        ("Every value has an owner.", "Each value has an owner."),
        ("Second, the gas is inert.", "The gas is inert."),
        ("Do not drive after taking it.", "Avoid driving after taking it."),
        ("Pass timeout=None to switch timeouts off.", "Pass timeout=None to disable timeouts."),
        ("The rocket lifted off on Nov. 16, 2022.", "The rocket launched on November 16, 2022."),
        ("The king has not moved before.", "The king has not previously moved."),
        ("Artemis I lifted off on Nov. 16, 2022.", "Artemis I lifted off on November 16, 2022."),
    ],
)
def test_the_same_statement_in_other_forms(claim, fact):
    assert supported(claim, [Fact(fact)]), check(claim, [Fact(fact)])


@pytest.mark.parametrize(
    ("claim", "fact", "expected"),
    [
        ("东京是日本的首都。", "日本的首都是东京，人口约1400万。", True),
        ("东京不是日本的首都。", "日本的首都是东京，人口约1400万。", False),
        ("東京の人口は約1400万人です。", "東京の人口は約1400万人です。", True),
        ("東京の人口は約1500万人です。", "東京の人口は約1400万人です。", False),
        ("バケットの場所は後で変更できます。", "バケットの場所は後で変更できません。", False),
        ("서울은 한국의 수도입니다.", "서울은 한국의 수도이다.", True),
        ("Москва — столица России.", "Москва является столицей России.", True),
        ("Москва не является столицей России.", "Москва является столицей России.", False),
        ("القاهرة عاصمة مصر.", "القاهرة هي عاصمة مصر.", True),
        ("Der Rhein mündet in die Nordsee.", "Der Rhein mündet in die Nordsee.", True),
        ("Der Rhein mündet nicht in die Nordsee.", "Der Rhein mündet in die Nordsee.", False),
        ("La Seine traverse Paris. 🗼", "La Seine traverse Paris.", True),
        ("ताजमहल आगरा में है।", "ताजमहल आगरा में स्थित है।", True),
        ("ताजमहल दिल्ली में है।", "ताजमहल आगरा में स्थित है।", False),
    ],
)
def test_any_language(claim, fact, expected):
    assert supported(claim, [Fact(fact)]) is expected, check(claim, [Fact(fact)])


def test_spans_slice_the_answer_and_support_score_counts_checked_claims():
    answer = "Sure! 🙂 Cloud Run does not support GPUs in us-east1.\n- Penguins live on the Moon."
    outcome = check_grounding(answer, FACTS)
    assert [answer[c.start : c.end] for c in outcome.claims] == [c.text for c in outcome.claims]
    assert [c.grounding_check_required for c in outcome.claims] == [False, True, True]
    assert outcome.support_score == pytest.approx(0.5)


def test_no_facts_and_no_checked_claims():
    assert check_grounding("Paris is in France.", []).support_score == 0.0
    assert check_grounding("Paris is in France.", []).claims[0].fact_indices == ()
    assert check_grounding("Thanks!", FACTS).support_score == 0.0
    assert check_grounding("", FACTS) == CheckOutcome(0.0, ())


def test_scores_are_in_range_and_records_are_frozen():
    outcome = check_grounding("Cloud Run scales to zero. It costs $5. Hello!", FACTS)
    assert all(0.0 <= c.score <= 1.0 for c in outcome.claims)
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.claims[0].score = 1.0  # type: ignore[misc]


def test_language_can_be_given():
    fact = [Fact("Der Dienst skaliert automatisch.")]
    assert check_grounding("Der Dienst skaliert automatisch.", fact, language="german").claims[
        0
    ].fact_indices == (0,)


_TEXT = st.one_of(
    st.text(max_size=120),
    st.lists(
        st.sampled_from(
            [
                "Cloud Run ",
                "does not ",
                "support ",
                "GPUs",
                "3.5 ",
                "1,000 ",
                "faster than ",
                "東京は",
                "不",
                "ません",
                "🚀",
                "`x.y()` ",
                ". ",
                "\n- ",
                "? ",
                "no longer ",
                "up to ",
                "2024-13-45 ",
                "March ",
                "$",
                "%",
            ]
        ),
        max_size=30,
    ).map("".join),
)


@settings(max_examples=150, deadline=None)
@given(_TEXT, st.lists(_TEXT, max_size=4), st.floats(0.0, 1.0))
def test_any_input_gives_a_well_formed_outcome(answer, texts, threshold):
    facts = [Fact(text) for text in texts]
    outcome = check_grounding(answer, facts, citation_threshold=threshold)
    checked = [c for c in outcome.claims if c.grounding_check_required]
    assert 0.0 <= outcome.support_score <= 1.0
    for claim in outcome.claims:
        assert answer[claim.start : claim.end] == claim.text
        assert 0.0 <= claim.score <= 1.0
        assert all(0 <= i < len(facts) for i in claim.fact_indices)
        assert len(set(claim.fact_indices)) == len(claim.fact_indices)
        if not claim.grounding_check_required:
            assert claim.fact_indices == ()
    supported = sum(1 for c in checked if c.fact_indices)
    assert outcome.support_score == (supported / len(checked) if checked else 0.0)
