"""The CoM planner: a linear inverted pendulum MPC over centre-of-pressure waypoints.

After Hopkins et al. 2024 (appendix A): the horizontal CoM obeys x'' = w^2 (x - p) with
w = sqrt(g / z) at the nominal CoM height z (the angular-momentum torques are left to the
whole-body controller). The CoP p is piecewise linear between waypoints p_0..p_N at node times
tau_0 = 0 < ... < tau_N = preview; nodes sit every ``node_dt`` and on every contact event, so each
segment lies in one support phase. Decision variables: the waypoints (x then y) and the final
CoM state xi_T = (x_T, x'_T) per axis. The initial state is tied to the final one by the exact
solution of the pendulum integrated *backwards* (contracting the diverging mode, so the map is
well conditioned over a 2 s preview)::

    min  w_T |x_T + x'_T / w - c_T|^2 + w_c sum |p_n - c_n|^2 + w_v sum |p_{n+1} - p_n|^2
    s.t. p_0 = p_now,   (x_0, x'_0)(xi_T, p) = measured initial state,   A_n p_n <= b_n (n >= 1)

c_T: centre of the last support polygon with both feet on their last previewed footholds (the
capture point ends where the robot could stop on both feet; a single foot's centre as the target
switches sides as the preview's end moves through the phases and made the receding-horizon
plans oscillate and diverge in tests),
c_n: centre of each node's support polygon, A_n p_n <= b_n: the node inside the polygons of the
phases on both sides of it. Solved with the project's QP wrapper (daqp), with the final state
eliminated: the initial capture point is cp_0 = exp(-w T) cp_T + r' p (the capture point is the
pendulum's diverging mode; r from the backward map), so the terminal term becomes
|r' p - cp_0 + exp(-w T) c_T|^2, weighted by ``terminal_weight`` (the paper's W_T times
exp(-2 w T)); the final state's converging part carries no cost and drops out. This keeps the QP
well conditioned where the literal form (entries ~exp(w T) ~ 10^3) made daqp return poor solutions.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError
from ..gait.footsteps import GaitBody
from ..optim.qp import solve_qp
from .landings import Landings, StepFreedom, find_landings, separation_rows
from .preview import SupportPhase
from .support import support_polygon

STEP_WHEN = ("always", "push", "sway")  # MpcConfig.step_when


@dataclass(frozen=True)
class MpcConfig:
    """Settings of the CoM planner.

    Attributes:
        preview: preview window [s].
        node_dt: largest spacing of CoP waypoints [s].
        min_gap: nodes closer than this to a contact event are merged into it [s].
        terminal_weight: weight on the final capture point's distance from c_T, discounted by
            exp(-w T) (the form in which the QP is solved, see below) [1/m^2].
        centre_weight: weight on each waypoint's distance from its support centre [1/m^2].
        smooth_weight: weight on waypoint differences [1/m^2].
        margin: the support polygons' inward margin from the sole edges [m].
        step_weight: cost of moving a previewed foothold [1/m^2] (landings.py; 0: the footholds
            are fixed, the plan's CoP moves within them).
        step_reach: largest such move along x and along y [m].
        step_width: how much further sideways than the planner's own limit (ControlConfig.max_step_width)
            a moved foothold may lie from the other foot [m].
        step_logged: a move larger than this shows in the log as step adjustment [m].
        step_strafing: the footholds move also under a sideways command.
        step_turning: ...and under a sideways command while turning (a yaw rate command).
        step_when: when the footholds are free (with ``step_weight`` > 0): "always" (every tick),
            "push" (while the push recovery is engaged, capture.py, and for ``step_hold`` after)
            or "sway" (as "push", and also while the gait feedback's step adjustment is at least
            ``step_demand`` of its cap, FeedbackConfig.max_step).
        step_demand: see ``step_when``.
        step_push: "push" frees them only while the push estimate (its 20 Hz twin,
            CaptureConfig.fast_hz) is at least this [N/kg].
        step_hold: how long they stay free after the last tick that asked for it [s].
        walk_weight: outside those times ("push" or "sway"), the footholds are free at this cost
            instead [1/m^2] (0: fixed then).
    """

    preview: float = 2.0
    node_dt: float = 0.1
    min_gap: float = 0.02
    terminal_weight: float = 1e6
    centre_weight: float = 1.0
    smooth_weight: float = 10.0
    margin: float = 0.008
    step_weight: float = 100.0
    step_reach: float = 0.15
    step_width: float = 0.0
    step_logged: float = 0.01
    step_strafing: bool = False
    step_turning: bool = True
    step_when: str = "push"
    step_demand: float = 0.8
    step_push: float = 1.0
    step_hold: float = 2.5
    walk_weight: float = 300.0

    def __post_init__(self) -> None:
        if not 0.5 <= self.preview <= 5.0:
            raise ConfigError(f"MpcConfig.preview must be in [0.5, 5] s, got {self.preview}")
        if not 0.02 <= self.node_dt <= 0.5:
            raise ConfigError(f"MpcConfig.node_dt must be in [0.02, 0.5] s, got {self.node_dt}")
        if min(self.step_weight, self.step_reach, self.step_hold, self.step_push, self.walk_weight) < 0:
            raise ConfigError("MpcConfig.step_weight, step_reach, step_hold, step_push and walk_weight must be >= 0")
        if self.step_when not in STEP_WHEN:
            raise ConfigError(f"MpcConfig.step_when must be one of {', '.join(STEP_WHEN)}, got {self.step_when!r}")
        if not 0.0 <= self.step_demand <= 1.0:
            raise ConfigError(f"MpcConfig.step_demand must be in [0, 1], got {self.step_demand}")


@dataclass(frozen=True)
class MpcPlan:
    """A solved preview.

    Attributes:
        times: node times from the solve [s]. Shape: (N + 1,).
        cop: CoP waypoints [m]. Shape: (N + 1, 2).
        offset: the push offset d the plan was solved with [m]. Shape: (2,).
        state: initial CoM state rows (x, x') per axis (x, y) [m, m/s]. Shape: (2, 2).
        omega: pendulum frequency sqrt(g / z) [1/s].
        status: the QP's status ("solved" when it is).
        steps: the shift of each previewed landing chosen by the plan [m] (landings.py; none when
            the footholds are fixed). Shape: (J, 2).
        landings: which foot each shift moves, in order of touch-down, or None.
    """

    times: np.ndarray
    cop: np.ndarray
    offset: np.ndarray
    state: np.ndarray
    omega: float
    status: str
    steps: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    landings: Landings | None = None

    def cop_at(self, t: float) -> np.ndarray:
        """CoP [m] at t [s] after the solve (linear between waypoints). Shape: (2,)."""
        return np.array([np.interp(t, self.times, self.cop[:, 0]), np.interp(t, self.times, self.cop[:, 1])])

    def com_at(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CoM position, velocity, acceleration [m, m/s, m/s^2] at t [s] after the solve (exact
        pendulum motion inside the first segments). Shapes: (2,) each."""
        w = self.omega
        x, v = self.state[:, 0].copy(), self.state[:, 1].copy()
        cop = self.cop - self.offset
        k = 0
        t0 = 0.0
        while k < len(self.times) - 2 and self.times[k + 1] <= t:
            x, v = _forward(x, v, cop[k], cop[k + 1], self.times[k + 1] - self.times[k], w)
            t0 = self.times[k + 1]
            k += 1
        d = self.times[k + 1] - self.times[k]
        h = t - t0
        s = (cop[k + 1] - cop[k]) / d
        p = cop[k] + s * h
        y0, yd0 = x - cop[k], v - s
        ch, sh = math.cosh(w * h), math.sinh(w * h)
        y, yd = y0 * ch + yd0 / w * sh, y0 * w * sh + yd0 * ch
        return p + y, s + yd, w * w * y


def _forward(x: np.ndarray, v: np.ndarray, p0: np.ndarray, p1: np.ndarray, d: float, w: float) -> tuple:
    s = (p1 - p0) / d
    y0, yd0 = x - p0, v - s
    ch, sh = math.cosh(w * d), math.sinh(w * d)
    return p1 + y0 * ch + yd0 / w * sh, s + y0 * w * sh + yd0 * ch


def node_times(phases: list[SupportPhase], cfg: MpcConfig) -> np.ndarray:
    """Node times: every contact event inside the preview, filled to at most node_dt apart. Shape: (N + 1,)."""
    events = [ph.end for ph in phases if ph.end < cfg.preview - cfg.min_gap]
    marks = [0.0, *events, cfg.preview]
    out = [0.0]
    for a, b in itertools.pairwise(marks):
        if b - a < 1e-9:
            continue
        k = max(1, math.ceil((b - a) / cfg.node_dt - 1e-9))
        out.extend(a + (b - a) * np.arange(1, k + 1) / k)
    return np.array(out)


def backward_map(times: np.ndarray, w: float) -> np.ndarray:
    """Rows giving the initial state (x_0, x'_0) of one axis from [x_T, x'_T, p_0..p_N] by the
    pendulum integrated backwards over the piecewise-linear CoP. Shape: (2, 2 + N + 1).

    Segment k maps (x_{k+1}, x'_{k+1}, p_k, p_{k+1}) to (x_k, x'_k) through a 2x2 transition T_k
    and two CoP columns E_k; so G = P_N [I 0] + sum_k P_k E_k with P_k = T_0 ... T_{k-1}."""
    n = len(times) - 1
    d = np.diff(times)
    ch, sh = np.cosh(w * d), np.sinh(w * d)
    # E_k columns: effect of p_k and p_{k+1} on (x_k, x'_k)
    e0 = np.stack([1.0 - sh / (w * d), (ch - 1.0) / d], axis=1)  # (n, 2)
    e1 = np.stack([-ch + sh / (w * d), 1.0 / d + w * sh - ch / d], axis=1)
    P = np.empty((n + 1, 2, 2))
    a, b, c, e = 1.0, 0.0, 0.0, 1.0
    for k in range(n):
        P[k] = ((a, b), (c, e))
        t00, t01, t10, t11 = ch[k], -sh[k] / w, -w * sh[k], ch[k]
        a, b, c, e = a * t00 + b * t10, a * t01 + b * t11, c * t00 + e * t10, c * t01 + e * t11
    P[n] = ((a, b), (c, e))
    G = np.zeros((2, 2 + n + 1))
    G[:, :2] = P[n]
    G[:, 2 : 2 + n] += np.einsum("kij,kj->ik", P[:n], e0)
    G[:, 3 : 3 + n] += np.einsum("kij,kj->ik", P[:n], e1)
    return G


def solve_mpc(
    phases: list[SupportPhase],
    state: np.ndarray,
    cop_now: np.ndarray,
    *,
    body: GaitBody,
    height: float,
    gravity: float,
    config: MpcConfig,
    offset: np.ndarray | None = None,
    lean: float = 0.0,
    goal: np.ndarray | None = None,
    free_start: bool = False,
    steps: StepFreedom | None = None,
) -> MpcPlan:
    """Solve the preview from the CoM state (2, 2) [[x, x'], [y, y']] and the current CoP (2,).
    ``offset`` d [m] (2,): a constant horizontal force F on the CoM (an estimated push), as
    x'' = w^2 (x - p + d) with d = F / (m w^2); the pendulum is solved in p' = p - d, whose
    polygons are the support polygons moved by -d. The plan's ``cop`` is p'. ``lean``: share of d
    by which the CoP targets (support centres and the final capture point's) move with the push
    (0: the CoP at the centres, the CoM leaning into the push by d; 1: the CoM over the centres,
    the CoP taking the push). ``goal`` (2,) [m]: one target point for them instead of the centres
    (hold.py moves the CoM onto a foot with it). ``free_start``: the first waypoint is free within
    the current support instead of fixed at ``cop_now`` (hold.py, HoldConfig.free_cop).
    ``steps``: the previewed footholds the plan may move (landings.py; None: fixed)."""
    cfg = config
    w = math.sqrt(gravity / height)
    d = np.zeros(2) if offset is None else np.asarray(offset, dtype=np.float64)
    shift = lean * d
    times = node_times(phases, cfg)
    n = len(times) - 1
    polys = [support_polygon(list(ph.feet), list(ph.contacts), body, cfg.margin) for ph in phases]
    ends = np.array([ph.end for ph in phases])
    land = find_landings(phases, free=steps is not None)
    J = land.count
    np_ = n + 1
    nv = 2 * np_ + 2 * J
    ix, iy = np.arange(np_), np_ + np.arange(np_)
    jx, jy = 2 * np_ + np.arange(J), 2 * np_ + J + np.arange(J)
    H = np.zeros((nv, nv))
    g = np.zeros(nv)
    # terminal capture point, with the final state eliminated (module docstring)
    i_final = min(int(np.searchsorted(ends, cfg.preview - 1e-9)), len(phases) - 1)
    final = phases[i_final]
    last = support_polygon(list(final.feet), [True, True], body, cfg.margin)
    w_final = land.final(i_final) if goal is None else np.zeros(J)
    G = backward_map(times, w)
    r = G[0, 2:] + G[1, 2:] / w
    decay = math.exp(-w * (times[-1] - times[0]))
    for a, (idx, jdx) in enumerate(((ix, jx), (iy, jy))):
        cp0 = state[a][0] + state[a][1] / w
        rhs = cp0 - decay * ((last.centre[a] if goal is None else goal[a]) - d[a] + shift[a])
        row = np.zeros(nv)
        row[idx] = r
        row[jdx] = decay * w_final
        H += cfg.terminal_weight * np.outer(row, row)
        g -= cfg.terminal_weight * rhs * row
    # centres and constraints per node: each node lies in the phases on both sides of it
    before = np.minimum(np.searchsorted(ends, times - 1e-6), len(polys) - 1)
    after = np.minimum(np.searchsorted(ends, times + 1e-6), len(polys) - 1)
    cen = np.array([p.centre if goal is None else goal for p in polys]) - d + shift
    centres = 0.5 * (cen[before] + cen[after])
    moves = np.array([land.weights(i, phases[i].contacts) for i in range(len(phases))]).reshape(len(phases), J)
    if goal is not None:
        moves[:] = 0.0
    centre_moves = 0.5 * (moves[before] + moves[after])  # (N + 1, J)
    pairs = [(k, int(before[k])) for k in range(0 if free_start else 1, n + 1)]
    pairs += [(k, int(after[k])) for k in range(1, n + 1) if after[k] != before[k]]
    if J:  # a double support with a moving foot: its nodes beside a single support keep only that one's rectangle
        single = {k for k, i in pairs if sum(phases[i].contacts) == 1}
        pairs = [(k, i) for k, i in pairs if not (sum(phases[i].contacts) == 2 and moves[i].any() and k in single)]
    Acat = np.concatenate([polys[i].A for _, i in pairs])
    bcat = np.concatenate([polys[i].b - polys[i].A @ d for _, i in pairs])
    node = np.concatenate([np.full(len(polys[i].b), k) for k, i in pairs])
    A_in = np.zeros((len(bcat), nv))
    rows = np.arange(len(bcat))
    A_in[rows, ix[node]] = Acat[:, 0]
    A_in[rows, iy[node]] = Acat[:, 1]
    if J:
        phase_of_row = np.concatenate([np.full(len(polys[i].b), i) for _, i in pairs])
        A_in[np.ix_(rows, jx)] = -Acat[:, :1] * moves[phase_of_row]
        A_in[np.ix_(rows, jy)] = -Acat[:, 1:] * moves[phase_of_row]
    D = np.zeros((n, np_))
    D[np.arange(n), np.arange(n)] = -1.0
    D[np.arange(n), np.arange(1, np_)] = 1.0
    DD = cfg.smooth_weight * D.T @ D + cfg.centre_weight * np.eye(np_)
    for idx, jdx, axis in ((ix, jx, 0), (iy, jy, 1)):
        H[np.ix_(idx, idx)] += DD
        g[idx] -= cfg.centre_weight * centres[:, axis]
        if J:  # the centres move with the footholds (p_k - centre_k - M_k delta) and the smoothness
            # counts the CoP's path relative to them (D (p - M delta)): moving the footholds moves the
            # path at no cost, so the plan has no reason to shorten or narrow the steps
            P = cfg.centre_weight * centre_moves + cfg.smooth_weight * D.T @ D @ centre_moves
            H[np.ix_(idx, jdx)] -= P
            H[np.ix_(jdx, idx)] -= P.T
            H[np.ix_(jdx, jdx)] += centre_moves.T @ P
            g[jdx] += cfg.centre_weight * centre_moves.T @ centres[:, axis]
    lo = np.full(nv, -np.inf)
    hi = np.full(nv, np.inf)
    if not free_start:  # the CoP goes on from where it is (else it may jump within the support)
        lo[ix[0]] = hi[ix[0]] = cop_now[0] - d[0]
        lo[iy[0]] = hi[iy[0]] = cop_now[1] - d[1]
    if J:
        assert steps is not None
        H[jx, jx] += steps.weight
        H[jy, jy] += steps.weight
        lo[jx] = lo[jy] = -steps.reach
        hi[jx] = hi[jy] = steps.reach
        if steps.fixed is not None:
            lo[jx[0]] = hi[jx[0]] = steps.fixed[0]
            lo[jy[0]] = hi[jy[0]] = steps.fixed[1]
        sx, sy, sh = separation_rows(phases, land, steps)
        extra = np.zeros((len(sh), nv))
        extra[:, jx], extra[:, jy] = sx, sy
        A_in = np.vstack([A_in, extra])
        bcat = np.concatenate([bcat, sh])
    res = solve_qp(H, g, A=A_in, upper=bcat, x_lower=lo, x_upper=hi)
    cop = np.stack([res.x[ix], res.x[iy]], axis=1)
    return MpcPlan(
        times=times,
        cop=cop + d,
        offset=d.copy(),
        state=np.asarray(state, dtype=np.float64).copy(),
        omega=w,
        status=res.status,
        steps=np.stack([res.x[jx], res.x[jy]], axis=1),
        landings=land if J else None,
    )
