"""``grounding serve --gcs-root DIR``: the folder that stands for Cloud Storage, through the
command line, and the resources a served emulator keeps in its state dir."""

from __future__ import annotations

from google.cloud import discoveryengine_v1 as de

from grounding_core.cli import main
from tests.emulator.conftest import ONCE
from tests.emulator.google_resources import branch, clients_of, data_store, search_ids
from tests.emulator.test_cli import serving


def test_serve_reads_gs_uris_from_the_gcs_root_and_keeps_resources_in_the_state_dir(tmp_path):
    gcs = tmp_path / "gcs"
    (gcs / "bucket").mkdir(parents=True)
    (gcs / "bucket" / "notes.txt").write_text("Gannets dive from thirty metres.", encoding="utf-8")
    state = tmp_path / "state"
    arguments = ("--no-builtin", "--state-dir", str(state), "--gcs-root", str(gcs))
    with serving(*arguments) as (address, _):
        clients = clients_of(address)
        name = data_store(clients, "notes")
        request = de.ImportDocumentsRequest(
            parent=branch(name),
            gcs_source=de.GcsSource(input_uris=["gs://bucket/*.txt"], data_schema="content"),
        )
        operation = clients.documents.import_documents(request=request, **ONCE)
        assert de.ImportDocumentsMetadata(operation.metadata).success_count == 1
        assert len(search_ids(clients, name, "gannets")) == 1
        clients.close()
    kept = state / "resources" / name
    assert (kept / "data_store.json").is_file()
    assert len(list((kept / "documents").glob("*.json"))) == 1


def test_serve_refuses_a_gcs_root_that_is_not_a_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    missing = tmp_path / "nowhere"
    assert main(["serve", "--no-builtin", "--no-state", "--gcs-root", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --gcs-root {missing}: no such file or directory\n"
