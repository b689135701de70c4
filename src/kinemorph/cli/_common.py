"""Options and helpers several subcommands share: robot and engine choices, engine options,
the compat flag, and turning parsed options into a library job."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._options import add_shared_config_options, config_overrides


def robot_help() -> str:
    from ..robots.registry import KNOWN_ROBOTS

    return f"robot name ({', '.join(KNOWN_ROBOTS)}) or an MJCF/URDF path"


def add_engine_options(p: argparse.ArgumentParser, *, mapping: bool = True) -> None:
    """--engine (auto by default), --mapping, --preset, --compat and every engine's config fields."""
    from ..motion.presets import PRESETS
    from ..retarget import ENGINES

    p.add_argument(
        "--engine",
        default="auto",
        choices=["auto", *ENGINES],
        help="retargeting engine; auto: quadruped for animal clips, else gmr [default: auto]",
    )
    if mapping:
        p.add_argument(
            "--mapping", type=Path, help="mapping JSON (GMR ik_config layout); default: the robot's shipped one"
        )
    p.add_argument("--preset", default="auto", choices=["auto", *PRESETS], help="how to read sources [default: auto]")
    compat = sorted({c for e in ENGINES.values() for c in e.compat})
    p.add_argument("--compat", choices=compat, help="reproduce another tool's settings (gmr: GMR's BVH pipeline)")
    add_shared_config_options(p, [(name, e.config_type) for name, e in ENGINES.items()], title="{} engine options")
    from ..pipeline import CLEANUP_CHOICES
    from ..retarget.cleanup import CleanupConfig

    p.add_argument(
        "--cleanup",
        default="auto",
        choices=CLEANUP_CHOICES,
        help="the clean-up stage after the engine (planted feet held, nothing below the floor or inside itself, "
        "joint speed limit): auto runs it with --engine auto and no --compat, on always, off never [default: auto]",
    )
    add_shared_config_options(p, [("clean-up", CleanupConfig)])


def engine_options(args: argparse.Namespace) -> dict[str, Any]:
    """The engine and clean-up config fields the command line set (RetargetJob.options)."""
    from ..retarget import ENGINES
    from ..retarget.cleanup import CleanupConfig

    out: dict[str, Any] = {}
    for cls in (*(e.config_type for e in ENGINES.values()), CleanupConfig):
        out.update(config_overrides(cls, args))
    return out
