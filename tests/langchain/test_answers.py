"""DiscoveryEngineAnswer and DeveloperKnowledgeAnswer against the emulator."""

import pytest
from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory
from pydantic import ValidationError

from grounding_core import (
    AnswerSpec,
    ConfigurationError,
    DataStoreSpec,
    InputError,
    NotFoundError,
    answer_markdown,
)
from langchain_grounding import (
    DeveloperKnowledgeAnswer,
    DeveloperKnowledgeRetriever,
    DiscoveryEngineAnswer,
    QuestionCondenser,
)

from .conftest import core_error

PROJECT = "test-project"


def check_citations(out):
    answer = out["answer"]
    assert out["citations"]
    for citation in out["citations"]:
        assert answer[citation["start"] : citation["end"]] == citation["text"]
        assert (
            answer.encode()[citation["byte_start"] : citation["byte_end"]].decode()
            == (citation["text"])
        )
        assert citation["reference_indices"]
        for index in citation["reference_indices"]:
            assert isinstance(out["documents"][index], Document)
        ids = [out["documents"][i].id for i in citation["reference_indices"]]
        assert citation["source_ids"] == ids
    record = out["grounded_answer"]
    assert record.answer_text == answer
    assert [d.id for d in out["documents"]] == [r.name for r in record.references]
    assert out["grounding_score"] == record.grounding_score
    assert out["skipped_reasons"] == list(record.skipped_reasons) == []


def test_discovery_engine_answer(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, engine_id="python-docs-app", emulator_host=emulator.address
    )
    out = answerer.invoke("What does the with statement do?")
    assert out["query"] == "What does the with statement do?"
    assert "with" in out["answer"]
    check_citations(out)
    assert all(
        d.metadata["source"].startswith("https://docs.python.org/") for d in out["documents"]
    )
    record = out["grounded_answer"]
    # Only with include_grounding_supports (Google's GroundingSpec field doc).
    assert (record.grounding_score, out["grounding_supports"]) == (None, [])
    assert out["state"] == "SUCCEEDED"
    assert "**Sources**" in answer_markdown(record)


def test_grounding_supports_on_request(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        include_grounding_supports=True,
        filter="rank = 3",
    )
    out = answerer.invoke("lighthouse keeper logbook")
    check_citations(out)
    assert out["grounding_supports"]
    for support in out["grounding_supports"]:
        assert out["answer"][support["start"] : support["end"]] == support["text"]
        assert support["source_ids"] == [
            out["documents"][i].id for i in support["reference_indices"]
        ]
        assert 0.0 <= support["score"] <= 1.0


