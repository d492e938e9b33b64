"""The wire: the gRPC server, one servicer per Google service (``servicers/``, each registering
itself; the method table is built from the registry), faults, and the mapping of engine errors
to gRPC statuses (``handlers.py``). Nothing below this package knows gRPC."""
