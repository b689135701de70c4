"""A small synthetic SMPL-family body model and AMASS-style clip, with the official files' keys and
joint order (the real models are licensed; none is on these machines)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kinemorph.motion.smpl import JOINT_NAMES

# Rest joints of a 1.70 m person in SMPL's own frame: Y up, facing +z, the body's left at +x.
_BODY_REST = {
    "pelvis": (0.0, 0.93, 0.0), "left_hip": (0.09, 0.85, 0.0), "right_hip": (-0.09, 0.85, 0.0),
    "spine1": (0.0, 1.04, -0.01), "left_knee": (0.10, 0.48, 0.01), "right_knee": (-0.10, 0.48, 0.01),
    "spine2": (0.0, 1.17, 0.0), "left_ankle": (0.10, 0.08, -0.02), "right_ankle": (-0.10, 0.08, -0.02),
    "spine3": (0.0, 1.23, 0.01), "left_foot": (0.11, 0.02, 0.11), "right_foot": (-0.11, 0.02, 0.11),
    "neck": (0.0, 1.45, -0.01), "left_collar": (0.07, 1.37, 0.0), "right_collar": (-0.07, 1.37, 0.0),
    "head": (0.0, 1.54, 0.02), "left_shoulder": (0.18, 1.40, -0.01), "right_shoulder": (-0.18, 1.40, -0.01),
    "left_elbow": (0.44, 1.40, -0.02), "right_elbow": (-0.44, 1.40, -0.02), "left_wrist": (0.69, 1.40, 0.0),
    "right_wrist": (-0.69, 1.40, 0.0), "left_hand": (0.77, 1.40, 0.0), "right_hand": (-0.77, 1.40, 0.0),
    "jaw": (0.0, 1.52, 0.06), "left_eye_smplhf": (0.03, 1.60, 0.08), "right_eye_smplhf": (-0.03, 1.60, 0.08),
}  # fmt: skip
_PARENT = {
    "left_hip": "pelvis", "right_hip": "pelvis", "spine1": "pelvis", "left_knee": "left_hip",
    "right_knee": "right_hip", "spine2": "spine1", "left_ankle": "left_knee", "right_ankle": "right_knee",
    "spine3": "spine2", "left_foot": "left_ankle", "right_foot": "right_ankle", "neck": "spine3",
    "left_collar": "spine3", "right_collar": "spine3", "head": "neck", "left_shoulder": "left_collar",
    "right_shoulder": "right_collar", "left_elbow": "left_shoulder", "right_elbow": "right_shoulder",
    "left_wrist": "left_elbow", "right_wrist": "right_elbow", "left_hand": "left_wrist",
    "right_hand": "right_wrist", "jaw": "head", "left_eye_smplhf": "head", "right_eye_smplhf": "head",
}  # fmt: skip


def _rest(name: str) -> tuple[np.ndarray, str]:
    if name in _BODY_REST:
        return np.array(_BODY_REST[name]), _PARENT.get(name, "")
    side, finger = name.split("_", 1)
    k = int(finger[-1])
    sign = 1.0 if side == "left" else -1.0
    spread = {"index": 0.03, "middle": 0.01, "ring": -0.01, "pinky": -0.03, "thumb": 0.05}[finger[:-1]]
    pos = np.array([sign * (0.80 + 0.025 * k), 1.40, spread])
    parent = f"{side}_wrist" if k == 1 else f"{side}_{finger[:-1]}{k - 1}"
    return pos, parent


def write_body_model(path: Path, kind: str = "smplh") -> Path:
    """A body model .npz with the official keys: 4 vertices around each joint (their mean is the
    joint), shapedirs whose first component scales the body about the pelvis (+5% per unit)."""
    names = JOINT_NAMES[kind]
    joints = np.array([_rest(n)[0] for n in names])
    parents = [names.index(_rest(n)[1]) if i else 2**32 - 1 for i, n in enumerate(names)]
    jitter = np.array([[0.01, 0.01, 0], [-0.01, 0.01, 0], [0.01, -0.01, 0], [-0.01, -0.01, 0]])
    v = (joints[:, None, :] + jitter[None]).reshape(-1, 3)
    reg = np.kron(np.eye(len(names)), np.full((1, 4), 0.25))
    dirs = np.zeros((len(v), 3, 10))
    dirs[:, :, 0] = 0.05 * (v - joints[0])
    np.savez(
        path,
        v_template=v,
        shapedirs=dirs,
        J_regressor=reg,
        kintree_table=np.array([parents, list(range(len(names)))], dtype=np.uint32),
        weights=np.zeros((len(v), len(names))),
        f=np.zeros((0, 3), dtype=np.int64),
    )
    return path


def walk_poses(kind: str = "smplh", frames: int = 120, fps: float = 60.0) -> dict[str, np.ndarray]:
    """AMASS-style parameters of a synthetic walk: Z-up world (root_orient turns SMPL's Y-up
    frame up), legs swinging, arms hanging, 1.2 m/s along the body's facing direction."""
    names = JOINT_NAMES[kind]
    t = np.arange(frames) / fps
    ph = 2 * np.pi * 1.0 * t
    pose = np.zeros((frames, len(names), 3))
    pose[:, 0] = [np.pi / 2, 0.0, 0.0]  # Y-up body into the Z-up world (faces -y)
    for side, s in (("left", 1.0), ("right", -1.0)):
        swing = 0.35 * np.sin(ph + (0 if s > 0 else np.pi))
        pose[:, names.index(f"{side}_hip"), 0] = -swing
        pose[:, names.index(f"{side}_knee"), 0] = 0.3 + 0.3 * np.sin(ph + (0.5 if s > 0 else 0.5 + np.pi))
        pose[:, names.index(f"{side}_shoulder"), 2] = -s * 1.2  # arms down from the T-pose
        pose[:, names.index(f"{side}_elbow"), 1] = s * 0.4
    # SMPL puts the pelvis at J0 + trans (J0 unrotated, in the model's Y-up frame): trans moves it
    # to 0.93 m over the floor
    trans = np.stack([np.zeros(frames), -0.93 - 1.2 * t, np.full(frames, 0.93)], axis=1)
    return {"poses": pose.reshape(frames, -1), "trans": trans}


def write_amass(path: Path, kind: str = "smplh", *, layout: str = "poses", fps: float = 60.0, **extra: object) -> Path:
    """An AMASS-style .npz: layout "poses" (SMPL-H style, mocap_framerate) or "parts" (SMPL-X
    style: root_orient, pose_body, pose_hand..., mocap_frame_rate)."""
    d = walk_poses(kind, fps=fps)
    out: dict[str, object] = {"trans": d["trans"], "betas": np.zeros(16), "gender": np.array("neutral")}
    if layout == "poses":
        out.update(poses=d["poses"], mocap_framerate=np.array(fps))
    else:
        p = d["poses"]
        out.update(root_orient=p[:, :3], pose_body=p[:, 3:66], mocap_frame_rate=np.array(fps),
                   surface_model_type=np.array(kind))  # fmt: skip
        if kind == "smplx":
            out.update(pose_jaw=p[:, 66:69], pose_eye=p[:, 69:75], pose_hand=p[:, 75:])
        else:
            out.update(pose_hand=p[:, 66:])
    out.update(extra)
    np.savez(path, **out)  # type: ignore[arg-type]
    return path
