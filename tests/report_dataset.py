"""A small batch output folder made in-process for the report tests, without any engine: G1
standing and swinging its arms and waist (passes every threshold), three clips spoiled on purpose
(sunk 10 cm into the floor; a knee 0.2 rad past its limit; gliding over the floor at 1 m/s), and
one failed record, with real quality figures (kinemorph.evaluate) in a manifest as the batch
writes it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kinemorph.batch.manifest import Manifest, Record

GOOD = ("walk_a.npz", "sub/walk_b.npz", "walk_c.csv")
SUNK = "walk_sunk.npz"
OVER_LIMITS = "walk_over.npz"
GLIDING = "walk_glide.npz"
FAILED = "broken.npz"


def swinging(robot, seed: int, frames: int = 90, fps: float = 30.0) -> np.ndarray:  # type: ignore[no-untyped-def]
    """qpos (T, nq): the rest pose with arms and waist swinging (legs still)."""
    t = np.arange(frames) / fps
    q = np.tile(robot.rest_qpos(), (frames, 1))
    upper = [i for i, n in enumerate(robot.dof_names) if "shoulder" in n or "elbow" in n or "waist_yaw" in n]
    rng = np.random.default_rng(seed)
    for i in upper:
        q[:, 7 + i] += 0.3 * np.sin(2.0 * t + rng.uniform(0, 6))
    q[:, 7:] = np.clip(q[:, 7:], robot.lower, robot.upper)
    return q


def make_folder(folder: Path, *, extra: int = 0) -> Path:
    """The clips above, plus ``extra`` more good ones (``more/walk_NNN.npz``)."""
    import kinemorph
    from kinemorph.robots.robot_motion import RobotMotion

    robot = kinemorph.load_robot("unitree_g1")
    records: dict[str, Record] = {}
    more = tuple(f"more/walk_{k:03d}.npz" for k in range(extra))
    for i, rel in enumerate((*GOOD, SUNK, OVER_LIMITS, GLIDING, *more)):
        q = swinging(robot, i)
        if rel == SUNK:
            q[:, 2] -= 0.10
        if rel == OVER_LIMITS:
            q[:, 7 + 3] = robot.upper[3] + 0.2  # left knee past its limit
        if rel == GLIDING:
            q[:, 0] += np.arange(len(q)) / 30.0  # 1 m/s with the feet down
        result = RobotMotion.from_qpos(robot.name, 30.0, q, robot.dof_names, info={"engine": "none"})
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        kinemorph.save(result, path, robot=robot)
        quality = kinemorph.evaluate(result, robot).to_dict()
        records[rel] = Record(
            input=f"clips/{rel}.bvh", output=rel, status="ok", frames=result.num_frames, fps=30.0, quality=quality
        )
    records[FAILED] = Record(
        input="clips/broken.bvh", output=FAILED, status="failed", error="clips/broken.bvh:4: truncated file"
    )
    Manifest(folder).rewrite(records)
    return folder
