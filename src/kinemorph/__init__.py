"""kinemorph: motion capture and authored motion onto legged robots, with quality metrics.

The public surface is a few plain functions and the types they return::

    motion = load_motion("walk.bvh")            # Motion, Z-up metres
    robot = load_robot("unitree_g1")            # Robot (MuJoCo model)
    result = retarget(motion, robot)            # RobotMotion
    report = evaluate(result, robot)            # QualityReport
    save(result, "walk_g1.npz", robot=robot)    # npz / pkl / csv / json
"""

from .errors import KinemorphError
from .io import load as load_robot_motion
from .io import save
from .mapping.calibrate import calibrate
from .mapping.mapping import BodyTask, Mapping, load_mapping
from .motion import Motion, load_motion, save_bvh
from .quality import QualityReport, evaluate
from .retarget import ENGINES, GmrConfig, retarget
from .robots import KNOWN_ROBOTS, Robot, load_robot
from .robots.robot_motion import RobotMotion

__version__ = "0.1.0"

__all__ = [
    "ENGINES",
    "KNOWN_ROBOTS",
    "BodyTask",
    "GmrConfig",
    "KinemorphError",
    "Mapping",
    "Motion",
    "QualityReport",
    "Robot",
    "RobotMotion",
    "calibrate",
    "evaluate",
    "load_mapping",
    "load_motion",
    "load_robot",
    "load_robot_motion",
    "retarget",
    "save",
    "save_bvh",
]
