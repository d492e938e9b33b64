"""Cloud Storage URIs read from a local folder: ``gs://BUCKET/PATH`` is ``{gcs_root}/BUCKET/PATH``.

The emulator has no Cloud Storage. ``grounding serve --gcs-root DIR`` (``EmulatorServer(gcs_root=
DIR)``) names the folder that stands for it; ``ImportDocuments``' ``gcs_source.input_uris``,
``PurgeDocuments``' ``gcs_source`` and ``Document.content.uri`` are read from there.

The rules are Google's where it documents them (``GcsSource.input_uris``: "Each URI can be up to
2000 characters long. URIs can match the full object path (for example,
gs://bucket/directory/object.json) or a pattern matching one or more files, such as
gs://bucket/directory/*.json"). A pattern is matched as ``pathlib`` globs it (``*`` within one
folder, ``**`` across folders), files only, in path order. What Google does not say, the emulator
chooses and ``docs/emulator.md`` states: a URI that matches no file is ``NOT_FOUND``; a URI that
would lead outside the folder (``..``, a symbolic link out of it) is ``INVALID_ARGUMENT``.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from grounding_emulator.errors import FailedPrecondition, InvalidArgument, NotFound, excerpt
from grounding_emulator.limits import MAX_GCS_URI

__all__ = ["GCS_SCHEME", "gcs_files", "gcs_path"]

GCS_SCHEME = "gs://"
_WILDCARDS = frozenset("*?[")


def _root(root: Path | None, uri: str, field: str) -> Path:
    if root is None:
        raise FailedPrecondition(
            f"{field} {excerpt(uri)}: the emulator reads Cloud Storage URIs from a local folder, "
            "and none was given: start it with --gcs-root DIR (EmulatorServer(gcs_root=DIR)), "
            "where gs://BUCKET/PATH is the file DIR/BUCKET/PATH"
        )
    return root.resolve()


def _parts(uri: str, field: str) -> tuple[str, str]:
    """``(bucket, object path)`` of a ``gs://`` URI, checked."""
    if len(uri) > MAX_GCS_URI:
        raise InvalidArgument(
            f"{field} has {len(uri)} characters; a Cloud Storage URI can be up to {MAX_GCS_URI} "
            "characters long (GcsSource.input_uris)",
            field=field,
        )
    bucket, _, path = uri[len(GCS_SCHEME) :].partition("/")
    if not uri.startswith(GCS_SCHEME) or not bucket or not path.strip("/"):
        raise InvalidArgument(
            f"{field} {excerpt(uri)} is not a Cloud Storage object URI: expected "
            "gs://BUCKET/PATH (a pattern such as gs://BUCKET/DIR/*.json matches several)",
            field=field,
        )
    return bucket, path


def _inside(root: Path, path: Path, uri: str, field: str) -> Path:
    resolved = path.resolve()
    if resolved != root and root not in resolved.parents:
        raise InvalidArgument(
            f"{field} {excerpt(uri)} leads outside the folder that stands for Cloud Storage "
            f"({root}): name an object inside it",
            field=field,
        )
    return resolved


def gcs_path(uri: str, root: Path | None, field: str) -> Path:
    """The local file of one ``gs://`` object (no pattern); ``NOT_FOUND`` when there is none."""
    folder = _root(root, uri, field)
    bucket, path = _parts(uri, field)
    local = _inside(folder, folder / bucket / path, uri, field)
    if not local.is_file():
        raise NotFound(f"{field} {excerpt(uri)}: no such object (looked for {local})")
    return local


def gcs_files(uri: str, root: Path | None, field: str, limit: int) -> list[Path]:
    """The local files a ``gs://`` URI or pattern names, in path order; ``NOT_FOUND`` when it
    names none, ``INVALID_ARGUMENT`` when it names more than ``limit`` (found without listing
    further)."""
    if not _WILDCARDS & set(uri):
        return [gcs_path(uri, root, field)]
    folder = _root(root, uri, field)
    bucket, pattern = _parts(uri, field)
    base = folder / bucket
    if any(part == ".." for part in pattern.split("/")):
        raise InvalidArgument(
            f"{field} {excerpt(uri)} leads outside the folder that stands for Cloud Storage "
            f"({folder}): name objects inside it",
            field=field,
        )
    matches = (p for p in base.glob(pattern) if p.is_file()) if base.is_dir() else iter(())
    found = list(itertools.islice(matches, limit + 1))
    if len(found) > limit:
        raise InvalidArgument(
            f"{field} {excerpt(uri)} matches more than {limit} files; a request can contain at "
            f"most {limit} (GcsSource.input_uris): split the import",
            field=field,
        )
    if not found:
        raise NotFound(f"{field} {excerpt(uri)}: no object matches (looked under {base})")
    return sorted(_inside(folder, p, uri, field) for p in found)
