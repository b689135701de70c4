"""Help text without reStructuredText markup: the subcommands' descriptions are their module
docstrings, written for the API docs (````code````, ``:func:`name```, ``*emphasis*``)."""

from __future__ import annotations

import re

_ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|obj|exc|ref|doc):`~?([^`<]+?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``")
_LINK = re.compile(r"`([^`<]+?)\s*<[^>]+>`_+")
_EMPH = re.compile(r"(?<![\w*])\*\*?([^*\n]+?)\*\*?(?![\w*])")


def plain(text: str | None) -> str | None:
    """``text`` with RST roles, literals, links and emphasis reduced to their words; a line
    ending in ``::`` (a literal block follows) ends in ``:``."""
    if not text:
        return text
    out = _ROLE.sub(r"\1", text)
    out = _LINK.sub(r"\1", out)
    out = _LITERAL.sub(r"\1", out)
    out = _EMPH.sub(r"\1", out)
    return re.sub(r"::$", ":", out, flags=re.MULTILINE)


def plain_help(sub: object) -> None:
    """Apply :func:`plain` to the description and the option help of every parser under an
    argparse subparsers object (option help comes from config docstrings too)."""
    for parser in getattr(sub, "choices", {}).values():
        parser.description = plain(parser.description)
        for action in parser._actions:
            if isinstance(action.help, str):
                action.help = plain(action.help)
