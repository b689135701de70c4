"""Procedural human motion: clips the project makes itself, on a LAFAN1-compatible skeleton.

The skeleton has LAFAN1's 22 joint names, tree and channel layout, with bone lengths of a
1.75 m adult (body-segment proportions after Winter, *Biomechanics and Motor Control of Human
Movement*). It follows LAFAN1's joint-frame conventions, so that the ``lafan1`` preset and
mappings (including per-body rotation offsets) made for LAFAN1 apply unchanged:

- every bone lies along its joint's local +x (offsets (length, 0, 0));
- Hips, Spine..Head: x up the trunk, y forward, z to the subject's left;
- legs (UpLeg, Leg): x down the bone, y forward, z to the right; the knee bends about -z;
- Foot: x from ankle to ball, z to the right; Toe: level (x forward, y up) when the foot is flat,
  rigidly attached (constant local rotation, as in LAFAN1);
- shoulders and arms: x along the bone towards the hand, y backward in a T-pose (z up on the
  left, down on the right); hanging arms have x down, y back, z left; the elbow bends about -z.

Clips are built as BVH content (Y-up, centimetres, ZYX Euler channels, values rounded as a file
stores them) and go through :func:`~kinemorph.motion.presets.apply_preset` with ``lafan1``, so a
clip is what :func:`~kinemorph.motion.files.load_motion` gives for its own file.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..errors import ConfigError, UnknownNameError
from ..transforms import frame_xy, mat_to_quat, quat_to_euler, rot_x, rot_y, rot_z
from .bvh import BvhData
from .motion import Motion
from .presets import _Y_UP_TO_Z_UP, apply_preset
from .procedural_walk import (
    FOOTPRINT_AT,
    HEEL_ROLL,
    STANCE,
    FootShape,
    StepStyle,
    WalkPath,
    WalkTiming,
    foot_trajectory,
    leg_ik,
    plan_steps,
    reach_height,
    smooth_below,
    softmin,
)
from .skeleton import EndSite, Skeleton

_ROOT_CH = ("Xposition", "Yposition", "Zposition", "Zrotation", "Yrotation", "Xrotation")
_JOINT_CH = ("Zrotation", "Yrotation", "Xrotation")
FOOT = FootShape()
THIGH, SHANK = 0.42, 0.425  # [m]
_SLOPE = np.hypot(FOOT.ball_forward, FOOT.ankle_height - FOOT.ball_height)  # ankle to ball [m]
# name, parent, offset [cm] in the parent's joint frame
_JOINTS: tuple[tuple[str, str | None, tuple[float, float, float]], ...] = (
    ("Hips", None, (0.0, 0.0, 0.0)),
    ("LeftUpLeg", "Hips", (-1.0, 1.5, 9.0)),
    ("LeftLeg", "LeftUpLeg", (100 * THIGH, 0.0, 0.0)),
    ("LeftFoot", "LeftLeg", (100 * SHANK, 0.0, 0.0)),
    ("LeftToe", "LeftFoot", (100 * _SLOPE, 0.0, 0.0)),
    ("RightUpLeg", "Hips", (-1.0, 1.5, -9.0)),
    ("RightLeg", "RightUpLeg", (100 * THIGH, 0.0, 0.0)),
    ("RightFoot", "RightLeg", (100 * SHANK, 0.0, 0.0)),
    ("RightToe", "RightFoot", (100 * _SLOPE, 0.0, 0.0)),
    ("Spine", "Hips", (9.0, -2.0, 0.0)),
    ("Spine1", "Spine", (12.0, 0.0, 0.0)),
    ("Spine2", "Spine1", (12.0, 0.0, 0.0)),
    ("Neck", "Spine2", (22.0, 0.0, 0.0)),
    ("Head", "Neck", (10.0, 0.0, 0.0)),
    ("LeftShoulder", "Spine2", (17.5, -0.5, 3.0)),
    ("LeftArm", "LeftShoulder", (15.0, 0.0, 0.0)),
    ("LeftForeArm", "LeftArm", (32.0, 0.0, 0.0)),
    ("LeftHand", "LeftForeArm", (25.5, 0.0, 0.0)),
    ("RightShoulder", "Spine2", (17.5, -0.5, -3.0)),
    ("RightArm", "RightShoulder", (15.0, 0.0, 0.0)),
    ("RightForeArm", "RightArm", (32.0, 0.0, 0.0)),
    ("RightHand", "RightForeArm", (25.5, 0.0, 0.0)),
)
NAMES = tuple(j[0] for j in _JOINTS)
_END_SITES = {"LeftToe": 2.5, "RightToe": 2.5, "Head": 17.0, "LeftHand": 9.0, "RightHand": 9.0}  # [cm] along x
_REACH = np.sqrt(THIGH**2 + SHANK**2 + 2 * THIGH * SHANK * np.cos(np.radians(3.0)))  # hip-ankle, knee 3° [m]
_STAND_ROOT = FOOT.ankle_height + THIGH + SHANK + 0.01  # root height with straight legs [m]

# Joint frames (columns: local x, y, z) in a heading frame (x forward, y left, z up), neutral posture.
_TRUNK = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # x up, y forward, z left
_ARM_DOWN = np.array([[0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]])  # x down, y back, z left
_CLAVICLE = {
    1: frame_xy(np.array([0.0, 1.0, 0.0]), np.array([-1.0, 0.0, 0.0])),
    -1: frame_xy(np.array([0.0, -1.0, 0.0]), np.array([-1.0, 0.0, 0.0])),
}
_FOOT_FLAT = frame_xy(
    np.array([FOOT.ball_forward, 0.0, FOOT.ball_height - FOOT.ankle_height]), np.array([0.0, 0.0, 1.0])
)
_TOE_FLAT = frame_xy(np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0]))


def procedural_skeleton() -> Skeleton:
    """The procedural skeleton in BVH file units (centimetres, root offset Y-up)."""
    names = list(NAMES)
    offsets = np.array([j[2] for j in _JOINTS])
    offsets[0] = (0.0, round(100 * _STAND_ROOT, 6), 0.0)
    return Skeleton(
        names=NAMES,
        parents=np.array([-1] + [names.index(p) for _, p, _ in _JOINTS[1:]], dtype=np.int64),  # type: ignore[arg-type]
        offsets=np.round(offsets, 6),
        channels=(_ROOT_CH,) + (_JOINT_CH,) * (len(names) - 1),
        end_sites=tuple(EndSite(parent=names.index(j), offset=np.array([x, 0.0, 0.0])) for j, x in _END_SITES.items()),
    )


def _number(name: str, value: Any, lo: float, hi: float, unit: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigError(f"{name} must be a number {unit}, got {value!r}")
    v = float(value)
    if not (np.isfinite(v) and lo <= v <= hi):
        raise ConfigError(f"{name} must be in [{lo:g}, {hi:g}] {unit}, got {value!r}")
    return v


def _seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def _walk_timing(duration: float, speed: float) -> tuple[WalkTiming, float]:
    """The walk's timing and the time [s] from which both feet stand still; ConfigError when too short."""
    period = 2.0 / (1.0 + 0.75 * speed)  # cadence 1 + 0.75 v steps/s: 1.9 at 1.2 m/s
    t_rise, t_go = 1.0, 1.3
    first_down = t_go + (1.0 - STANCE) * period
    into = FOOTPRINT_AT * STANCE * period
    settle = 0.5 * period + HEEL_ROLL * period  # last touchdown + foot flat after the stop step
    n_last = int(np.floor((duration - 1.0 - settle - first_down) / (0.5 * period)))
    n_min = int(np.ceil((t_rise + 2.0 * period - into - first_down) / (0.5 * period)))
    if n_last < n_min:
        need = first_down + n_min * 0.5 * period + settle + 1.0
        raise ConfigError(f"duration must be at least {need:.2f} s for a walk at {speed:g} m/s, got {duration:g}")
    t_stop = first_down + n_last * 0.5 * period + into
    timing = WalkTiming(speed=speed, period=period, t_rise=t_rise, rise=period, t_stop=t_stop, fall=period, t_go=t_go)
    return timing, first_down + n_last * 0.5 * period + settle


