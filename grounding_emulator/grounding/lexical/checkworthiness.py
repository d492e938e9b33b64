"""Which claims need a grounding check (CheckGrounding's ``grounding_check_required``).

A sentence needs no check when it states nothing about the world: a greeting or thanks, an offer
of more help, a hope, a question back to the user, a lead-in that ends with a colon ("Here is what
I found:"), a remark about the answer or its sources ("I couldn't find that in the documents."),
a heading, table header or code block (an example, not a statement), or a fragment without a
word. Everything else is checked, and a claim
that is checked but matches no fact is unsupported: when in doubt, check.

The test is by content, not by position: after removing stop words and the conversational
vocabulary below, a sentence that has no word, number or name left states nothing to check. So
"Great question." is not checked, but "Great question: Cloud Run scales to zero." is.
"""

from __future__ import annotations

import re

from grounding_emulator.grounding.claims import SegmentKind
from grounding_emulator.grounding.lexical.lexicon import words
from grounding_emulator.grounding.lexical.text_features import (
    CONTENT_KINDS,
    TextFeatures,
    TokenKind,
)

__all__ = ["needs_grounding_check"]

# Words of conversation rather than content (normalized; matched on the surface form).
_CONVERSATIONAL = words(
    """
    hi hello hey greetings dear morning afternoon evening welcome thanks thank thx cheers
    sure certainly absolutely definitely course okay ok yes alright right great good excellent
    fantastic awesome perfect wonderful nice question questions asking ask asked glad happy
    pleased delighted help helps helped helpful helping assist assistance assisting hope hopefully
    let know feel free hesitate reach out further additional anything else more other need needs
    want like would love explain explaining clarify clarification details detail information info
    summary summarize summarise conclusion overview short brief briefly answer answers reply
    found find finding findings here following below above list steps step points point key
    options option things overview look looking see quick luck coding fun enjoy day best regards
    understand sorry apologize apologies unfortunately afraid note keep mind remember tip tips
    what how why which when where whether there here's that's it's i'm i've i'd i'll you're
    me you my your we our us i it this that these those some any please just also so well
    share provide provided context documents document sources source search results result
    retrieved passages passage excerpts given mention mentions mentioned say says said contain
    contains specify specifies cover covers address addresses available based could couldn
    able unable sure not no don doesn didn can't cannot isn t s ll ve d m re
    breakdown recap rundown walkthrough walk through guide go goes going take takes approach
    ways way things thing stuff matter matters topic topics case cases example examples
    follows happy certainly gladly indeed depends depend
    claro vale perfecto bien genial full complete reaching
    hola gracias espero ayude ayuda aqui esta lo que encontre saludos buena pregunta
    bonjour merci espere aide voici ce que j'ai trouve bonne question
    hallo danke hoffe hilft hier ist was ich gefunden habe gute frage gerne
    ciao grazie spero aiuti ecco
    olá ola obrigado espero ajude aqui esta
    привет спасибо надеюсь помогло вот что нашел
    """
)
# Phrases of scripts without spaces (and a few others) that mark a conversational sentence.
_CONVERSATIONAL_PHRASES = (
    "希望对你有帮助",
    "希望对您有帮助",
    "希望这对你有帮助",
    "希望这能帮到你",
    "你好",
    "您好",
    "谢谢",
    "以下是",
    "如果你还有其他问题",
    "如果您还有其他问题",
    "お役に立てれば",
    "こんにちは",
    "ありがとう",
    "以下は",
    "ご不明な点",
    "お気軽に",
    "안녕하세요",
    "도움이 되었으면",
    "도움이 되셨으면",
    "감사합니다",
    "สวัสดี",
    "ขอบคุณ",
    "หวังว่า",
    "آمل أن",
    "مرحبا",
    "شكرا",
    "आशा है",
    "नमस्ते",
    "धन्यवाद",
)
_SOURCE_REMARK = re.compile(
    r"\b(?:i|we)\s+(?:could\s*n[o']?t|could\s+not|can\s*n[o']?t|cannot|was\s+unable\s+to|"
    r"did\s*n[o']?t|do\s*n[o']?t)\s+(?:find|locate|see|determine)\b"
    r"|\b(?:the\s+)?(?:provided|given|available|retrieved|above)\s+"
    r"(?:documents?|sources?|context|information|passages?|excerpts?|results?)\s+"
    r"(?:do(?:es)?\s*n[o']?t|do(?:es)?\s+not)\s+(?:mention|say|specify|contain|cover|include|state)"
    r"|\bi\s+(?:do\s*n[o']?t|do\s+not)\s+(?:know|have\s+(?:information|details|data))\b",
    re.IGNORECASE,
)
_LEAD_IN_MAX_CONTENT = 6
# "Here's a summary of X", "Below are the steps": the answer presenting itself.
_PRESENTATION = re.compile(
    r"^\W*(?:(?:sure|certainly|of\s+course|absolutely|okay|ok|great\s+question|good\s+question)"
    r"\W+)?(?:here['’]?s|here\s+is|here\s+are|below\s+is|below\s+are|the\s+following\s+(?:is|are))"
    r"\s+(?:a|an|the|some|my|your)?\s*(?:quick\s+|brief\s+|short\s+|high-level\s+)?"
    r"(?:summary|overview|breakdown|rundown|recap|list|look|few|couple|example|examples|steps"
    r"|details|answer|explanation|comparison|key|main|what)\b",
    re.IGNORECASE,
)
# Openers of an offer or an invitation: what follows them is not a statement about the world.
_OFFER = re.compile(
    r"^\W*(?:let\s+me\s+know|feel\s+free|don['’]?t\s+hesitate|do\s+not\s+hesitate"
    r"|if\s+you\s+(?:have|need|want|would\s+like|['’]d\s+like)|would\s+you\s+like"
    r"|i\s+(?:can|could|would\s+be\s+happy\s+to|['’]d\s+be\s+happy\s+to)\s+(?:also\s+)?"
    r"(?:help|show|explain|walk|provide|share|write)|happy\s+to\s+help"
    r"|hope\s+(?:this|that|it)|happy\s+\w+ing|good\s+luck|enjoy|cheers"
    r"|i(?:\s+would|['’]d)\s+(?:also\s+)?(?:recommend|suggest|advise|retry|try|start|consider)"
    r"|i\s+(?:recommend|suggest|advise)"
    # a pointer to a professional: "Always check with your pharmacist if you're unsure."
    r"|(?:please\s+)?(?:always\s+)?(?:check|consult|talk|speak|confirm)\s+(?:with\s+|to\s+)?"
    r"(?:your|a|an)\s+(?:own\s+)?(?:doctor|physician|pharmacist|lawyer|attorney|accountant"
    r"|tax\s+(?:advisor|adviser|professional)|financial\s+(?:advisor|adviser)|advisor|adviser"
    r"|professional|healthcare\s+provider|vet|veterinarian|dentist|pediatrician|paediatrician"
    r"|gp|nurse|midwife|optician))\b"
    # a pointer to a link: "See https://... for the full schedule."
    r"|^\W*(?:see|visit|read|check|refer\s+to)\s+(?:[a-z][a-z0-9+.-]*://|www\.)",
    re.IGNORECASE,
)
# The same openers (wishes, hopes, "I'll tell you about X") in other languages.
_OFFER_ELSEWHERE = re.compile(
    r"^\W*(?:espero\s+que|ojal[aá]|j['’]esp[eè]re|ich\s+hoffe|spero\s+che|надеюсь|удачи"
    r"|желаю|آمل|أتمنى|نتمنى|מקווה|בהצלחה|उम्मीद\s+है|आशा\s+है|希望|祝|願わくは|お役に立て"
    r"|ご参考|참고로|도움이\s+되|더\s+궁금한|궁금한\s+점이|ご不明|сподіваюся|сподіваюсь"
    r"|chúc|hy\s+vọng|umarım|mi\s+auguro|spero|ik\s+hoop|mam\s+nadzieję|espero"
    r"|για\s+περισσότερες|ελπίζω|περισσότερες\s+λεπτομέρειες|gute\s+reise|viel\s+erfolg"
    r"|prenez\s+soin|bon\s+voyage|bonne\s+journée|buen\s+viaje|cuídate|take\s+care)"
    r"|(?:알려\s*드릴게요|알려\s*드리겠습니다|설명해\s*드릴게요|설명해\s*드리겠습니다"
    r"|소개해\s*드릴게요|정리해\s*드릴게요|ご紹介します|ご説明します|紹介します|説明します"
    r"|まとめました|为您介绍|给你介绍|介绍一下)\W*$",
    re.IGNORECASE,
)
_GREEK = re.compile("[\u0370-\u03ff\u1f00-\u1fff]")
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|www\.)", re.IGNORECASE)


