"""Small GUI helpers shared by the pages: an in-place error/notice line, and page plumbing."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from ..errors import KinemorphError


class Notice:
    """An HTML line under a group of widgets that shows an error (red) or a message (grey), in place."""

    def __init__(self, gui: Any) -> None:
        self.handle = gui.add_html("", visible=False)
        self.text = ""
        self.is_error = False

    def error(self, exc: BaseException | str) -> None:
        self._set(str(exc), True)

    def info(self, text: str) -> None:
        self._set(text, False)

    def clear(self) -> None:
        self.text, self.is_error = "", False
        self.handle.visible = False

    def _set(self, text: str, is_error: bool) -> None:
        self.text, self.is_error = text, is_error
        color = "#c92a2a" if is_error else "#555"
        prefix = "<b>Error:</b> " if is_error else ""
        self.handle.content = (
            f'<div style="color:{color};font-size:0.85em;padding:2px 4px;white-space:pre-wrap">'
            f"{prefix}{html.escape(text)}</div>"
        )
        self.handle.visible = True


def guarded(notice: Notice, action: Callable[[], Any]) -> Any:
    """Run a handler; an error a user can cause (KinemorphError, or a library ValueError from a bad
    value) is shown in the notice instead of escaping into the server's threads."""
    try:
        out = action()
    except (KinemorphError, ValueError, OSError) as exc:
        notice.error(exc)
        return None
    notice.clear()
    return out
