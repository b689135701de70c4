"""The walking controller: gait planner, CoM planner (MPC), gait feedback and whole-body QP, in
the rates of Hopkins et al. 2024: planner and MPC at ``plan_rate`` (125 Hz), the QP at
``control_rate`` (500 Hz).

At each planner tick the CoM error e (measured minus reference) drives the gait feedback; the
planner advances by kappa dt under the adjusted command; the footstep plan of the next
``preview`` seconds (with the step adjustment) goes to the MPC, which starts from the reference
CoM state pulled towards the measured one at ``follow_rate``; its CoM trajectory is the QP's
CoM target until the next planner tick. The preview follows the gait clock: a phase the time
scaling slows is previewed as long as it will last, and a strafing command too fast for the
style's cycle can run the clock faster at the same speed (``sideways_reach``, off by default).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import mujoco
import numpy as np

from ..gait.footsteps import GaitBody, Pose2, min_separation, wrap_angle
from ..gait.phase import PhaseMap
from ..gait.planner import Planner
from ..gait.robot_table import RobotGait
from ..gait.style import Style
from ..robots.robot import Robot
from ..sim.model import TorqueModel
from .backstep import back_step_shift
from .capture import Recovery
from .config import ControlConfig
from .feedback import FeedbackState, GaitFeedback
from .footholds import FootholdMoves
from .gate import liftoff_cap
from .mpc import MpcPlan, solve_mpc
from .preview import SupportPhase, phase_duration, preview, step_axis, time_to_touchdown
from .stance import SpeedStance, ankle_shortfall, lag_step
from .stepping import CaptureStepper
from .support import ankle_sole, clamp_width, contact_points, reach_share, sideways_pace, support_polygon
from .targets import Frame, FrameMaker, nlerp, quat_velocity
from .touchdown import TouchdownWatch
from .wbc import WbcOutput, WbcTargets, WholeBody


def swing_progress(phase: float, timing: np.ndarray) -> np.ndarray:
    """Share of each foot's swing done at a phase (cycle time based). Shape: (2,)."""
    tau = PhaseMap(timing).time(phase)
    ltd, rlo, rtd = float(timing[0]), float(timing[1]), float(timing[2])
    return np.array([min(1.0, tau / ltd), min(1.0, max(0.0, (tau - rlo) / (rtd - rlo)))])


def stretch_first(phases: list[SupportPhase], kappa: float) -> list[SupportPhase]:
    """The preview with its current phase lasting 1/kappa times longer (later phases shifted)."""
    extra = phases[0].end * (1.0 / kappa - 1.0)
    first = dataclasses.replace(phases[0], end=phases[0].end + extra)
    return [first] + [dataclasses.replace(ph, start=ph.start + extra, end=ph.end + extra) for ph in phases[1:]]


@dataclass
class PlanTick:
    """What one planner tick decided (for the log).

    Attributes:
        frame: the reference frame reached at the end of the tick.
        feedback: the gait feedback's output.
        command: the adjusted command [vx, vy, yaw rate].
        com_ref: reference CoM position and velocity at the tick [m, m/s]. Shape: (2, 2).
        cop: the MPC's CoP now [m]. Shape: (2,).
        mpc_solved: whether the MPC's QP solved.
    """

    frame: Frame
    feedback: FeedbackState
    command: np.ndarray
    com_ref: np.ndarray
    cop: np.ndarray
    mpc_solved: bool


