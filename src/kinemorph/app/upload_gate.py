"""The upload size limit, enforced on the bytes as they arrive (whatever size the client declares).

viser buffers an upload's parts in memory until all have arrived and has no public hook to limit
that; its part handler trusts the part count and the size the client declares. The gate is
registered on viser's websocket interface *before* viser's own part handler, counts the bytes of
each transfer (and of each client's transfers in flight together), and at the limit drops the
transfer's buffered parts and closes that client's connection. An upload whose declared size is
already over the limit is dropped at its start (its parts are then ignored). Each refusal is
reported to the page whose upload button it was (``watch``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CLOSE_TOO_BIG = 1009
"""WebSocket close code: message too big."""


@dataclass(frozen=True)
class Refusal:
    """A refused upload: its file name, the bytes seen (or declared) and why."""

    filename: str
    size_bytes: int
    reason: str


class UploadGate:
    """Counts upload bytes per transfer and per client; cuts a transfer (and its client's
    connection) at ``max_bytes``."""

    def __init__(self, server: Any, max_bytes: int) -> None:
        self.server = server
        self.max_bytes = int(max_bytes)
        self.refused: list[Refusal] = []
        self._gui = server.gui
        self._seen: dict[str, int] = {}  # transfer uuid -> bytes received
        self._owner: dict[str, Any] = {}  # transfer uuid -> client id
        self._watchers: dict[str, Callable[[str], None]] = {}
        self._lock = threading.Lock()

    def install(self) -> UploadGate:
        from viser import _messages

        ws = self._gui._websock_interface
        ws.register_handler(_messages.FileTransferStartUpload, self._on_start)  # after viser's: its state exists
        handlers = ws._incoming_handlers.setdefault(_messages.FileTransferPart, [])
        handlers.insert(0, self._on_part)  # before viser's: nothing is buffered past the limit
        return self

    def watch(self, button: Any, report: Callable[[str], None]) -> None:
        """Call ``report(message)`` when an upload of ``button`` is refused."""
        self._watchers[button._impl.uuid] = report

    def text(self, filename: str, size: int) -> str:
        return (
            f"{filename}: {size / 1e6:.1f} MB or more is over the upload limit of {self.max_bytes / 1e6:.0f} MB; "
            "the upload was stopped"
        )

    # -- handlers (called on viser's event loop) --------------------------------------------------------
    def _on_start(self, client_id: Any, message: Any) -> None:
        states = self._gui._current_file_upload_states
        with self._lock:
            for uuid in [u for u in self._seen if u not in states]:  # finished or dropped transfers
                self._seen.pop(uuid, None)
                self._owner.pop(uuid, None)
            if message.transfer_uuid not in states:
                return
            if message.size_bytes > self.max_bytes or message.size_bytes < 0:
                states.pop(message.transfer_uuid, None)
                self._refuse(message.filename, message.size_bytes, "declared size", message.source_component_uuid)
                return
            self._seen[message.transfer_uuid] = 0
            self._owner[message.transfer_uuid] = client_id

    async def _on_part(self, client_id: Any, message: Any) -> None:
        states = self._gui._current_file_upload_states
        state = states.get(message.transfer_uuid)
        if state is None:
            return
        with self._lock:
            seen = self._seen.get(message.transfer_uuid, 0) + len(message.content)
            self._seen[message.transfer_uuid] = seen
            in_flight = sum(n for u, n in self._seen.items() if self._owner.get(u) == client_id and u in states)
            over = seen > min(self.max_bytes, int(state["total_bytes"])) or in_flight > self.max_bytes
            if over:
                states.pop(message.transfer_uuid, None)
                state["parts"].clear()  # the buffers go now, not when the connection's objects do
                self._seen.pop(message.transfer_uuid, None)
                self._owner.pop(message.transfer_uuid, None)
        if not over:
            return
        self._refuse(state["filename"], max(seen, in_flight), "bytes received", message.source_component_uuid)
        conn = self.server._websock_server._live_connections.get(client_id)
        if conn is not None:
            await conn.close(CLOSE_TOO_BIG, "upload over the size limit")

    def _refuse(self, filename: str, size: int, reason: str, component: Any) -> None:
        self.refused.append(Refusal(filename, int(size), reason))
        report = self._watchers.get(str(component))
        if report is not None:
            report(self.text(filename, size))


__all__ = ["CLOSE_TOO_BIG", "Refusal", "UploadGate"]
