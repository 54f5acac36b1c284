"""The connection rules a server keeps (`Rules`), and the names of what its connections put in a request's scope
for the app: the socket's transport, when the request was whole, and the message type of a whole answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

TRANSPORT: Final = "emulator.transport"  # in the scope's extensions: the connection's transport, for faults below HTTP
# In the scope's extensions, True, once the client half-closes, sending nothing more. Its answer still
# goes out, but nothing tells a client that only stopped sending from one that left: what waits on the client (a
# pause, a stall) waits no longer, and a write to one that left ends the connection.
ENDED: Final = "emulator.ended"
ARRIVED: Final = "emulator.arrived"  # in the scope's extensions: when the whole request was in (`time.perf_counter`)
# In the scope's extensions where the server takes it: a message of this type is a whole answer, its status, headers
# (a content-length among them) and body, which goes out in one write where a start and a body message take two.
WHOLE: Final = "emulator.whole"


# Descriptors a server needs beside its connections: its files, the listening socket, the watcher's, Redis's, the
# recorder's connections upstream.
SPARE_DESCRIPTORS = 64


@dataclass(frozen=True)
class Rules:
    request_timeout: float = 10.0  # seconds to receive a whole request
    keep_alive: float = 5.0  # seconds an idle keep-alive connection stays open
    max_connections: int = 2048  # open at once; comfortably above 1,000 paced streams
    shutdown_grace: float = 5.0  # seconds running answers get at shutdown
    write_timeout: float = 30.0  # seconds a peer may leave written bytes unread before its connection is dropped
