"""What the resource tests share: an emulator of their own (a folder data store ``kb``, served
in every project, and a folder standing for Cloud Storage), Google's clients on it, and makers of
data stores, engines and documents through those clients. The fixtures ``emulator_and_clients``
and ``clients`` (in this folder's conftest, where pytest finds them) start one a module."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator import CorpusStore, EmulatorServer
from tests.conftest import write_corpus
from tests.emulator.conftest import ONCE, versioned_client
from tests.pdf_files import pdf_file

PROJECT = "resource-project"
COLLECTION = f"projects/{PROJECT}/locations/global/collections/default_collection"
FOLDER_DATA_STORE = "kb"
Content = de.Document.Content


@dataclass
class Clients:
    """Google's clients of the resource services (and the searching ones) on one emulator."""

    data_stores: Any
    engines: Any
    documents: Any
    search: Any
    answers: Any
    sessions: Any

    def close(self) -> None:
        for client in vars(self).values():
            client.transport.close()


def clients_of(address: str) -> Clients:
    names = (
        "DataStoreServiceClient",
        "EngineServiceClient",
        "DocumentServiceClient",
        "SearchServiceClient",
        "ConversationalSearchServiceClient",
        "SessionServiceClient",
    )
    return Clients(*(versioned_client(de, name, address) for name in names))


def serve(tmp_path: Path, state_dir: Path | None = None) -> EmulatorServer:
    """An emulator (not started) with the folder data store ``kb``, BM25 only, and
    ``tmp_path/gcs`` standing for Cloud Storage."""
    corpus = write_corpus(
        tmp_path / "kb.jsonl",
        [{"id": "folder-doc", "title": "Folder", "content": "A document served from a folder."}],
    )
    store = CorpusStore(state_dir, semantic=False)
    store.ingest(FOLDER_DATA_STORE, corpus)
    (tmp_path / "gcs").mkdir(exist_ok=True)
    return EmulatorServer(store, gcs_root=tmp_path / "gcs")


def started(tmp_path: Path) -> Iterator[tuple[EmulatorServer, Clients]]:
    """A started ``serve`` and its clients, stopped and closed afterwards."""
    with serve(tmp_path) as server:
        made = clients_of(server.address)
        yield server, made
        made.close()


def unique(prefix: str) -> str:
    """An id of its own for one test (the module's emulator is shared)."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def data_store(
    clients: Clients,
    data_store_id: str,
    *,
    content_config: str = "CONTENT_REQUIRED",
    collection: str = COLLECTION,
) -> str:
    """Create a data store; its name (collection form)."""
    operation = clients.data_stores.create_data_store(
        parent=collection,
        data_store=de.DataStore(display_name=data_store_id, content_config=content_config),
        data_store_id=data_store_id,
        **ONCE,
    )
    made = operation.result(timeout=10)
    return str(made.name)


def branch(data_store_name: str) -> str:
    return f"{data_store_name}/branches/default_branch"


def create_document(
    clients: Clients, data_store_name: str, document_id: str, document: de.Document
) -> de.Document:
    """Create a document in the data store's default branch; the document made."""
    return clients.documents.create_document(
        parent=branch(data_store_name), document=document, document_id=document_id, **ONCE
    )


def engine(clients: Clients, engine_id: str, data_store_ids: list[str], **fields: Any) -> Any:
    """Start creating a search engine (unless ``fields`` say otherwise) over the data stores;
    its operation."""
    return clients.engines.create_engine(
        parent=COLLECTION,
        engine=de.Engine(
            display_name=fields.pop("display_name", "Test Engine"),
            solution_type=fields.pop("solution_type", de.SolutionType.SOLUTION_TYPE_SEARCH),
            data_store_ids=data_store_ids,
            **fields,
        ),
        engine_id=engine_id,
        **ONCE,
    )


def text(value: str, mime_type: str = "text/plain") -> de.Document:
    """A document of inline content."""
    return de.Document(content=Content(mime_type=mime_type, raw_bytes=value.encode("utf-8")))


def serving_config(parent: str) -> str:
    return f"{parent}/servingConfigs/default_search"


def search_ids(clients: Clients, parent: str, query: str) -> list[str]:
    """The ids of the documents a search finds (DOCUMENTS mode), best first."""
    request = de.SearchRequest(serving_config=serving_config(parent), query=query)
    response = clients.search.search(request=request, **ONCE)
    return [result.id for result in response.results]


def text_pdf(value: str) -> bytes:
    """A one-page PDF whose text is ``value`` (ASCII, no parentheses)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({value}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    return pdf_file(objects)