def _cos(c: np.ndarray, at: float, harmonic: int = 1) -> np.ndarray:
    return np.cos(2.0 * np.pi * harmonic * (c - at))


def _pose(
    timing: WalkTiming, path: WalkPath, t: np.ndarray, fps: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Global joint frames (N, J, 3, 3) and root position (N, 3) [m] in the Z-up world at times t (N,) [s]."""
    n = t.shape[0]
    w, c, s = timing.envelope(t), timing.phase(t), timing.progress(t)
    g = min(timing.speed / 1.2, 1.5)  # gait amplitudes grow with speed
    psi = path.heading(s)
    deg = np.radians
    R = np.zeros((n, len(NAMES), 3, 3))
    ix = {name: i for i, name in enumerate(NAMES)}

    # Pelvis: rotation towards the swing leg, drop on the swing side, anterior tilt, sway and bob.
    yaw_p = psi + w * deg(4.0) * g * _cos(c, 0.4)
    pitch_p = w * deg(3.0) * g
    roll_p = w * deg(4.0) * _cos(c, 0.15)
    R[:, 0] = rot_z(yaw_p) @ rot_y(pitch_p) @ rot_x(roll_p) @ _TRUNK
    root = np.zeros((n, 3))
    root[:, :2] = path.point(s) + (w * 0.02 * _cos(c, 0.2))[:, None] * path.left(s)

    # Feet, then the root height: as high as the nominal bob allows while both ankles stay in reach.
    style = StepStyle()
    feet = {
        side: foot_trajectory(plan_steps(timing, path, side, style), t, FOOT, style, timing.period, side)
        for side in (1, -1)
    }
    sk = procedural_skeleton()
    hip_off = {
        side: np.einsum("nij,j->ni", R[:, 0], sk.offsets[ix[f"{p}UpLeg"]] / 100.0)
        for side, p in ((1, "Left"), (-1, "Right"))
    }
    nominal = _STAND_ROOT + 0.02 - w * 0.045 * g + w * 0.02 * g * _cos(c, 0.17, 2)
    limits = [reach_height(root[:, :2] + hip_off[sd][:, :2], feet[sd][0], _REACH) - hip_off[sd][:, 2] for sd in feet]
    root[:, 2] = smooth_below(softmin([nominal, *limits], 0.002), round(0.06 * fps))

    for side, p in ((1, "Left"), (-1, "Right")):
        ankle, yaw_f, pitch_f = feet[side]
        fwd = np.stack([np.cos(yaw_f) + np.cos(yaw_p), np.sin(yaw_f) + np.sin(yaw_p), np.zeros(n)], axis=-1)
        R[:, ix[f"{p}UpLeg"]], R[:, ix[f"{p}Leg"]] = leg_ik(root + hip_off[side], ankle, fwd, THIGH, SHANK)
        foot = rot_z(yaw_f) @ rot_y(-pitch_f)
        R[:, ix[f"{p}Foot"]] = foot @ _FOOT_FLAT
        R[:, ix[f"{p}Toe"]] = foot @ _TOE_FLAT

    # Trunk: lumbar undoes the pelvic tilt, thorax counter-rotates, a seeded lean and breathing.
    lean = deg(3.0 + 1.5 * rng.uniform(-1, 1)) * w * g
    breath = deg(0.6) * np.sin(2 * np.pi * rng.uniform(0.2, 0.3) * t + rng.uniform(0, 2 * np.pi))
    twist = w * _cos(c, 0.4)
    for k, name in enumerate(("Spine", "Spine1", "Spine2"), start=1):
        q = k / 3.0
        yaw = psi + twist * (deg(4.0) * g * (1 - q) - deg(5.0) * g * q)
        pitch = pitch_p * (1 - q) + lean * q - breath * q
        R[:, ix[name]] = rot_z(yaw) @ rot_y(pitch) @ rot_x(roll_p * (1 - 1.4 * q)) @ _TRUNK
    yaw_t = psi - twist * deg(5.0) * g
    gaze = np.zeros((2, n))
    for a, amp in enumerate((4.0, 2.0)):  # look around a little: yaw, pitch
        for _ in range(2):
            f, ph = rng.uniform(0.05, 0.25), rng.uniform(0, 2 * np.pi)
            gaze[a] += deg(amp / 2) * np.sin(2 * np.pi * f * t + ph)
    head_yaw = psi + gaze[0]
    R[:, ix["Neck"]] = rot_z(0.5 * (yaw_t + head_yaw)) @ rot_y(0.5 * lean + deg(4.0) * w) @ _TRUNK
    R[:, ix["Head"]] = rot_z(head_yaw) @ rot_y(gaze[1] + deg(3.0) * w) @ _TRUNK

    # Arms swing against the legs (left arm forward with the right heel strike), elbows bent.
    gain = 1.0 + 0.1 * rng.uniform(-1, 1)
    for side, p in ((1, "Left"), (-1, "Right")):
        phase = side * _cos(c, 0.43)
        swing = w * (deg(17.0) * g * gain * phase - deg(3.0))
        R[:, ix[f"{p}Shoulder"]] = rot_z(yaw_t - side * 0.15 * swing) @ rot_y(0.5 * lean) @ _CLAVICLE[side]
        abd = side * deg(4.0 + 3.0 * w)
        arm = rot_z(yaw_t) @ rot_y(-swing) @ rot_x(abd) @ _ARM_DOWN @ rot_x(side * deg(12.0) * w)
        elbow = deg(8.0) + w * (deg(14.0) + deg(10.0) * g * phase)
        R[:, ix[f"{p}Arm"]] = arm
        R[:, ix[f"{p}ForeArm"]] = arm @ rot_z(-elbow)
        R[:, ix[f"{p}Hand"]] = arm @ rot_z(-elbow - deg(4.0))
    return R, root


def _bvh_data(R: np.ndarray, root: np.ndarray, fps: float) -> BvhData:
    """BVH content (Y-up, centimetres, degrees, 6 decimals as a file holds them) of global frames."""
    sk = procedural_skeleton()
    local = np.empty_like(R)
    local[:, 0] = _Y_UP_TO_Z_UP.T @ R[:, 0]
    local[:, 1:] = np.swapaxes(R[:, sk.parents[1:]], -1, -2) @ R[:, 1:]
    euler = np.degrees(quat_to_euler(mat_to_quat(local), "zyx"))  # (N, J, 3), channels Z Y X
    pos = 100.0 * root @ _Y_UP_TO_Z_UP  # file = R^T world, row vectors
    values = np.concatenate([pos, euler.reshape(len(root), -1)], axis=1)
    as_text = np.array([f"{x:.6f}" for x in values.ravel()], dtype=np.float64)
    return BvhData(skeleton=sk, frame_time=float(f"{1.0 / fps:.8f}"), values=as_text.reshape(values.shape))


def _clip(kind: str, duration: float, fps: float, speed: float, turn_rate: float, seed: int) -> Motion:
    timing, meta = WalkTiming(speed=0.0, period=1.0), {"duration": duration}
    if kind == "walk":
        timing, still_from = _walk_timing(duration, speed)
        meta = {
            "duration": duration,
            "speed": speed,
            "turn_rate": turn_rate,
            "cadence": 2.0 / timing.period,
            "walk_start": timing.t_rise,
            "walk_end": still_from,
            "steady_start": timing.t_rise + timing.rise,
            "steady_end": timing.t_stop - timing.fall,
        }
    path = WalkPath(turn_rate / speed if speed > 0 else 0.0)
    t = np.arange(max(round(duration * fps), 2)) / fps
    R, root = _pose(timing, path, t, fps, np.random.default_rng(seed))
    what = (
        f"procedural:{kind}(duration={duration:g}, fps={fps:g}, speed={speed:g}, turn_rate={turn_rate:g}, seed={seed})"
    )
    from .files import with_rig

    data = _bvh_data(R, root, fps)
    motion = with_rig(apply_preset(data, "lafan1", source=what), data)
    return replace(motion, meta=meta)


def procedural_walk(
    *, duration: float = 8.0, fps: float = 30.0, speed: float = 1.2, turn_rate: float = 0.0, seed: int = 0
) -> Motion:
    """A walk built from kinematic rules: 1 s standing, a smooth start, steady walking along a
    straight or curving path, a stop with the feet brought together, about 1 s standing.

    Stance feet stay on their footprints (legs solved analytically), swing feet rise about
    10 cm, the pelvis bobs, sways and rotates, the thorax counter-rotates, the arms swing
    against the legs with bent elbows. ``meta`` gives the timing: walk_start, walk_end,
    steady_start, steady_end [s], cadence [steps/s].

    Args:
        duration: clip length [s]; at least about 5 s at 1.2 m/s (the message says the minimum).
        fps: frame rate [1/s], 1 to 1000.
        speed: steady walking speed [m/s], 0.3 to 1.8; cadence is 1 + 0.75 * speed steps/s.
        turn_rate: heading change while walking at full speed [rad/s], |turn_rate| <= 1 and
            turning radius speed / |turn_rate| >= 0.8 m; positive turns left.
        seed: non-negative integer for the small seeded variations (gaze, lean, arm swing).
    """
    duration = _number("duration", duration, 1.0, 3600.0, "[s]")
    fps = _number("fps", fps, 1.0, 1000.0, "[1/s]")
    speed = _number("speed", speed, 0.3, 1.8, "[m/s]")
    turn_rate = _number("turn_rate", turn_rate, -1.0, 1.0, "[rad/s]")
    if abs(turn_rate) > speed / 0.8:
        raise ConfigError(
            f"turn_rate {turn_rate:g} rad/s at {speed:g} m/s turns on a {speed / abs(turn_rate):.2f} m radius; "
            f"the smallest is 0.8 m (|turn_rate| <= {speed / 0.8:.3g})"
        )
    return _clip("walk", duration, fps, speed, turn_rate, _seed(seed))


def procedural_stand(*, duration: float = 4.0, fps: float = 30.0, seed: int = 0) -> Motion:
    """Quiet standing: feet under the hips, arms down, breathing and a seeded wandering gaze."""
    duration = _number("duration", duration, 0.1, 3600.0, "[s]")
    fps = _number("fps", fps, 1.0, 1000.0, "[1/s]")
    return _clip("stand", duration, fps, 0.0, 0.0, _seed(seed))


CLIPS: dict[str, Callable[..., Motion]] = {"walk": procedural_walk, "stand": procedural_stand}


def procedural_clip(kind: str = "walk", **options: Any) -> Motion:
    """A procedural clip by kind (a key of CLIPS); options are that generator's keyword options."""
    try:
        make = CLIPS[kind]
    except (KeyError, TypeError):
        raise UnknownNameError("procedural clip kind", str(kind), CLIPS) from None
    accepted = [p for p in inspect.signature(make).parameters]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ConfigError(f"procedural {kind!r} has no option {', '.join(unknown)}; valid: {', '.join(accepted)}")
    return make(**options)


__all__ = ["CLIPS", "NAMES", "procedural_clip", "procedural_skeleton", "procedural_stand", "procedural_walk"]