class GaitController:
    """Planner + MPC + feedback + whole-body QP for one robot, style and torque model."""

    def __init__(
        self, style: Style, robot: Robot, rg: RobotGait, tm: TorqueModel, posture: np.ndarray, config: ControlConfig
    ) -> None:
        self.cfg = config
        self.rg = rg
        self.planner = Planner(style, rg.body)
        points = contact_points(rg, config.contact_margin)
        width = rg.body.foot_spacing + config.max_step_width
        self.maker = FrameMaker(robot, rg, posture, points, width)
        self.recovery = Recovery(config.capture, tm.mass, 1.0 / config.plan_rate, self.maker)
        self.stepper = CaptureStepper(config.stepping)
        m = tm.model
        self.feet = (robot.body_id(rg.feet[0]), robot.body_id(rg.feet[1]))
        self.pelvis = robot.body_id(rg.pelvis_body)
        self.watch = TouchdownWatch(points, self.feet)
        self.wbc = WholeBody(
            m, act_dof=tm.act_dof, torque_limit=tm.torque_limit, feet=self.feet, pelvis=self.pelvis,
            points=points, upper=6 + rg.joints, config=config.wbc,
        )  # fmt: skip
        self.gravity = float(np.linalg.norm(m.opt.gravity))
        self.dt_plan = 1.0 / config.plan_rate
        self.sub = round(config.control_rate / config.plan_rate)
        self._jac = np.zeros((3, m.nv))
        self.m = m
        self.mass = tm.mass
        self.floor = tm.floor_geom
        self.external = np.zeros(3)
        self.contact_sum = np.zeros(2)
        self.height = 0.0
        self.feedback: GaitFeedback | None = None
        self.plan: MpcPlan | None = None
        self.plan_time = 0.0
        self.com_ref = np.zeros((2, 2))
        self.prev: Frame | None = None
        self.next: Frame | None = None
        self.time = 0.0
        self.phases: list[SupportPhase] = []
        self._standing: list[Pose2 | None] | None = None
        self._vel: tuple[np.ndarray, np.ndarray] = (np.zeros((2, 6)), np.zeros(3))
        self._lag_prev = np.zeros(2)
        self._lag_foot = -1  # the swinging foot whose lag step is decided
        self.moves = FootholdMoves()  # the CoM planner's move of the coming foothold (footholds.py)

    def com_state(self, d: mujoco.MjData) -> np.ndarray:
        """Measured horizontal CoM [[x, x'], [y, y']] (kinematics computed). Shape: (2, 2)."""
        mujoco.mj_jacSubtreeCom(self.m, d, self._jac, 1)
        v = self._jac[:2] @ d.qvel
        return np.stack([d.subtree_com[1, :2], v], axis=1)

    def start(self, d: mujoco.MjData, command: np.ndarray) -> None:
        """First frame from the standing state in ``d`` (kinematics computed)."""
        self.height = float(d.subtree_com[1, 2])
        self.feedback = GaitFeedback(self.cfg.feedback, dt=self.dt_plan, omega=math.sqrt(self.gravity / self.height))
        self.recovery.omega = self.feedback.omega
        ref = self.planner.step(tuple(command), 0.0)
        self.next = self.maker.frame(ref, np.zeros(2), np.zeros(2))
        self.com_ref = self.com_state(d)

        def sole(share: float) -> GaitBody:  # the soles where ``share`` of the ankle motors hold the weight
            return ankle_sole(self.m, d, self.rg, self.feet, self.wbc.act_dof, self.wbc.limit,
                              self.mass * self.gravity, share=share)  # fmt: skip

        self.cop_body = sole(self.cfg.wbc.ankle_share)
        self.stance = SpeedStance(self.cfg.stance, self.rg.body, ankle_shortfall(self.rg.body, sole(1.0)))
        share = self.cfg.stance.ankle_share
        # the soles the ankle motors hold, for the CoM planner while the speed stance constrains the QP
        self._held = self.cop_body if share <= 0 else sole(share)
        self.cop = self.com_ref[:, 0].copy()

    def qp_constrained(self) -> bool:
        """Whether the whole-body QP runs with hard contacts and torque limits this tick: while the
        speed stance constrains it (stance.SpeedStance.constrained) and while the push recovery is
        engaged with ``WbcConfig.push_constraints``."""
        return self.stance.constrained or (self.wbc.cfg.push_constraints and self.recovery.engaged)

    def standing_feet(self, d: mujoco.MjData) -> list[Pose2 | None]:
        """Measured planar sole poses (x, y, yaw) of the feet the plan has on the floor."""
        out: list[Pose2 | None] = []
        for f, body in enumerate(self.feet):
            if not self.planner.contacts[f]:
                out.append(None)
                continue
            R = d.xmat[body].reshape(3, 3)
            p = d.xpos[body] + R @ self.rg.sole_pos[f]
            # rounded to 0.5 mm / 1 mrad: the support polygons of a foot that stands still are reused
            out.append((round(float(p[0]) * 2000) / 2000, round(float(p[1]) * 2000) / 2000,
                        round(math.atan2(R[1, 0], R[0, 0]), 3)))  # fmt: skip
        return out

    def _phases(self, command: tuple[float, float, float], step: np.ndarray, delay: float) -> list[SupportPhase]:
        """The preview's support phases with the step adjustment on the footholds still to come; a
        moved foothold keeps the feet apart and within reach of the foot it lands beside
        (support.clamp_width, as the frame maker does for the swinging foot)."""
        phases = preview(self.planner, self.maker.offset, command, self.cfg.mpc.preview, self._standing,
                         self.maker.max_width)  # fmt: skip
        out: list[SupportPhase] = []
        raw_prev: list[Pose2 | None] = [None, None]
        moved_prev: list[Pose2 | None] = [None, None]
        body, fix = self.rg.body, self.maker.sideways != 0.0  # smooth_reach, strafing
        for i, ph in enumerate(phases):
            feet = list(ph.feet)
            # a foot that keeps its moved foothold first: the other one is limited against it (smooth_reach)
            keep = [fix and raw_prev[f] == ph.feet[f] and moved_prev[f] is not None for f in range(2)]
            for f in sorted(range(2), key=lambda f: not keep[f]):
                if not ph.landed[f]:
                    continue
                kept = moved_prev[f]
                if raw_prev[f] == ph.feet[f] and kept is not None:
                    feet[f] = kept
                    continue
                x, y, yaw = ph.feet[f][0] + step[0], ph.feet[f][1] + step[1], ph.feet[f][2]
                other = feet[1 - f] if ph.contacts[1 - f] else None
                if other is not None:
                    need = min_separation(body, wrap_angle(yaw - other[2]))
                    x, y = clamp_width((x, y), other, 1 if f == 0 else -1, self.maker.max_width, need)
                feet[f] = (x, y, yaw)
            for f in range(2):
                raw_prev[f], moved_prev[f] = ph.feet[f], feet[f]
            start = 0.0 if i == 0 else ph.start + delay
            out.append(SupportPhase(start, ph.end + delay, tuple(feet), ph.contacts, ph.landed))  # type: ignore[arg-type]
        return out

    def plan_tick(self, d: mujoco.MjData, command: np.ndarray) -> PlanTick:
        """Advance the planner by one tick from the measured state in ``d``."""
        assert self.feedback is not None and self.next is not None
        meas = self.com_state(d)
        self._standing = self.standing_feet(d)
        if self.plan is not None:
            x, v, _ = self.plan.com_at(self.time - self.plan_time)
            self.com_ref = np.stack([x, v], axis=1)
        e, ed = meas[:, 0] - self.com_ref[:, 0], meas[:, 1] - self.com_ref[:, 1]
        self._observe(meas[:, 1], d)
        timing = self.planner.sampler.sample(tuple(command)).timing
        self.planner.body = self.stance.update(float(command[0]), timing)  # lower, narrower at speed (stance.py)
        pace = self._pace(command, timing)
        stride = reach_share(self.maker.max_width, self.rg.body, float(command[1]), timing)
        self.maker.sideways = float(command[1]) if stride > self.cfg.smooth_reach else 0.0  # targets.FrameMaker
        settling = self.time < self.cfg.settle_time - 1e-9
        late = self.watch.waiting if self.cfg.late_touchdown else np.zeros(2, dtype=bool)
        if settling:
            fb = FeedbackState(1.0, np.zeros(2), np.zeros(2), False, False, False)
        else:
            axis = step_axis(self.phases) if self.phases else np.zeros(2)
            single = not all(self.planner.contacts)
            duration = phase_duration(self.planner.phase, timing)
            fb = self.feedback.update(e, ed, axis, duration, single, time_to_touchdown(self.phases))
            if pace > 1.0:
                fc = self.cfg.feedback
                lo = fc.single_support_limits[0] if single else fc.double_support_limits[0]
                fb = dataclasses.replace(fb, kappa=min(fb.kappa * pace, 2.0, max(fb.kappa, duration / lo)))
            if late.any() and fb.kappa > self.cfg.late_kappa:
                fb = dataclasses.replace(fb, kappa=self.cfg.late_kappa, time_engaged=True)
            cap = self._gate(meas, timing, command) * pace
            if fb.kappa > cap:
                fb = dataclasses.replace(fb, kappa=cap, time_engaged=True)
        fb = self.recovery.follow(fb, meas[:, 1], command, self.next.yaw)
        yaw = self.next.yaw
        c, s = math.cos(yaw), math.sin(yaw)
        dv = fb.velocity
        cmd = np.array([command[0] + c * dv[0] + s * dv[1], command[1] - s * dv[0] + c * dv[1], command[2]])
        cmd = cmd / pace  # the clock runs pace times faster: the same speed in real time
        # MPC at time t from the reference state pulled towards the measurement
        a = 1.0 - math.exp(-self.cfg.follow_rate * self.dt_plan)
        x0 = self.recovery.bound(self.com_ref + a * (meas - self.com_ref), meas)
        w2 = self.gravity / self.height
        lean = self.external[:2] / (self.mass * w2)  # where a steady push moves the CoP [m]
        step = fb.step + lean
        if not settling:
            lag = self._lag(meas, command, timing, pace) + back_step_shift(self, command, timing, pace)  # backstep.py
            step = step + lag
            if lag.any():  # the log shows it as step adjustment
                fb = dataclasses.replace(fb, step=fb.step + lag, step_engaged=True)
        n = float(np.linalg.norm(step))
        if n > self.cfg.feedback.max_step:
            step = step * (self.cfg.feedback.max_step / n)
        step = step + self.recovery.anchor
        if not settling:  # footholds and step timing from the DCM while a push is engaged (stepping.py)
            step, fb = self.stepper.step(self, meas, tuple(cmd), step, fb)
        phases = self._phases(tuple(cmd), step, max(0.0, self.cfg.settle_time - self.time))
        if pace > 1.0:
            phases = [dataclasses.replace(ph, start=ph.start / pace, end=ph.end / pace) for ph in phases]
        ph = phases[0]
        contacts = tuple(ph.contacts[f] and not late[f] for f in range(2))
        if late.any() and any(contacts):  # the current support: the feet that are on the floor
            phases[0] = SupportPhase(ph.start, ph.end, ph.feet, contacts, ph.landed)  # type: ignore[arg-type]
        if self.cfg.scaled_preview and not settling and (fb.kappa < pace or self.stepper.active):
            phases = stretch_first(phases, fb.kappa / pace)
        hold = self.stepper.hold
        phases = hold.preview(self, phases)  # the held double support alone while a side push is held (hold.py)
        self.phases = phases
        cop_body = self._held if self.stance.constrained else self.cop_body  # the soles the ankles hold at speed
        poly = support_polygon(list(phases[0].feet), list(phases[0].contacts), cop_body, self.cfg.mpc.margin)
        cop_now = self.plan.cop_at(self.time - self.plan_time) if self.plan is not None else x0[:, 0]
        cop_now = poly.project(cop_now)
        plan = solve_mpc(phases, x0, cop_now, body=cop_body, height=self.height, gravity=self.gravity,
                         config=self.cfg.mpc, offset=lean, lean=hold.cfg.lean if hold.braced else 0.0,
                         goal=hold.goal, free_start=hold.braced and hold.cfg.free_cop,
                         steps=None if settling else self.moves.freedom(self, phases, command, fb))  # fmt: skip
        solved = plan.status == "solved"
        if solved:
            self.plan, self.plan_time = plan, self.time
            self.com_ref = x0
        moved = self.moves.landing(phases, plan if solved else None)
        if moved.any():  # the CoM planner's move of the coming foothold (footholds.py), logged as step adjustment
            step = step + moved
            fb = dataclasses.replace(
                fb,
                step=fb.step + moved,
                step_engaged=fb.step_engaged or bool(np.linalg.norm(moved) > self.cfg.mpc.step_logged),
            )
        # the reference frame at t + dt
        ref = self.planner.step(tuple(cmd), 0.0 if settling else fb.kappa * self.dt_plan)
        timing = self.planner.sampler.sample(tuple(cmd)).timing
        self.prev = self.next
        self.next = self.maker.frame(ref, swing_progress(self.planner.phase, timing), step)
        self.time += self.dt_plan
        com_ref = np.stack([self.com_ref[:, 0], self.com_ref[:, 1]], axis=1)
        return PlanTick(self.next, fb, cmd * pace, com_ref, cop_now, solved)

    def _lag(self, meas: np.ndarray, command: np.ndarray, timing: np.ndarray, pace: float) -> np.ndarray:
        """The lag step's foothold shift (2,) [m] (stance.lag_step, StanceConfig.shorten): in single
        support, on a robot whose ankles cannot hold the toe, the coming foothold moves back by
        ``shorten`` times its lag (at most the length of the sole the ankle motors hold), decided
        once 1/w before touch-down and held until the foot lands."""
        gain = self.cfg.stance.shorten
        idle = gain <= 0 or self.stance.shortfall <= 0 or self.recovery.engaged
        single = bool(self.phases) and sum(self.phases[0].contacts) == 1
        if idle or not single or self._standing is None:
            self._lag_prev, self._lag_foot = np.zeros(2), -1
            return self._lag_prev
        first = self.phases[0]
        f = 0 if not first.contacts[0] else 1
        if self._lag_foot == f:  # decided for this swing: held until touch-down
            return self._lag_prev
        omega = self.feedback.omega  # type: ignore[union-attr]
        to_td = time_to_touchdown(self.phases)
        stand = self._standing[1 - f]
        land = next((ph.feet[f] for ph in self.phases[1:] if ph.landed[f]), None)
        if stand is None or land is None or to_td > 1.0 / omega:
            return self._lag_prev
        yaw = self.next.yaw  # type: ignore[union-attr]
        heading = math.copysign(1.0, float(command[0])) * np.array([math.cos(yaw), math.sin(yaw)])
        cop = self.plan.cop_at(self.time - self.plan_time) if self.plan is not None else meas[:, 0]
        lag = lag_step(cp=meas[:, 0] + meas[:, 1] / omega, cop=cop, omega=omega, to_touchdown=to_td,
                       standing=np.array(stand[:2]), foothold=np.array(land[:2]), heading=heading,
                       step_time=float(timing[3]) / (2.0 * pace))  # fmt: skip
        lag = min(lag, self._held.toe - self._held.heel)  # at most one held sole: the CoM overruns more
        self._lag_prev, self._lag_foot = -gain * lag * heading, f
        return self._lag_prev

    def _pace(self, command: np.ndarray, timing: np.ndarray) -> float:
        """The gait clock's rate for a sideways command (support.sideways_pace)."""
        fc = self.cfg.feedback
        return sideways_pace(self.cfg.sideways_reach, self.maker.max_width, self.rg.body, float(command[1]), timing,
                             (fc.single_support_limits[0], fc.double_support_limits[0]))  # fmt: skip

    def _observe(self, velocity: np.ndarray, d: mujoco.MjData) -> None:
        """Update the push estimate from the CoM velocity and the floor's force (capture.py)."""
        force = self.recovery.floor_force(self.m, d, self.floor, self.contact_sum / self.sub)
        self.external = self.stepper.external(self, self.recovery.observe(velocity, force))
        self.contact_sum = np.zeros(2)

    def _gate(self, meas: np.ndarray, timing: np.ndarray, command: np.ndarray) -> float:
        """The lift-off gate's cap on kappa (gate.py) under a command [vx, vy, yaw rate]."""
        if not all(self.planner.contacts) or self._standing is None or None in self._standing:
            return 1.0
        gate = self.cfg.gate
        if gate.lateral_per_speed > 0 and command[1] != 0:
            gate = dataclasses.replace(gate, lateral=gate.lateral + gate.lateral_per_speed * abs(float(command[1])))
        cp = meas[:, 0] + meas[:, 1] / self.feedback.omega  # type: ignore[union-attr]
        return liftoff_cap(cp, self.planner.phase, timing, self._standing, self.rg.body, gate)  # type: ignore[arg-type]

    def control_tick(self, d: mujoco.MjData, k: int) -> WbcOutput:
        """Torques at control sub-tick k (0..sub-1) of the current planner interval."""
        assert self.prev is not None and self.next is not None and self.plan is not None
        a, b = self.prev, self.next
        s = (k + 1) / self.sub
        dt = self.dt_plan
        t_plan = self.time - self.dt_plan + (k + 1) * dt / self.sub - self.plan_time
        x, v, acc = self.plan.com_at(t_plan)
        if k == 0:  # velocities are constant over the planner interval
            fv = np.zeros((2, 6))
            fv[:, :3] = (b.foot_pos - a.foot_pos) / dt
            for f in range(2):
                fv[f, 3:] = quat_velocity(a.foot_quat[f], b.foot_quat[f], dt)
            self._vel = (fv, quat_velocity(a.pelvis_quat, b.pelvis_quat, dt))
        fv, omega = self._vel
        contacts = b.contacts
        foot_pos = a.foot_pos + s * (b.foot_pos - a.foot_pos)
        if self.cfg.late_touchdown:
            late = self.watch.update(d, b.contacts)
            if late.any():
                contacts = b.contacts & ~late
                foot_pos = foot_pos.copy()
                foot_pos[late, 2] -= self.cfg.late_descent
                fv = fv.copy()
                fv[late] = 0.0
        tg = WbcTargets(
            foot_pos=foot_pos,
            foot_quat=nlerp(a.foot_quat, b.foot_quat, s),
            foot_vel=fv,
            contacts=contacts,
            points=b.points,
            pelvis_quat=nlerp(a.pelvis_quat, b.pelvis_quat, s),
            pelvis_omega=omega,
            height=np.array([a.height + s * (b.height - a.height), (b.height - a.height) / dt]),
            com=np.stack([x, v, acc]),
            joints=a.joints + s * (b.joints - a.joints),
            external=self.external,
            constrained=self.qp_constrained(),
        )
        out = self.wbc.solve(d, tg)
        self.contact_sum += out.foot_force[:, :2].sum(axis=0)
        return out
