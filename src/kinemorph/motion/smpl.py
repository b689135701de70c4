"""SMPL-family input: AMASS-style parameter files through a body model the user supplies.

Motion file (.npz, AMASS layout): ``poses`` (T, 3J) axis-angle per joint, or ``root_orient``
(T, 3) + ``pose_body`` (T, 63) [+ ``pose_hand`` (T, 90), ``pose_jaw``, ``pose_eye``]; ``trans``
(T, 3) [m]; ``betas`` (B,); ``gender``; ``mocap_framerate`` or ``mocap_frame_rate`` [1/s].
Z-up metres, as AMASS stores them.

Body model (.npz; the official SMPL, SMPL-H and SMPL-X files are licensed and never shipped):
``v_template`` (V, 3), ``shapedirs`` (V, 3, S), ``J_regressor`` (J, V), ``kintree_table`` (2, J).
Rest joints = J_regressor (v_template + shapedirs . betas), with numpy only. The path is the
``body_model`` argument (a file, or a folder searched for one) or the folder named by the
environment variable KINEMORPH_BODY_MODELS.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._npz import read_npz
from ..errors import MotionFileError
from ..transforms import quat_exp
from .motion import Motion
from .skeleton import Skeleton

_BODY = (
    "pelvis", "left_hip", "right_hip", "spine1", "left_knee", "right_knee", "spine2", "left_ankle",
    "right_ankle", "spine3", "left_foot", "right_foot", "neck", "left_collar", "right_collar", "head",
    "left_shoulder", "right_shoulder", "left_elbow", "right_elbow", "left_wrist", "right_wrist",
)  # fmt: skip
_FINGERS = tuple(f"{f}{i}" for f in ("index", "middle", "pinky", "ring", "thumb") for i in (1, 2, 3))
_HANDS = tuple(f"left_{f}" for f in _FINGERS) + tuple(f"right_{f}" for f in _FINGERS)
JOINT_NAMES: dict[str, tuple[str, ...]] = {
    "smpl": (*_BODY, "left_hand", "right_hand"),
    "smplh": (*_BODY, *_HANDS),
    "smplx": (*_BODY, "jaw", "left_eye_smplhf", "right_eye_smplhf", *_HANDS),
}
"""Joint order of each model (the order of the official kintree tables and AMASS poses)."""
_MODEL_OF_COUNT = {len(v): k for k, v in JOINT_NAMES.items()}
ENV = "KINEMORPH_BODY_MODELS"
_MODEL_KEYS = ("v_template", "shapedirs", "J_regressor", "kintree_table")


def is_smpl_file(path: str | Path) -> bool:
    """Whether an .npz holds SMPL-family parameters (rather than keypoints)."""
    try:
        with zipfile.ZipFile(path) as z:
            keys = {n.removesuffix(".npy") for n in z.namelist()}
    except (OSError, zipfile.BadZipFile):
        return False
    return "trans" in keys and ("poses" in keys or "pose_body" in keys)


@dataclass(frozen=True)
class BodyModel:
    """A body model's rest joints for one shape.

    Attributes:
        path: the file.
        kind: "smpl", "smplh" or "smplx" (from the joint count).
        parents: parent per joint, -1 for the root. Shape: (J,).
        joints: rest joint positions [m] for the given betas, the model's own (Y-up) axes. Shape: (J, 3).
    """

    path: Path
    kind: str
    parents: np.ndarray
    joints: np.ndarray

    @classmethod
    def load(cls, path: Path, betas: np.ndarray) -> BodyModel:
        try:
            with np.load(path, allow_pickle=False) as z:
                missing = [k for k in _MODEL_KEYS if k not in z.files]
                if missing:
                    raise MotionFileError(path, f"not a body model: missing {', '.join(missing)}")
                v = np.asarray(z["v_template"], float)
                dirs = np.asarray(z["shapedirs"], float)
                reg = np.asarray(z["J_regressor"], float)
                kin = np.asarray(z["kintree_table"]).astype(np.int64)
        except (OSError, ValueError, zipfile.BadZipFile) as exc:
            raise MotionFileError(path, f"cannot read the body model ({exc})") from None
        n = reg.shape[0]
        if v.ndim != 2 or v.shape[1] != 3 or dirs.shape[:2] != v.shape or reg.shape[1] != v.shape[0]:
            raise MotionFileError(path, "body model arrays disagree (v_template, shapedirs, J_regressor)")
        if kin.shape != (2, n) or n not in _MODEL_OF_COUNT:
            raise MotionFileError(
                path, f"body model has {n} joints; SMPL has 24, SMPL-H 52, SMPL-X 55 (kintree_table {kin.shape})"
            )
        k = min(len(betas), dirs.shape[2])
        shaped = v + dirs[:, :, :k] @ np.asarray(betas[:k], float)
        parents = kin[0].copy()
        parents[0] = -1
        if np.any(parents[1:] >= np.arange(1, n)) or np.any(parents[1:] < 0):
            raise MotionFileError(path, "kintree_table is not in topological order")
        return cls(path=path, kind=_MODEL_OF_COUNT[n], parents=parents, joints=reg @ shaped)


def find_body_model(body_model: str | Path | None, *, kind: str, gender: str, source: Path) -> Path:
    """The body model file: ``body_model`` (a file, or a folder), else $KINEMORPH_BODY_MODELS; in a
    folder, the .npz whose path names the model kind and gender (neutral as a fallback)."""
    where = body_model if body_model is not None else os.environ.get(ENV)
    if not where:
        raise MotionFileError(
            source,
            f"is an AMASS/{kind.upper()} file and needs a body model: pass body_model (--body-model PATH) or set "
            f"{ENV} to a folder holding the {kind.upper()} .npz files (licensed, not shipped)",
        )
    p = Path(where)
    if p.is_file():
        return p
    if not p.is_dir():
        raise MotionFileError(source, f"body model {p} does not exist")
    files = sorted(p.rglob("*.npz"))
    tag = {"smpl": "smpl", "smplh": "smplh", "smplx": "smplx"}[kind]

    def score(f: Path) -> tuple[int, int]:
        s = str(f.relative_to(p)).lower().replace("-", "").replace("_", "")
        kind_ok = tag in s and not (tag == "smpl" and ("smplh" in s or "smplx" in s))
        sex = 2 if gender and gender in s and not (gender == "male" and "female" in s) else (1 if "neutral" in s else 0)
        return int(kind_ok), sex

    ranked = sorted(files, key=score, reverse=True)
    if not ranked or score(ranked[0])[0] == 0:
        raise MotionFileError(source, f"no {kind.upper()} body model (.npz) found under {p}")
    return ranked[0]


def _text(value: np.ndarray) -> str:
    """A string stored in an .npz (unicode or bytes, 0-d or 1-d)."""
    v = np.asarray(value).reshape(-1)
    parts = [x.decode() if isinstance(x, bytes) else str(x) for x in v.tolist()]
    return "".join(parts)


def read_smpl(
    path: str | Path,
    *,
    body_model: str | Path | None = None,
    unit: str | float | None = None,
    up: str | None = None,
    strict: bool = False,
) -> Motion:
    """A Motion from an AMASS-style file (layout in the module docstring), joints named as the
    model's (JOINT_NAMES), then the usual rig recognition (landmarks; Z-up metres unless overridden)."""
    from .rig import motion_from_raw

    p = Path(path)
    d = read_npz(p)
    if "poses" in d:
        poses = np.asarray(d["poses"], float)
    else:
        parts = [d[k] for k in ("root_orient", "pose_body", "pose_jaw", "pose_eye", "pose_hand") if k in d]
        if "root_orient" not in d:
            raise MotionFileError(p, "has pose_body but no root_orient")
        poses = np.concatenate([np.asarray(x, float).reshape(len(d["trans"]), -1) for x in parts], axis=1)
    trans = np.asarray(d["trans"], float)
    if poses.ndim != 2 or poses.shape[1] % 3 or trans.shape != (poses.shape[0], 3) or poses.shape[0] == 0:
        raise MotionFileError(p, f"poses {poses.shape} and trans {trans.shape} do not fit (T, 3J) and (T, 3)")
    n_pose = poses.shape[1] // 3
    fps_key = next((k for k in ("mocap_framerate", "mocap_frame_rate", "fps") if k in d), None)
    if fps_key is None:
        raise MotionFileError(p, "has no frame rate (mocap_framerate or mocap_frame_rate)")
    fps = float(np.asarray(d[fps_key]).reshape(-1)[0])
    kind = _text(d["surface_model_type"]).lower().replace("-", "") if "surface_model_type" in d else ""
    if kind not in JOINT_NAMES:
        kind = {24: "smpl", 52: "smplh", 55: "smplx", 22: "smplh"}.get(n_pose, "smplh")
    gender = _text(d["gender"]).lower() if "gender" in d else "neutral"
    betas = np.asarray(d.get("betas", np.zeros(10)), float).reshape(-1)
    model_path = find_body_model(body_model, kind=kind, gender=gender, source=p)
    model = BodyModel.load(model_path, betas)
    names = JOINT_NAMES[model.kind]
    n = len(names)
    if n_pose > n or (n_pose < n and n_pose != 22):
        raise MotionFileError(
            p, f"poses have {n_pose} joints but body model {model_path} ({model.kind.upper()}) has {n}"
        )
    rotvec = np.zeros((poses.shape[0], n, 3))
    rotvec[:, :n_pose] = poses.reshape(-1, n_pose, 3)
    offsets = model.joints - np.where(model.parents[:, None] >= 0, model.joints[model.parents], 0.0)
    offsets[0] = model.joints[0]
    channels = (("Xposition", "Yposition", "Zposition", "Zrotation", "Yrotation", "Xrotation"),) + (
        ("Zrotation", "Yrotation", "Xrotation"),
    ) * (n - 1)
    sk = Skeleton(names=names, parents=model.parents, offsets=offsets, channels=channels)
    local_rot = quat_exp(rotvec)
    local_pos = np.broadcast_to(offsets, (poses.shape[0], n, 3)).copy()
    local_pos[:, 0] = trans + model.joints[0]
    motion = motion_from_raw(
        sk, local_rot, local_pos, fps, source=str(p), unit="m" if unit is None else unit,
        up="z" if up is None else up, strict=strict, preset="smpl",
    )  # fmt: skip
    return motion
