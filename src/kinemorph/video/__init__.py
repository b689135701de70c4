"""Video to motion: a person filmed with one camera becomes a LAFAN1 clip.

MediaPipe's Pose Landmarker gives 33 BlazePose landmarks per frame (optional extra ``[video]``);
the solver aims the LAFAN1 skeleton's bones along them (bone lengths from the rest offsets),
smooths with a One-Euro filter, rejects poses outside human joint limits, and puts the feet on
the floor. The result is a :class:`~kinemorph.motion.Motion` that saves as BVH and retargets like
any LAFAN1 clip. Landmark files (.npz) let detection and solving run apart.
"""

from .blazepose import MP_TO_WORLD, NAMES
from .convert import INPUT_SUFFIXES, convert, read_input, video_to_motion
from .decode import VIDEO_SUFFIXES, VideoError, VideoReader
from .detect import MODEL_ENV, MODEL_URL, detect_video
from .landmarks import LandmarkClip, read_landmarks, save_landmarks
from .one_euro import OneEuroConfig, one_euro
from .solver import FitReport, SolverConfig, VideoFit, solve_landmarks
from .synthetic import Camera, synthetic_landmarks

__all__ = [
    "INPUT_SUFFIXES",
    "MODEL_ENV",
    "MODEL_URL",
    "MP_TO_WORLD",
    "NAMES",
    "VIDEO_SUFFIXES",
    "Camera",
    "FitReport",
    "LandmarkClip",
    "OneEuroConfig",
    "SolverConfig",
    "VideoError",
    "VideoFit",
    "VideoReader",
    "convert",
    "detect_video",
    "one_euro",
    "read_input",
    "read_landmarks",
    "save_landmarks",
    "solve_landmarks",
    "synthetic_landmarks",
    "video_to_motion",
]
