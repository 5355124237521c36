"""uvicorn's WebSocket protocol, with a shutdown that tolerates a client already closing."""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState


class ClosingTolerantWebSockets(WebSocketsSansIOProtocol):
    """A tablet that leaves the page sends a close frame; uvicorn answers it and closes the
    transport, but over TLS the connection stays listed until the peer ends its TLS session.
    uvicorn 0.54's shutdown then sends a second close frame, which `websockets` refuses with
    `InvalidState`, and the exception kills the server's thread mid-shutdown. The close has
    already been exchanged, so closing the transport is all that is left to do."""

    def shutdown(self) -> None:
        try:
            super().shutdown()
        except InvalidState:
            self.transport.close()