def _only_conversational_phrases(text: str) -> bool:
    """Whether ``text`` holds a conversational phrase and no other word."""
    rest = text
    for phrase in _CONVERSATIONAL_PHRASES:
        rest = rest.replace(phrase, "")
    return rest != text and not any(ch.isalnum() for ch in rest)


def _content_words(features: TextFeatures) -> int:
    """Content tokens of ``features`` that are not conversational vocabulary (names count 2)."""
    count = 0
    for surface, kind in zip(features.surfaces, features.kinds, strict=True):
        if kind not in CONTENT_KINDS or kind == TokenKind.WEAK:
            continue
        if kind == TokenKind.IDENT and _URL.match(surface):
            continue  # a link points to content; "See <link> for more." states nothing
        if kind in (TokenKind.NUMBER, TokenKind.IDENT, TokenKind.MONTH):
            count += 2
        elif surface not in _CONVERSATIONAL:
            count += 1
    return count


def needs_grounding_check(text: str, kind: SegmentKind, features: TextFeatures) -> bool:
    """Whether the claim ``text`` (its analysis ``features``) states something to check."""
    stripped = text.strip().rstrip("*_ ")
    if kind in (SegmentKind.HEADING, SegmentKind.TABLE_HEADER, SegmentKind.CODE):
        return False
    if not any(kind in CONTENT_KINDS for kind in features.kinds):
        return False
    if stripped.endswith(("?", "？", "؟", "\u037e")) or (
        stripped.endswith(";") and _GREEK.search(stripped)  # ";" is the Greek question mark
    ):
        return False
    if _SOURCE_REMARK.search(text) or _OFFER.match(text) or _PRESENTATION.match(text):
        return False
    if _OFFER_ELSEWHERE.search(text):
        return False
    content = _content_words(features)
    if content == 0:
        return False
    if stripped.endswith((":", "：")) and content <= _LEAD_IN_MAX_CONTENT:
        return any(k[0] in "#@" for k in features.content)
    return not _only_conversational_phrases(text)