def test_discovery_engine_answer_non_ascii(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    out = answerer.invoke({"question": "東京都は日本の首都ですか"})
    assert "東京" in out["answer"]
    check_citations(out)


async def test_discovery_engine_answer_async_in_a_chain(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, engine_id="test-app", emulator_host=emulator.address
    )
    chain = RunnableLambda(lambda q: {"query": q}) | answerer
    out = await chain.ainvoke("Which keeper has number 245?")
    assert "245" in out["answer"]
    check_citations(out)


def test_no_answer_found(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )
    out = answerer.invoke("zeppelin quasar xylophone")
    assert out["grounded_answer"].skipped
    assert out["skipped_reasons"] == list(out["grounded_answer"].skipped_reasons)
    assert out["skipped_reasons"]
    assert out["citations"] == []
    assert out["documents"] == []


def test_developer_knowledge_answer(emulator):
    out = DeveloperKnowledgeAnswer(emulator_host=emulator.address).invoke(
        "How does a for loop iterate over a sequence?"
    )
    check_citations(out)
    assert out["documents"][0].id.startswith("documents/docs.python.org/")


async def test_developer_knowledge_answer_async(emulator):
    out = await DeveloperKnowledgeAnswer(emulator_host=emulator.address).ainvoke(
        {"input": "What is a lambda expression?"}
    )
    check_citations(out)


@pytest.mark.parametrize("value", [42, {"nothing": "here"}, None])
def test_bad_queries(emulator, value):
    with pytest.raises(InputError, match="expected the query") as info:
        DeveloperKnowledgeAnswer(emulator_host=emulator.address).invoke(value)
    assert info.value.field == "query"


FIRST = "What does the with statement do?"
FOLLOW_UP = "and how does it handle exceptions?"
KNOWLEDGE_FIRST = "What does the yield statement do?"
KNOWLEDGE_FOLLOW_UP = "and how does it differ from return?"
CONDENSED = f"{KNOWLEDGE_FIRST} {KNOWLEDGE_FOLLOW_UP}"


def test_a_two_turn_conversation_in_a_session(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, engine_id="python-docs-app", emulator_host=emulator.address
    )
    first = answerer.invoke({"query": FIRST, "session": "-"})
    parent = answerer.target.parent_path
    assert first["session"].startswith(f"{parent}/sessions/")
    assert first["answer_name"].startswith(f"{first['session']}/answers/")
    second = answerer.invoke({"query": FOLLOW_UP, "session": first["session"]})
    assert second["session"] == first["session"]
    assert [t.query for t in second["grounded_answer"].turns] == [FIRST, FOLLOW_UP]
    check_citations(second)
    alone = answerer.invoke(FOLLOW_UP)
    assert (alone["session"], alone["grounded_answer"].turns) == ("", ())
    assert second["answer"] != alone["answer"]


async def test_a_two_turn_conversation_async_and_the_session_field(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT,
        engine_id="python-docs-app",
        emulator_host=emulator.address,
        session="-",  # every call without a session of its own starts one
    )
    first = await answerer.ainvoke(FIRST)
    again = await answerer.ainvoke(FIRST)
    assert first["session"] != again["session"]
    second = await answerer.ainvoke({"query": FOLLOW_UP, "session": first["session"]})
    assert second["session"] == first["session"]
    assert [t.query for t in second["grounded_answer"].turns] == [FIRST, FOLLOW_UP]


def test_session_errors(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, engine_id="python-docs-app", emulator_host=emulator.address
    )
    name = f"{answerer.target.parent_path}/sessions/404"
    with pytest.raises(NotFoundError, match=rf"\(session {name}\) failed: NOT_FOUND"):
        answerer.invoke({"query": FIRST, "session": "404"})
    with pytest.raises(ConfigurationError, match="is not a session of"):
        answerer.invoke(
            {"query": FIRST, "session": "projects/p/locations/global/dataStores/d/sessions/1"}
        )
    with pytest.raises(InputError, match="keeps the conversation in its session") as info:
        answerer.invoke({"query": FIRST, "chat_history": [("human", "hi")]})
    assert info.value.field == "chat_history"
    with pytest.raises(InputError, match="has no sessions") as info:
        DeveloperKnowledgeAnswer(emulator_host=emulator.address).invoke(
            {"query": FIRST, "session": "-"}
        )
    assert info.value.field == "session"


def test_every_answer_option_is_a_field_with_the_core_default(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT,
        engine_id="python-docs-app",
        emulator_host=emulator.address,
        data_store_specs=[{"data_store": "python-docs", "filter": 'topic: ANY("with")'}],
        max_rephrase_steps=2,
        query_classification_types=["adversarial_query"],
        filtering_level="low",
        safety_filtering=True,
        user_pseudo_id="visitor-1",
        search_mode=None,
    )
    assert answerer.answering.spec == AnswerSpec(
        data_store_specs=(DataStoreSpec("python-docs", filter='topic: ANY("with")'),),
        max_rephrase_steps=2,
        query_classification_types=("adversarial_query",),
        filtering_level="low",
        safety_filtering=True,
        user_pseudo_id="visitor-1",
        search_mode=None,
    )
    defaults = DiscoveryEngineAnswer(project_id=PROJECT, engine_id="e", emulator_host="h:1")
    assert defaults.answering.spec == AnswerSpec()
    assert set(AnswerSpec.__dataclass_fields__) <= set(DiscoveryEngineAnswer.model_fields)
    out = answerer.invoke(FIRST)
    # No mode sent: Google's default, documents, whose references are whole documents.
    assert [d.id for d in out["documents"]] == [
        f"projects/{PROJECT}/locations/global/collections/default_collection/dataStores/"
        "python-docs/branches/default_branch/documents/with"
    ]
    document = out["documents"][0]
    assert document.metadata["uri"].endswith("compound_stmts.html#with")
    assert document.metadata["struct_data"]["topic"] == "with"
    assert 'The "with" statement' in document.page_content
    with pytest.raises(ValidationError) as info:
        DiscoveryEngineAnswer(project_id=PROJECT, engine_id="e", max_rephrase_steps=6)
    error = core_error(info.value)
    assert (type(error), error.field, error.limit) == (InputError, "max_rephrase_steps", 5)


def test_developer_knowledge_follow_ups_are_condensed(emulator):
    answerer = DeveloperKnowledgeAnswer(emulator_host=emulator.address)
    history = [("human", KNOWLEDGE_FIRST), ("ai", "It makes a generator.")]
    out = answerer.invoke({"query": KNOWLEDGE_FOLLOW_UP, "chat_history": history})
    assert out["query"] == CONDENSED
    check_citations(out)
    assert out["answer"] == answerer.invoke(CONDENSED)["answer"]
    alone = answerer.invoke(KNOWLEDGE_FOLLOW_UP)
    assert alone["query"] == KNOWLEDGE_FOLLOW_UP
    assert alone["answer"] != out["answer"]


# RunnableWithMessageHistory (deprecated in langchain-core 1.3.3) and the chat message histories
# it needs (deprecated in 1.6.4, no replacement in langchain-core: LangGraph's persistence is
# another API) are what this test checks our answerer under, as docs/langchain.md shows.
@pytest.mark.filterwarnings("ignore:RunnableWithMessageHistory is deprecated")
@pytest.mark.filterwarnings("ignore:The class `InMemoryChatMessageHistory` was deprecated")
async def test_developer_knowledge_with_message_history_and_an_llm(emulator):
    prompts = []

    def llm(prompt):
        prompts.append(prompt.to_string())
        return AIMessage(content=" What is the difference between yield and return? ")

    condenser = QuestionCondenser(llm=RunnableLambda(llm))
    answerer = DeveloperKnowledgeAnswer(emulator_host=emulator.address, condenser=condenser)
    store = InMemoryChatMessageHistory()
    chat = RunnableWithMessageHistory(
        answerer,
        lambda session_id: store,
        input_messages_key="query",
        history_messages_key="chat_history",
        output_messages_key="answer",
    )
    config = {"configurable": {"session_id": "s1"}}
    first = await chat.ainvoke({"query": KNOWLEDGE_FIRST}, config=config)
    assert first["query"] == KNOWLEDGE_FIRST
    assert prompts == []
    second = await chat.ainvoke({"query": KNOWLEDGE_FOLLOW_UP}, config=config)
    assert second["query"] == "What is the difference between yield and return?"
    assert f"human: {KNOWLEDGE_FIRST}\nai: {first['answer']}" in prompts[0]
    assert prompts[0].rstrip().endswith(f"{KNOWLEDGE_FOLLOW_UP}\n\n<Standalone question>")
    assert [m.type for m in store.messages] == ["human", "ai", "human", "ai"]


def test_a_condensed_question_feeds_a_retriever(emulator):
    retriever = QuestionCondenser(max_questions=1) | DeveloperKnowledgeRetriever(
        emulator_host=emulator.address
    )
    history = [("human", "What is a lambda?"), ("human", KNOWLEDGE_FIRST)]
    documents = retriever.invoke({"question": KNOWLEDGE_FOLLOW_UP, "chat_history": history})
    direct = DeveloperKnowledgeRetriever(emulator_host=emulator.address).invoke(CONDENSED)
    assert [d.id for d in documents] == [d.id for d in direct]
    assert QuestionCondenser().invoke("no history") == "no history"
    with pytest.raises(InputError, match="must be a list of messages") as info:
        QuestionCondenser().invoke({"query": "q", "chat_history": "earlier"})
    assert info.value.field == "chat_history"
