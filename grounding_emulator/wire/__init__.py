"""The wire: the gRPC server, the method table, one servicer per Google service, faults and
the mapping of engine errors to gRPC statuses. Nothing below this package knows gRPC."""
