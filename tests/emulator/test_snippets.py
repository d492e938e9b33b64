"""Snippets with hit highlighting (``grounding_emulator/search/snippets.py``), as Google's "Get
snippets and extracted content" page shows them: a verbatim extract with ``<b>`` around hits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from grounding_emulator.search.snippets import SNIPPET_CHARS, snippet


def plain(text: str) -> str:
    return text.replace("<b>", "").replace("</b>", "")


def test_a_short_text_is_whole_with_its_hits_in_bold():
    text = "The lighthouse keeper trims the lamp.\n\nThe   keeper sleeps."
    assert snippet(text, "keeper lamp") == (
        "The lighthouse <b>keeper</b> trims the <b>lamp</b>. The <b>keeper</b> sleeps."
    )


def test_hits_match_as_search_tokens_match():
    # Case and stems as the index has them; stop words of the query are not hits.
    assert snippet("Keepers kept the KEEPER's lamp.", "the keeper") == (
        "<b>Keepers</b> kept the <b>KEEPER</b>'s lamp."
    )
    # English stop words the search keeps as Python keywords are not bolded either.
    assert snippet("Google is in the index.", "Is Google in it?") == (
        "<b>Google</b> is in the index."
    )


def test_neighbouring_hits_share_one_bold_unless_something_sits_between():
    assert snippet("AI Applications build gen apps.", "what is ai applications?") == (
        "<b>AI Applications</b> build gen apps."
    )
    assert snippet("Rockets 🚀 launch", "rockets launch") == "<b>Rockets</b> 🚀 <b>launch</b>"
    assert snippet("Cape Canaveral 🇺🇸 every", "canaveral") == "Cape <b>Canaveral</b> 🇺🇸 every"


def test_no_hit_is_the_start_cut_at_a_space():
    words = " ".join(f"word{n}" for n in range(100))
    result = snippet(words, "absent")
    assert result.endswith("...")
    assert "<b>" not in result
    assert len(result) <= SNIPPET_CHARS
    assert words.startswith(result[:-3])
    assert words[len(result) - 3] == " "  # never inside a word


def test_a_hit_past_the_limit_starts_the_extract_at_its_sentence():
    filler = "Filler words come first. " * 15
    text = filler + "The lighthouse keeper climbs the stairs. " + "More text follows. " * 20
    result = snippet(text, "lighthouse")
    assert result.startswith("The <b>lighthouse</b> keeper climbs the stairs. More")
    assert result.endswith("...")
    assert len(plain(result)) <= SNIPPET_CHARS


def test_a_hit_in_a_sentence_longer_than_the_limit_starts_the_extract():
    text = "start " + "long " * 80 + "lighthouse keeper " + "tail " * 80
    result = snippet(text, "lighthouse")
    assert result.startswith("<b>lighthouse</b> keeper tail")
    assert len(plain(result)) <= SNIPPET_CHARS


def test_a_text_without_spaces_is_cut_between_whole_characters():
    text = "東京都は日本の首都です。" * 30 + "👩‍🚀" * 100
    result = snippet(text, "首都")
    assert result.startswith("東京都は日本の<b>首都</b>です。")
    assert len(plain(result)) <= SNIPPET_CHARS
    assert "\u200d..." not in result


@given(
    st.text(
        st.sampled_from(list("ab ée\u0301東京👩\u200d🚀🇺🇸.\n"))
        | st.characters(exclude_characters="<"),
        max_size=400,
    ),
    st.text(st.sampled_from(list("ab é東京 ")) | st.characters(), max_size=12),
)
def test_without_its_tags_a_snippet_is_a_verbatim_slice(text, query):
    flat = " ".join(text.split())
    result = snippet(text, query)
    body = plain(result)
    if body.endswith("...") and len(flat) > SNIPPET_CHARS:
        body = body[:-3]
    assert body in flat
    assert len(plain(result)) <= max(SNIPPET_CHARS, len(flat))
    assert result.count("<b>") == result.count("</b>")
    assert "<b></b>" not in result
