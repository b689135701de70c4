"""The layout rules of docs/ARCHITECTURE.md: what each library part may import, and module size."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "kinemorph"
MAX_LINES = 400


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _part(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(path: Path) -> set[str]:
    """Absolute kinemorph module names (and top-level packages) a module imports, anywhere in it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    package = list(rel.parts[:-1])  # a module's package (for __init__: the package itself)
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


def _parts_imported(path: Path) -> set[str]:
    return {m.split(".")[1] for m in _imports(path) if m.startswith("kinemorph.") and len(m.split(".")) > 1}


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_is_at_most_400_lines(path: Path) -> None:
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(PACKAGE)} has {n} lines; split it along its concepts"


def test_no_library_part_imports_the_cli_or_argparse() -> None:
    bad = []
    for path in _modules():
        if _part(path) == "cli":
            continue
        mods = _imports(path)
        if "argparse" in mods or any(m == "kinemorph.cli" or m.startswith("kinemorph.cli.") for m in mods):
            bad.append(str(path.relative_to(PACKAGE)))
    assert not bad, f"library modules importing the CLI or argparse: {bad}"


FORBIDDEN = {
    "motion": {"robots", "retarget", "mapping", "io", "pipeline", "batch", "app"},
    "optim": {"motion", "io", "retarget", "mapping", "pipeline", "batch", "app"},
    "sim": {"retarget", "io", "pipeline", "batch", "app"},
    "quality": {"retarget", "io", "pipeline", "batch", "app"},
    "robots": {"retarget", "pipeline", "batch", "app"},
}


@pytest.mark.parametrize("part", sorted(FORBIDDEN))
def test_parts_import_only_what_the_architecture_allows(part: str) -> None:
    bad = []
    for path in _modules():
        if _part(path) != part:
            continue
        wrong = _parts_imported(path) & FORBIDDEN[part]
        if wrong:
            bad.append(f"{path.relative_to(PACKAGE)} imports {sorted(wrong)}")
    assert not bad, "; ".join(bad)


def test_the_checker_sees_imports() -> None:
    """The rules above must be able to fail: the checker finds relative and absolute imports."""
    found = _parts_imported(PACKAGE / "pipeline.py")
    assert {"retarget", "robots", "motion"} <= found
    assert "kinemorph.retarget.settings" in _imports(PACKAGE / "retarget" / "gmr.py")
