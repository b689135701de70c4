"""05: From camera landmarks to a robot: what `kinemorph video` does after pose detection.

A generated walk is "filmed": its joints become the 33 BlazePose landmarks a detector reports
(hip-centred world landmarks and image positions, 1 cm noise). They are saved as a landmark file,
turned into a LAFAN1 BVH (bone aiming, One-Euro smoothing, joint limits, feet on the floor, travel
from the image), loaded back like any clip and retargeted onto Unitree G1. Prints the solver's
report and how far the BVH's bones and the robot's limbs are from those of the original clip.
With ``--figure FILE.png`` it also draws the README's figure.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

import kinemorph
from kinemorph.motion.procedural import procedural_walk
from kinemorph.video import convert, save_landmarks, synthetic_landmarks
from kinemorph.video.accuracy import bone_errors, limb_errors


def plot(source: kinemorph.Motion, fitted: kinemorph.Motion, errors: np.ndarray, path: Path) -> None:
    """Side views of the source (grey) and the fitted skeleton (blue) at three moments, and the
    per-frame median bone error."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(13, 3.6), gridspec_kw={"width_ratios": [1, 1, 1, 2]})
    parents = source.skeleton.parents
    for ax, t in zip(axes[:3], (2.0, 3.4, 4.8)):
        f = round(t * source.fps)
        for motion, style in ((source, dict(color="0.6", lw=5)), (fitted, dict(color="tab:blue", lw=1.8))):
            p = motion.positions[f, : motion.skeleton.num_joints] - motion.positions[f, 0] + source.positions[f, 0]
            for j in range(1, len(parents)):
                ax.plot(p[[parents[j], j], 0], p[[parents[j], j], 2], solid_capstyle="round", **style)
        ax.set_title(f"t = {t:.1f} s")
        ax.set_aspect("equal")
        ax.set_xlim(source.positions[f, 0, 0] - 0.8, source.positions[f, 0, 0] + 0.8)
        ax.set_ylim(-0.05, 1.85)
        ax.set_xticks([])
        ax.axhline(0.0, color="k", lw=0.8)
    axes[0].set_ylabel("height [m]")
    time = np.arange(len(errors)) / source.fps
    axes[3].plot(time, np.median(errors, axis=1), color="tab:blue", label="median over 14 bones")
    axes[3].plot(time, errors.max(axis=1), color="tab:red", lw=0.8, label="worst bone")
    axes[3].set_xlabel("time [s]")
    axes[3].set_ylabel("bone direction error [deg]")
    axes[3].legend(loc="upper right", fontsize=8)
    fig.suptitle("landmarks (1 cm noise) -> LAFAN1 skeleton: source grey, fitted blue", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(figure: Path | None = None) -> None:
    walk = procedural_walk(duration=8.0)
    landmarks = synthetic_landmarks(walk, noise=0.01, seed=0)
    robot = kinemorph.load_robot("unitree_g1")
    with tempfile.TemporaryDirectory() as tmp:
        lm_path = save_landmarks(landmarks, Path(tmp) / "walk_landmarks.npz")
        fit = convert(lm_path, Path(tmp) / "walk_video.bvh")
        print(fit.report.summary())
        clip = kinemorph.load_motion(Path(tmp) / "walk_video.bvh")
    bones = bone_errors(walk, clip)
    limbs = limb_errors(robot, walk, clip)
    print(f"BVH bone directions vs the source: median {np.median(bones):.2f} deg, p95 {np.percentile(bones, 95):.2f}")
    print(f"G1 limb directions vs G1 from the source: median {np.median(limbs):.2f} deg")
    if figure is not None:
        plot(walk, clip, bones, figure)
        print(f"figure: {figure}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="camera landmarks of a generated walk -> BVH -> G1")
    ap.add_argument("--figure", type=Path, help="also draw the README's figure into this PNG")
    main(ap.parse_known_args()[0].figure)
