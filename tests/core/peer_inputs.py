"""What the peer-argument tests of the core and of both frameworks share: a service account key
file (for ``credentials_path``), its account's email, Google's spell correction modes, and a
structured data store like llama_index #21933's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as de

SPELL = de.SearchRequest.SpellCorrectionSpec.Mode
EMAIL = "peer-test@test-project.iam.gserviceaccount.com"


def service_account_file(path: Path) -> Path:
    """A service account key file (a fresh RSA key), as ``gcloud iam service-accounts keys
    create`` writes one."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    info = {
        "type": "service_account",
        "project_id": "test-project",
        "private_key_id": "0123456789abcdef",
        "private_key": pem,
        "client_email": EMAIL,
        "client_id": "1234567890",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    path.write_text(json.dumps(info), encoding="utf-8")
    return path


STRUCTURED = "structured-docs"
# The structured documents of llama_index #21933's test, and one more.
STRUCTURED_DOCUMENTS = {
    "li-meta-gamma": {"case_id": "RUN", "title": "Gamma", "expected_doc_id": "li-meta-gamma"},
    "li-meta-delta": {"case_id": "WALK", "title": "Delta", "expected_doc_id": "li-meta-delta"},
}


def add_structured_data_store(address: str, project: str) -> None:
    """``STRUCTURED`` in ``project`` on the emulator at ``address``: a data store without
    content and the struct-data documents of ``STRUCTURED_DOCUMENTS``, made through Google's
    resource clients as on Google Cloud."""

    def client(cls: type) -> Any:
        channel = grpc.insecure_channel(address)
        transport = cls.get_transport_class("grpc")(  # type: ignore[attr-defined]
            channel=channel, credentials=AnonymousCredentials()
        )
        return cls(transport=transport)

    data_stores, documents = client(de.DataStoreServiceClient), client(de.DocumentServiceClient)
    made = data_stores.create_data_store(
        parent=f"projects/{project}/locations/global/collections/default_collection",
        data_store=de.DataStore(display_name=STRUCTURED, content_config="NO_CONTENT"),
        data_store_id=STRUCTURED,
    ).result(timeout=30)
    for document_id, struct_data in STRUCTURED_DOCUMENTS.items():
        documents.create_document(
            parent=f"{made.name}/branches/default_branch",
            document=de.Document(struct_data=struct_data),
            document_id=document_id,
        )
    data_stores.transport.close()
    documents.transport.close()
