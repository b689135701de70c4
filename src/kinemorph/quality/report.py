"""QualityReport: every metric of one robot motion, as named numbers with units."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from .._files import write_text_atomic


def _metric(label: str) -> Any:
    """A report field; ``label`` (metric and unit) is its row title in :meth:`QualityReport.table`."""
    return field(metadata={"label": label})


@dataclass(frozen=True)
class QualityReport:
    """Quality of one robot motion. Undefined values (no planted foot, no keypoints, too few frames) are NaN.

    Attributes:
        num_frames: frames in the clip.
        duration_s: clip length, num_frames / fps [s].
        foot_slip_mean_cm_s: horizontal speed of planted feet, mean over feet [cm/s].
        foot_slip_max_cm_s: horizontal speed of planted feet, worst foot [cm/s].
        planted_fraction: share of (frame, foot) entries that are planted, in [0, 1].
        penetration_p95_cm: 95th percentile over frames of the depth of the lowest collision point below z = 0 [cm].
        penetration_max_cm: the deepest frame's depth [cm].
        jerk_rms_rad_s3: RMS over frames and joints of joint jerk [rad/s^3], of the motion
            resampled to 30 Hz (quality.joint_speed.JERK_RATE) so that a 120 fps and a 30 fps copy
            of one clip score alike (at 30 fps it is the plain third difference).
        joint_jump_frames: frame transitions in which a joint moves more than the jump threshold.
        trunk_tilt_mean_deg: mean angle of the root's z axis from world z [deg].
        trunk_tilt_max_deg: largest such angle [deg].
        roll_rate_deg_s: mean |angular velocity of the root about its own x axis| [deg/s].
        pitch_rate_deg_s: mean |angular velocity of the root about its own y axis| [deg/s].
        limit_violations: (frame, joint) entries outside the joint limits.
        limit_excess_max_rad: largest distance outside a joint limit [rad].
        tracking_error_mean_cm: keypoint body to target distance, mean over frames and keypoints [cm].
        tracking_error_max_cm: its maximum [cm].
        contact_slip_cm_s: horizontal speed of the feet's contact geoms while they touch the floor
            (lowest point within 1 cm), mean over touching geom-frames [cm/s].
        contact_slip_p95_cm_s: its 95th percentile [cm/s].
        self_collision_frames: frames where two links' proxies overlap at all.
        self_collision_deep_frames: frames where two links' proxies overlap deeper than 1 cm.
        self_collision_max_depth_cm: deepest overlap between two links [cm].
        floor_penetration_max_cm: deepest point of any link below the floor (capsule proxies of
            the collision geometry, meshes included) [cm].
        floor_penetration_deep_frames: frames with some link deeper than 1 cm below the floor.
        joint_speed_max_rad_s: fastest joint speed, |dq| x fps [rad/s].
        fast_joint_frames: frame transitions with a joint faster than 7.5 rad/s (joint jumps in
            time units: the same figure at any fps).
        tracking_error_per_frame_cm: the mean over keypoints per frame [cm], for plots; None without
            keypoints. Shape: (T,). Not in :meth:`table` nor :meth:`to_dict` (a summary, one number per
            metric); compare=False, so reports compare by their numbers.
    """

    num_frames: int = _metric("frames")
    duration_s: float = _metric("duration [s]")
    foot_slip_mean_cm_s: float = _metric("foot slip, mean over feet [cm/s]")
    foot_slip_max_cm_s: float = _metric("foot slip, worst foot [cm/s]")
    planted_fraction: float = _metric("planted foot-frames [fraction]")
    penetration_p95_cm: float = _metric("ground penetration, p95 [cm]")
    penetration_max_cm: float = _metric("ground penetration, max [cm]")
    jerk_rms_rad_s3: float = _metric("joint jerk, RMS [rad/s^3]")
    joint_jump_frames: int = _metric("joint jumps [frames]")
    trunk_tilt_mean_deg: float = _metric("trunk tilt, mean [deg]")
    trunk_tilt_max_deg: float = _metric("trunk tilt, max [deg]")
    roll_rate_deg_s: float = _metric("trunk roll rate, mean |.| [deg/s]")
    pitch_rate_deg_s: float = _metric("trunk pitch rate, mean |.| [deg/s]")
    limit_violations: int = _metric("joint-limit violations [frame x joint]")
    limit_excess_max_rad: float = _metric("joint-limit excess, max [rad]")
    tracking_error_mean_cm: float = _metric("keypoint tracking error, mean [cm]")
    tracking_error_max_cm: float = _metric("keypoint tracking error, max [cm]")
    contact_slip_cm_s: float = _metric("contact slip, geoms on the floor [cm/s]")
    contact_slip_p95_cm_s: float = _metric("contact slip, p95 [cm/s]")
    self_collision_frames: int = _metric("self-collision [frames]")
    self_collision_deep_frames: int = _metric("self-collision deeper than 1 cm [frames]")
    self_collision_max_depth_cm: float = _metric("self-collision depth, max [cm]")
    floor_penetration_max_cm: float = _metric("any body below the floor, max [cm]")
    floor_penetration_deep_frames: int = _metric("any body deeper than 1 cm [frames]")
    joint_speed_max_rad_s: float = _metric("joint speed, max [rad/s]")
    fast_joint_frames: int = _metric("joints faster than 7.5 rad/s [frames]")
    tracking_error_per_frame_cm: np.ndarray | None = field(default=None, compare=False, repr=False)

    def _metric_fields(self) -> list[tuple[str, str, Any]]:
        return [(f.name, f.metadata["label"], getattr(self, f.name)) for f in fields(self) if "label" in f.metadata]

    def to_dict(self) -> dict[str, int | float | None]:
        """Field name -> value as plain Python int or float; NaN (undefined) becomes None (JSON null).
        The per-frame array is left out."""
        out: dict[str, int | float | None] = {}
        for name, _, value in self._metric_fields():
            if isinstance(value, int | np.integer):
                out[name] = int(value)
            else:
                v = float(value)
                out[name] = v if math.isfinite(v) else None
        return out

    def save_json(self, path: str | Path, *, force: bool = False) -> Path:
        """Write :meth:`to_dict` as JSON, atomically; an existing file is kept unless ``force``."""
        text = json.dumps(self.to_dict(), indent=2, allow_nan=False) + "\n"
        return write_text_atomic(path, text, force=force)

    def table(self) -> str:
        """Two aligned columns: metric with unit, value ("n/a" where undefined)."""
        rows = [(label, _format(value)) for _, label, value in self._metric_fields()]
        left = max(len(r[0]) for r in rows)
        right = max(len(r[1]) for r in rows)
        return "\n".join(f"{a:<{left}}  {b:>{right}}" for a, b in rows)

    def __str__(self) -> str:
        return self.table()


def _format(value: int | float) -> str:
    if isinstance(value, int | np.integer):
        return str(int(value))
    v = float(value)
    if not math.isfinite(v):
        return "n/a"
    return f"{v:.3f}" if abs(v) < 1e5 else f"{v:.3e}"
