"""Small GUI helpers shared by the pages: an in-place error/notice line, and page plumbing."""

from __future__ import annotations

import html
import logging
import os
import re
import tempfile
from collections.abc import Callable
from typing import Any

from ..errors import KinemorphError

_ADVICE = (  # the library's command-line advice, as the app's way to do the same
    (re.compile(r"\(start from `kinemorph calibrate[^`]*`\) ?"), ""),
    (
        re.compile(r"pass (?:one|it) (?:with )?\(?--mapping(?: FILE)?\)?"),
        "import one on the Setup page (Import mapping JSON)",
    ),
    (re.compile(r"pass a mapping \(--mapping FILE\)"), "import a mapping on the Setup page (Import mapping JSON)"),
    (re.compile(r"\(--mapping FILE\)"), "(Setup page: Import mapping JSON)"),
    (re.compile(r"pass --pose-model FILE\.task or set"), "the server needs"),
    (re.compile(r": pass --unit if that is wrong"), ""),
    (re.compile(r"\(?--robot PATH\.xml\)?"), "an uploaded model (Setup page)"),
)


def _private_roots() -> list[str]:
    """Folders of this server whose paths the browser should not see: the temporary folder
    (uploads, downloads), the sample and robot model roots."""
    roots = [tempfile.gettempdir()]
    roots += [os.environ[v] for v in ("KINEMORPH_DATA", "MENAGERIE_ROOT") if os.environ.get(v)]
    return [os.path.realpath(r) for r in roots] + roots


def public_text(text: str) -> str:
    """A message as the browser shows it: server paths cut to the file's own name (an upload's
    name, a sample's name), the library's command-line advice said the app's way."""
    for root in sorted(set(_private_roots()), key=len, reverse=True):
        text = re.sub(re.escape(root.rstrip("/")) + r"/(?:[^\s:'\"]*/)?", "", text)
    for pattern, replacement in _ADVICE:
        text = pattern.sub(replacement, text)
    return text


class Notice:
    """An HTML line under a group of widgets that shows an error (red) or a message (grey), in place."""

    def __init__(self, gui: Any) -> None:
        self.handle = gui.add_html("", visible=False)
        self.text = ""
        self.is_error = False

    def error(self, exc: BaseException | str) -> None:
        self._set(public_text(str(exc)), True)

    def info(self, text: str) -> None:
        self._set(public_text(text), False)

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


def guarded(notice: Notice, action: Callable[[], Any], *, clear: bool = True) -> Any:
    """Run a handler; whatever it raises is shown in the notice instead of escaping into the
    server's threads (where it would only reach the log): the message of an error a user can
    cause (KinemorphError, a library ValueError, an OSError), "out of memory" for MemoryError,
    and the type and message of anything else (a bug, whose traceback also goes to the log).
    A success clears the notice unless ``clear`` is False (redraws keep the last message)."""
    try:
        out = action()
    except (KinemorphError, ValueError, OSError) as exc:
        notice.error(exc)
        return None
    except MemoryError:
        notice.error("out of memory: the file or the request is too large for this server")
        return None
    except Exception as exc:  # shown in the page and logged, not swallowed
        logging.getLogger("kinemorph.app").exception("handler failed")
        notice.error(f"{type(exc).__name__}: {exc}")
        return None
    if clear:
        notice.clear()
    return out
