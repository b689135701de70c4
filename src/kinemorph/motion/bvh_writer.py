"""BVH text from a skeleton and local joint rotations and translations (the writer beside
bvh.py's reader; kinemorph.motion.files.save_bvh writes it atomically)."""

from __future__ import annotations

import numpy as np

from ..errors import MotionFileError
from ..transforms import quat_to_euler
from .skeleton import POSITION_CHANNELS, ROTATION_CHANNELS, EndSite, Skeleton


def format_bvh(skeleton: Skeleton, frame_time: float, local_rot: np.ndarray, local_pos: np.ndarray) -> str:
    """BVH text for local rotations (T, J, 4) wxyz and translations (T, J, 3), in the skeleton's
    own channel orders. Position channels carry local_pos; offsets are the skeleton's."""
    out: list[str] = ["HIERARCHY"]
    ends: dict[int, list[EndSite]] = {}
    for e in skeleton.end_sites:
        ends.setdefault(e.parent, []).append(e)

    def fmt(v: np.ndarray) -> str:
        return " ".join(f"{x:.6f}" for x in v)

    def write_joint(j: int, depth: int) -> None:
        pad = "\t" * depth
        kind = "ROOT" if j == 0 else "JOINT"
        out.append(f"{pad}{kind} {skeleton.names[j]}")
        out.append(f"{pad}{{")
        out.append(f"{pad}\tOFFSET {fmt(skeleton.offsets[j])}")
        chans = skeleton.channels[j]
        out.append(f"{pad}\tCHANNELS {len(chans)} {' '.join(chans)}".rstrip())
        for c in skeleton.children(j):
            write_joint(c, depth + 1)
        for e in ends.get(j, []):
            out.append(f"{pad}\tEnd Site")
            out.append(f"{pad}\t{{")
            out.append(f"{pad}\t\tOFFSET {fmt(e.offset)}")
            out.append(f"{pad}\t}}")
        out.append(f"{pad}}}")

    write_joint(0, 0)
    t = local_rot.shape[0]
    cols: list[np.ndarray] = []
    for j, chans in enumerate(skeleton.channels):
        order = skeleton.rotation_order(j)
        eul = np.degrees(quat_to_euler(local_rot[:, j], order)) if len(order) == 3 else None
        if order and eul is None:
            raise MotionFileError(None, f"joint {skeleton.names[j]}: writing needs 3 rotation channels")
        r = 0
        for c in chans:
            if c in ROTATION_CHANNELS:
                cols.append(eul[:, r])  # type: ignore[index]
                r += 1
            else:
                cols.append(local_pos[:, j, POSITION_CHANNELS.index(c)])
    values = np.stack(cols, axis=1) if cols else np.zeros((t, 0))
    out += ["MOTION", f"Frames: {t}", f"Frame Time: {frame_time:.8f}"]
    body = "\n".join(" ".join(f"{x:.6f}" for x in row) for row in values)
    return "\n".join(out) + "\n" + body + "\n"
