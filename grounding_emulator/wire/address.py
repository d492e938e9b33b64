"""Where the emulator listens: its default host and port (``grounding serve`` listens there),
which hosts count as this machine only (``is_loopback``), and whether an address can be bound
now (``check_free``). Standard library only: the ``grounding`` command reads the defaults without
loading the server.

>>> f"{DEFAULT_HOST}:{DEFAULT_PORT}"
'127.0.0.1:8123'
"""

from __future__ import annotations

import errno
import ipaddress
import socket

from grounding_emulator.errors import ListenError

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "MAX_PORT", "check_free", "check_port", "is_loopback"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8123
# A TCP port is 16 bits; larger numbers must not wrap around (83736 would be 18200).
MAX_PORT = 65535


def check_port(value: object, name: str) -> int:
    """``value`` when it is a port, an ``int`` from 0 (any free one) to 65535; else a
    ``ValueError`` naming ``name``.

    >>> check_port(83736, "port")
    Traceback (most recent call last):
    ...
    ValueError: port must be a port number from 0 (any free port) to 65535, got 83736
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PORT:
        raise ValueError(
            f"{name} must be a port number from 0 (any free port) to {MAX_PORT}, got {value!r}"
        )
    return value


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, ``127.0.0.0/8``, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_free(host: str, port: int, *, transport: str = "") -> None:
    """Raise ``ListenError`` unless ``host:port`` can be bound now (port 0 always can); the
    message names ``transport`` after the address when given (``127.0.0.1:8124 (REST)``).

    Checked with a plain socket first because gRPC reports a failed bind only as a bare
    ``RuntimeError`` after logging it from C to stderr; ``SO_REUSEADDR`` as gRPC sets it, so
    that a port left in TIME_WAIT by a stopped emulator counts as free, as it is for gRPC.
    """
    if port == 0:
        return
    address = f"{host}:{port}" + (f" ({transport})" if transport else "")
    try:
        resolved = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as exc:
        raise ListenError(f"cannot listen on {address}: unknown host ({exc})") from exc
    for family, kind, protocol, _, where in resolved:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(where)
            except OSError as exc:
                reason = (
                    "the address is already in use"
                    if exc.errno == errno.EADDRINUSE
                    else exc.strerror or str(exc)
                )
                raise ListenError(f"cannot listen on {address}: {reason}") from exc
