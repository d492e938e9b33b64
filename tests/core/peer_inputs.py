"""What the peer-argument tests of the core and of both frameworks share: a service account key
file (for ``credentials_path``), its account's email, and Google's spell correction modes."""

from __future__ import annotations

import json
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
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
