"""The numbered examples run (each has a main())."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from conftest import HAS_MENAGERIE

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("[0-9][0-9]_*.py"))


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.skipif(not HAS_MENAGERIE, reason="MENAGERIE_ROOT is not set (robot models)")
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out.strip()
