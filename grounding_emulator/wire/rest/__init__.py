"""The REST transport: the method table served as HTTP/JSON, beside gRPC, as Google serves it.

Google's APIs answer REST at the paths of their protos' ``google.api.http`` rules, in the JSON
mapping of proto3 (camelCase names), with errors as ``{"error": {"code", "message",
"status"}}`` ("HTTP/JSON transcoding"; ``google/api/http.proto``; "API design guide: Errors").
So does the emulator, for Google's clients built with ``transport="rest"`` and for plain HTTP:

- ``routes.py``: each method's HTTP rules, read from Google's own packages, and the path
  templates matched against a request's path;
- ``transcoding.py``: a request's path, query and JSON body into the method's request
  message, its response (or stream) into JSON, an error into Google's error JSON;
- ``gateway.py``: one HTTP call, through the same ``serve_call`` (sizes, faults, servicers,
  errors) and the same drain gate as gRPC (``handlers.py``);
- ``server.py``: the HTTP server (aiohttp) that the ``EmulatorServer`` starts and stops with
  its gRPC server.
"""
