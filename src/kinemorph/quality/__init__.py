"""Quality metrics of robot motion, each computed through the robot's own kinematics; none changes the motion.

``evaluate`` runs them all and returns a :class:`QualityReport`; each metric is also a function of its own.
"""

from __future__ import annotations

from ..robots.geometry import ground_clearance
from ..robots.robot import Robot
from ..robots.robot_motion import RobotMotion
from ._common import check_motion
from .body_penetration import BodyPenetration, body_penetration
from .contact_slip import ContactSlip, contact_slip
from .foot_slip import CONTACT_HEIGHT, CONTACT_MAX_SPEED, CONTACT_MIN_FRAMES, FootSlip, foot_slip
from .jerk import joint_jerk_rms
from .joint_speed import MAX_SPEED, JointSpeed, joint_jerk_rms_resampled, joint_speed
from .jumps import JUMP_THRESHOLD, joint_jumps
from .limits import LIMIT_TOLERANCE, LimitViolations, joint_limit_violations
from .penetration import Penetration, ground_penetration
from .report import QualityReport
from .self_collision import SelfCollision, self_collision
from .tracking import TrackingError, keypoint_tracking
from .trunk import TrunkMotion, body_angular_velocity, trunk_motion


def evaluate(
    robot_motion: RobotMotion,
    robot: Robot,
    *,
    contact_height: float | None = None,
    contact_max_speed: float | None = None,
    contact_min_frames: int = CONTACT_MIN_FRAMES,
    jump_threshold: float = JUMP_THRESHOLD,
    limit_tolerance: float = LIMIT_TOLERANCE,
) -> QualityReport:
    """Every metric of ``robot_motion`` on ``robot``. Forward kinematics runs once and is shared.

    Options (see the metric functions): contact_height [m], contact_max_speed [m/s] (default:
    scaled to the robot's size, :func:`kinemorph.quality.foot_slip.size_factor`) and
    contact_min_frames for :func:`foot_slip`; jump_threshold [rad] for :func:`joint_jumps`;
    limit_tolerance [rad] for :func:`joint_limit_violations`.
    """
    m = robot_motion
    check_motion(m, robot)
    clearance = ground_clearance(robot, m.qpos)  # the one kinematics pass every metric shares
    pose = clearance.pose
    slip = foot_slip(
        m,
        robot,
        pose=pose,
        feet_lowest=clearance.of_bodies(robot, robot.feet),
        contact_height=contact_height,
        contact_max_speed=contact_max_speed,
        contact_min_frames=contact_min_frames,
    )
    pen = ground_penetration(m, robot, lowest=clearance.overall())
    trunk = trunk_motion(m, robot, pose=pose)
    lim = joint_limit_violations(m, robot, tolerance=limit_tolerance)
    track = keypoint_tracking(m, robot, pose=pose)
    cslip = contact_slip(m, robot, clearance=clearance)
    selfc = self_collision(m, robot, pose=pose)
    body = body_penetration(m, robot, pose=pose, lowest_geoms=clearance.overall())
    speed = joint_speed(m)
    nan = float("nan")
    return QualityReport(
        num_frames=m.num_frames,
        duration_s=m.num_frames / m.fps,
        foot_slip_mean_cm_s=slip.mean_cm_s,
        foot_slip_max_cm_s=slip.max_cm_s,
        planted_fraction=slip.planted_fraction,
        penetration_p95_cm=pen.p95_cm,
        penetration_max_cm=pen.max_cm,
        jerk_rms_rad_s3=joint_jerk_rms_resampled(m),
        joint_jump_frames=joint_jumps(m, threshold=jump_threshold),
        trunk_tilt_mean_deg=trunk.tilt_mean_deg,
        trunk_tilt_max_deg=trunk.tilt_max_deg,
        roll_rate_deg_s=trunk.roll_rate_deg_s,
        pitch_rate_deg_s=trunk.pitch_rate_deg_s,
        limit_violations=lim.count,
        limit_excess_max_rad=lim.max_excess_rad,
        tracking_error_mean_cm=track.mean_cm if track else nan,
        tracking_error_max_cm=track.max_cm if track else nan,
        contact_slip_cm_s=cslip.mean_cm_s,
        contact_slip_p95_cm_s=cslip.p95_cm_s,
        self_collision_frames=selfc.touching_frames,
        self_collision_deep_frames=selfc.deep_frames,
        self_collision_max_depth_cm=selfc.max_depth_cm,
        floor_penetration_max_cm=body.max_cm,
        floor_penetration_deep_frames=body.deep_frames,
        joint_speed_max_rad_s=speed.max_rad_s,
        fast_joint_frames=speed.fast_frames,
        tracking_error_per_frame_cm=track.per_frame_cm if track else None,
    )


__all__ = [
    "CONTACT_HEIGHT",
    "CONTACT_MAX_SPEED",
    "CONTACT_MIN_FRAMES",
    "JUMP_THRESHOLD",
    "LIMIT_TOLERANCE",
    "MAX_SPEED",
    "BodyPenetration",
    "ContactSlip",
    "FootSlip",
    "JointSpeed",
    "LimitViolations",
    "Penetration",
    "QualityReport",
    "SelfCollision",
    "TrackingError",
    "TrunkMotion",
    "body_angular_velocity",
    "body_penetration",
    "contact_slip",
    "evaluate",
    "foot_slip",
    "ground_penetration",
    "joint_jerk_rms",
    "joint_jerk_rms_resampled",
    "joint_jumps",
    "joint_limit_violations",
    "joint_speed",
    "keypoint_tracking",
    "self_collision",
    "trunk_motion",
]
