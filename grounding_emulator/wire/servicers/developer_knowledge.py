"""``google.developers.knowledge.v1.DeveloperKnowledge``: SearchDocumentChunks, GetDocument,
BatchGetDocuments, AnswerQuery, over one data store."""

from __future__ import annotations

from typing import Any

from google.developer_knowledge_v1 import types as dk

from grounding_emulator.answer.engine import AnswerParams, generate_answer
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.errors import InvalidArgument, NotFound, excerpt
from grounding_emulator.limits import (
    DEFAULT_DEVELOPER_KNOWLEDGE_PAGE_SIZE,
    MAX_BATCH_DOCUMENTS,
    MAX_DEVELOPER_KNOWLEDGE_TEXT,
)
from grounding_emulator.search.engine import SearchParams, search
from grounding_emulator.wire.messages import (
    developer_answer_response,
    developer_batch_response,
    developer_document,
    developer_search_response,
)
from grounding_emulator.wire.names import check_document_name
from grounding_emulator.wire.servicers.registry import Servicer, rpc

__all__ = ["DEVELOPER_KNOWLEDGE_SERVICE", "DeveloperKnowledgeServicer"]

DEVELOPER_KNOWLEDGE_SERVICE = "google.developers.knowledge.v1.DeveloperKnowledge"

_VIEW_NAMES = {
    dk.DocumentView.DOCUMENT_VIEW_UNSPECIFIED: "CONTENT",
    dk.DocumentView.DOCUMENT_VIEW_BASIC: "BASIC",
    dk.DocumentView.DOCUMENT_VIEW_FULL: "FULL",
    dk.DocumentView.DOCUMENT_VIEW_CONTENT: "CONTENT",
}


def _developer_text(value: str, field: str, *, required: bool) -> str:
    if required and not value.strip():
        raise InvalidArgument(f"{field} is required", field=field)
    if len(value) > MAX_DEVELOPER_KNOWLEDGE_TEXT:
        raise InvalidArgument(
            f"{field} has {len(value)} characters; at most {MAX_DEVELOPER_KNOWLEDGE_TEXT} are "
            "allowed",
            field=field,
        )
    return value


class DeveloperKnowledgeServicer(Servicer):
    """``google.developers.knowledge.v1.DeveloperKnowledge`` over the backend's
    ``developer_knowledge_data_store``."""

    services = (DEVELOPER_KNOWLEDGE_SERVICE,)

    def _data_store(self) -> DataStore:
        return self.backend.store.get(self.backend.developer_knowledge_data_store)

    def _document(self, data_store: DataStore, name: str, field: str) -> Any:
        document = data_store.document_by_name(check_document_name(name, field))
        if document is None:
            raise NotFound(f"document {excerpt(name)} not found")
        return document

    @rpc("SearchDocumentChunks", dk.SearchDocumentChunksRequest.pb())
    def search_document_chunks(self, request: Any) -> Any:
        """``SearchDocumentChunks``."""
        page = search(
            self._data_store(),
            SearchParams(
                query=_developer_text(request.query, "query", required=True),
                page_size=request.page_size,
                page_token=request.page_token,
                filter=_developer_text(request.filter, "filter", required=False),
                mode="chunks",
                dialect="developer_knowledge",
                default_page_size=DEFAULT_DEVELOPER_KNOWLEDGE_PAGE_SIZE,
                scope=self.backend.developer_knowledge_data_store,
            ),
        )
        return developer_search_response(page)

    @rpc("GetDocument", dk.GetDocumentRequest.pb())
    def get_document(self, request: Any) -> Any:
        """``GetDocument`` (default view: CONTENT)."""
        document = self._document(self._data_store(), request.name, "name")
        return developer_document(document, _VIEW_NAMES.get(request.view, "CONTENT"))

    @rpc("BatchGetDocuments", dk.BatchGetDocumentsRequest.pb())
    def batch_get_documents(self, request: Any) -> Any:
        """``BatchGetDocuments``: at most 20, in request order."""
        names = list(request.names)
        if not names:
            raise InvalidArgument("names is required: give 1 to 20 document names", field="names")
        if len(names) > MAX_BATCH_DOCUMENTS:
            raise InvalidArgument(
                f"names has {len(names)} entries; at most {MAX_BATCH_DOCUMENTS} are allowed",
                field="names",
            )
        data_store = self._data_store()
        documents = [
            self._document(data_store, name, f"names[{i}]") for i, name in enumerate(names)
        ]
        return developer_batch_response(documents, _VIEW_NAMES.get(request.view, "CONTENT"))

    @rpc("AnswerQuery", dk.AnswerQueryRequest.pb())
    def answer_query(self, request: Any) -> Any:
        """``AnswerQuery``: an extractive answer. When nothing relevant is found: an empty
        ``answer_text``, no citations, no references. Google's ``Answer`` has only those three
        fields (no state, no skip reason: ``google.developers.knowledge.v1.Answer``) and its
        docs do not say what a declined answer looks like; empty is the least surprising."""
        answer = generate_answer(
            self._data_store(),
            AnswerParams(
                query=_developer_text(request.query, "query", required=True),
                filter=_developer_text(request.filter, "filter", required=False),
                dialect="developer_knowledge",
                query_field="query",
                filter_field="filter",
            ),
            self.backend.judge,
        )
        return developer_answer_response(answer)
