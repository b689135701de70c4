"""Stylized gaits: style files and their validation, splines, phase map, sampler, planner, IK output, CLI."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.interpolate import CubicSpline, PchipInterpolator

from conftest import robot_or_skip
from kinemorph.cli import main
from kinemorph.gait import (
    KEY_SAMPLES,
    Commands,
    GaitBody,
    Planner,
    Sampler,
    StyleError,
    StyleTables,
    load_schedule,
    load_style,
    plan,
    style_from_dict,
    style_names,
    style_to_dict,
)
from kinemorph.gait.footsteps import min_separation, project_out
from kinemorph.gait.phase import PHASE_KNOTS, PhaseMap, knot_times, omega, omega_inverse, omega_rate
from kinemorph.gait.splines import Curve, CurveTable
from kinemorph.gait.style import CURVE_KEYS

STYLES = ("neutral", "relaxed", "injured")
BODY = GaitBody()
ROBOT_FEET = {"unitree_g1": ("left_ankle_roll_link", "right_ankle_roll_link")}
FOREARM_TIPS = {  # a point near the hand in the elbow joint's body frame
    "unitree_g1": {"l": (0.25, 0.0, 0.0), "r": (0.25, 0.0, 0.0)},
    "unitree_h1": {"l": (0.28, 0.0, 0.0), "r": (0.28, 0.0, 0.0)},
    "booster_t1": {"l": (0.0, 0.2, 0.0), "r": (0.0, -0.2, 0.0)},
}


@pytest.fixture(scope="module")
def neutral_raw() -> dict:
    return style_to_dict(load_style("neutral"))


def _refuse(raw: dict, *fragments: str) -> None:
    with pytest.raises(StyleError) as exc:
        style_from_dict(raw, source="test.json")
    for f in fragments:
        assert f in str(exc.value), str(exc.value)


# -- style data -----------------------------------------------------------------------------------
def test_packaged_styles_load_with_all_key_samples() -> None:
    assert set(STYLES) <= set(style_names())
    for name in STYLES:
        style = load_style(name)
        assert [s.name for s in style.ordered()] == list(KEY_SAMPLES)


def test_style_json_round_trip(neutral_raw: dict) -> None:
    again = style_to_dict(style_from_dict(json.loads(json.dumps(neutral_raw))))
    assert again == neutral_raw


def test_unordered_events_are_refused_naming_sample_and_field(neutral_raw: dict) -> None:
    raw = copy.deepcopy(neutral_raw)
    raw["samples"]["turn_left"]["intervals"]["right_swing"] = [0.3, 0.9]  # right liftoff before left touchdown
    _refuse(raw, "test.json", "sample 'turn_left'", "intervals", "events out of order", "right liftoff")


def test_short_double_support_is_refused_in_the_styles_terms(neutral_raw: dict) -> None:
    raw = copy.deepcopy(neutral_raw)
    raw["samples"]["forward_slow"]["intervals"]["right_swing"] = [0.5, 0.96]
    _refuse(
        raw,
        "sample 'forward_slow'",
        "double support 0.04 s is below the minimum 0.08 s between right touchdown and left liftoff",
    )


def test_short_swing_is_refused(neutral_raw: dict) -> None:
    raw = copy.deepcopy(neutral_raw)
    raw["samples"]["standing"]["intervals"]["left_swing"] = [0.0, 0.1]
    _refuse(raw, "sample 'standing'", "intervals.left_swing", "single support 0.1 s is below the minimum 0.15 s")


def test_curve_with_nan_is_refused(neutral_raw: dict) -> None:
    raw = copy.deepcopy(neutral_raw)
    raw["samples"]["forward_fast"]["curves"]["left_foot"]["z"][1][1] = float("nan")
    _refuse(raw, "sample 'forward_fast'", "curves.left_foot.z[1][1]", "not finite")


def test_nan_written_in_a_file_is_refused(tmp_path: Path, neutral_raw: dict) -> None:
    raw = copy.deepcopy(neutral_raw)
    raw["samples"]["backward_slow"]["curves"]["pelvis"]["height"][0][1] = float("nan")
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(raw))  # writes the token NaN, which Python's json reads back
    with pytest.raises(StyleError, match=r"nan.json: sample 'backward_slow': curves.pelvis.height\[0\]\[1\]"):
        load_style(path)


def test_missing_key_sample_is_refused(neutral_raw: dict) -> None:
    raw = copy.deepcopy(neutral_raw)
    del raw["samples"]["strafe_right"]
    _refuse(raw, "samples", "missing key sample 'strafe_right'")


@pytest.mark.parametrize(
    ("sample", "edit", "fragment"),
    [
        (
            "forward_slow",
            lambda s: s["attributes"].update(heel_toe_liftoff=0.5),
            "more than 50% of the left foot's stance",
        ),
        ("forward_slow", lambda s: s["curves"]["left_foot"].update(heel_pitch=[[0, 0.1]]), "heel_pitch must stay in"),
        (
            "forward_slow",
            lambda s: s["curves"]["right_foot"].update(heel_pitch=[[0, -0.2], [1, 0]]),
            "both non-zero at liftoff",
        ),
        ("standing", lambda s: s["curves"]["left_foot"].update(y=[[0.5, 0.02], [1.0, 0.01]]), "clamped to 0"),
        (
            "standing",
            lambda s: s["curves"]["left_foot"].update(z=[[0.1, 0.0], [0.5, 0.08], [0.6, 0.0]]),
            "below the floor",
        ),
        (
            "standing",
            lambda s: s["curves"].setdefault("upper", {}).update(wrist=[[0, 0]]),
            "unknown key 'wrist'; valid: waist_yaw",
        ),
        ("standing", lambda s: s["curves"]["pelvis"].update(yaw=[[0.2, 0.1]]), "first knot must be at u = 0"),
        ("turn_left", lambda s: s.update(velocity=[0.1, 0, 0.5]), "must be [0, 0, yaw rate > 0]"),
        ("forward_fast", lambda s: s["curves"]["left_foot"].update(x=[[0.5, 0.1], [0.4, 0.0]]), "strictly increasing"),
    ],
)
def test_bad_fields_are_refused_naming_the_field(neutral_raw: dict, sample: str, edit, fragment: str) -> None:  # type: ignore[no-untyped-def]
    raw = copy.deepcopy(neutral_raw)
    edit(raw["samples"][sample])
    _refuse(raw, f"sample {sample!r}", fragment)


def test_invalid_json_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "name": "x",\n  "samples": {,\n}')
    with pytest.raises(StyleError, match=r"broken.json:3: invalid JSON"):
        load_style(path)


# -- splines --------------------------------------------------------------------------------------
def test_cycle_curve_is_periodic_c1() -> None:
    c = Curve("cycle", np.array([[0.0, 0.1], [0.3, -0.2], [0.7, 0.05]]))
    spline = CubicSpline(np.array([0, 0.3, 0.7, 1.0]), np.array([0.1, -0.2, 0.05, 0.1]), bc_type="periodic")
    u = np.linspace(0, 1, 101)
    assert np.allclose(c(u), spline(u), atol=1e-12)
    eps = 1e-6
    assert c(0.0) == pytest.approx(c(1.0), abs=1e-12)
    slope0 = (c(eps) - c(0.0)) / eps
    slope1 = (c(1.0) - c(1.0 - eps)) / eps
    assert slope0 == pytest.approx(slope1, abs=1e-4)


def test_swing_curve_is_clamped_to_zero_at_its_ends() -> None:
    c = Curve("swing", np.array([[0.3, 0.05], [0.6, 0.08]]))
    eps = 1e-6
    for end in (0.0, 1.0):
        assert c(end) == pytest.approx(0.0, abs=1e-15)
    assert c(eps) / eps == pytest.approx(0.0, abs=1e-4)
    assert c(1 - eps) / eps == pytest.approx(0.0, abs=1e-4)


def test_pitch_curve_never_overshoots_its_knots() -> None:
    c = Curve("pitch", np.array([[0.0, 0.3], [0.2, 0.0], [0.25, 0.0]]))
    u = np.linspace(0, 1, 1001)
    v = c(u)
    assert v.min() >= 0.0 and v.max() <= 0.3 + 1e-15
    assert np.allclose(v, PchipInterpolator([0, 0.2, 0.25, 1.0], [0.3, 0, 0, 0])(u))


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20))
def test_curve_table_evaluates_each_curve_like_its_spline(us: list[float]) -> None:
    curves = [
        Curve("cycle", np.array([[0.0, 1.0], [0.5, -1.0]])),
        Curve("swing", np.array([[0.2, 0.1], [0.5, 0.3], [0.9, 0.05]])),
        Curve("pitch", np.array([[0.1, -0.3], [0.8, 0.0]])),
        Curve("cycle"),
    ]
    table = CurveTable(curves)
    u = np.array(us)
    got = table.evaluate(np.repeat(u[:, None], len(curves), axis=1))
    for i, c in enumerate(curves):
        x, coef = c.pieces()
        piece = np.minimum(np.searchsorted(x, u, side="right") - 1, len(x) - 2)
        expect = np.array([np.polyval(coef[:, k], v - x[k]) for k, v in zip(piece, u)])
        assert np.allclose(got[:, i], expect, atol=1e-12)


# -- phase map ------------------------------------------------------------------------------------
TIMINGS = st.tuples(st.floats(0.15, 0.5), st.floats(0.08, 0.3), st.floats(0.15, 0.5), st.floats(0.08, 0.3)).map(
    lambda d: np.cumsum(d)
)


@given(TIMINGS)
def test_phase_map_is_scipys_monotone_cubic_through_the_events(timing: np.ndarray) -> None:
    ref = PchipInterpolator(PHASE_KNOTS, knot_times(timing))
    phase = np.linspace(0, 1, 57)
    assert np.allclose(omega(phase, timing), ref(phase), atol=1e-12)
    assert np.allclose(omega_rate(phase[1:-1], timing), ref.derivative()(phase[1:-1]), atol=1e-9)
    pm = PhaseMap(timing)
    assert np.allclose([pm.time(p) for p in phase], ref(phase), atol=1e-12)
    assert np.all(np.diff(ref(phase)) > 0)


@given(TIMINGS, st.floats(0.0, 1.0))
def test_phase_map_inverse_round_trips(timing: np.ndarray, frac: float) -> None:
    t = frac * timing[-1]
    assert float(omega(omega_inverse(t, timing), timing)) == pytest.approx(t, abs=1e-9)
    pm = PhaseMap(timing)
    assert pm.time(pm.phase(t)) == pytest.approx(t, abs=1e-9)


# -- sampler --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", STYLES)
def test_key_velocities_select_their_sample(name: str) -> None:
    style = load_style(name)
    sampler = Sampler(style)
    for i, s in enumerate(style.ordered()):
        w = sampler.weights(s.velocity)
        assert w[i] == pytest.approx(1.0) and w.sum() == pytest.approx(1.0)


@given(st.floats(-1.0, 1.0), st.floats(-0.5, 0.5), st.floats(-1.0, 1.0))
def test_weights_are_a_convex_combination(vx: float, vy: float, wz: float) -> None:
    w = Sampler(load_style("relaxed")).weights((vx, vy, wz))
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0)


@given(st.sampled_from(KEY_SAMPLES), st.sampled_from(KEY_SAMPLES), st.floats(0.0, 1.0))
def test_contact_events_of_a_blend_map_onto_both_samples(a: str, b: str, alpha: float) -> None:
    style = load_style("injured")
    ta, tb = style.samples[a].timing.as_array(), style.samples[b].timing.as_array()
    tab = (1 - alpha) * ta + alpha * tb
    for k in range(4):  # touch-downs, lift-off, cycle end
        phase = omega_inverse(tab[k], tab)
        assert float(omega(phase, ta)) == pytest.approx(ta[k], abs=1e-9)
        assert float(omega(phase, tb)) == pytest.approx(tb[k], abs=1e-9)


def _blend_vector(sampler: Sampler, tables: StyleTables, v: np.ndarray) -> np.ndarray:
    """Every blended parameter at velocity v: timing, attributes, curves at a few phases."""
    p = sampler.sample(v)
    phases = np.array([0.05, 0.3, 0.55, 0.8])
    curves = tables.curves(phases, np.repeat(p.weights[None], len(phases), axis=0))
    return np.concatenate([p.timing, p.attributes, curves.ravel()])


@pytest.mark.parametrize(
    ("point", "direction"),
    [
        ((0.25, 0, 0), (1, 0, 0)),  # crossing forward_slow along vx
        ((0.0, 0, 0), (1, 0, 0)),  # crossing standing
        ((-0.15, 0, 0), (1, 0, 0)),  # crossing backward_slow
        ((0.0, 0, 0), (0, 1, 0)),  # through the origin of the turn/strafe plane
        ((0.0, 0, 0), (0, 0.3, 1)),
        ((0.0, 0.1, 0), (0, 0, 1)),  # crossing the strafe axis (polar angle pi/2)
        ((0.0, 0, 0.3), (0, 1, 0)),  # crossing the turn axis (polar angle 0)
        ((0.3, 0.05, 0.2), (0.5, -1, 2)),  # generic point inside the disc
        ((0.0, 0.2, 0.0), (0, 1, 0)),  # rim of the disc at vx = 0
        ((0.1, -0.05, 0), (0, 0, 1)),  # crossing yaw rate 0 with vx != 0
    ],
)
def test_blended_parameters_are_c1_in_the_velocity(point: tuple, direction: tuple) -> None:  # type: ignore[type-arg]
    style = load_style("neutral")
    sampler, tables = Sampler(style), StyleTables(style)
    v, d = np.array(point, float), np.array(direction, float)
    d /= np.linalg.norm(d)
    h = 1e-4
    f = [_blend_vector(sampler, tables, v + k * h * d) for k in (-1, 0, 1)]
    left, right = (f[1] - f[0]) / h, (f[2] - f[1]) / h
    scale = max(1.0, float(np.abs(left).max()))
    assert np.abs(right - left).max() < 1e-2 * scale  # a kink would jump by O(1)


def test_a_linear_blend_ratio_would_not_be_c1(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above has teeth: with a linear ratio instead of f_soft the slope jumps at a sample."""
    import kinemorph.gait.sampler as sampler_module

    monkeypatch.setattr(sampler_module, "f_soft", lambda a: min(max(a, 0.0), 1.0))
    style = load_style("neutral")
    sampler, tables = Sampler(style), StyleTables(style)
    h = 1e-4
    f = [_blend_vector(sampler, tables, np.array([0.25 + k * h, 0, 0])) for k in (-1, 0, 1)]
    assert np.abs((f[2] - f[1]) / h - (f[1] - f[0]) / h).max() > 0.1


def test_injured_limp_is_asymmetric_slow_and_symmetric_fast() -> None:
    sampler = Sampler(load_style("injured"))
    for v, symmetric in (((0.0, 0, 0), False), ((0.2, 0, 0), False), ((0.6, 0, 0), True)):
        ltd, rlo, rtd, _ = sampler.sample(v).timing
        assert (abs(ltd - (rtd - rlo)) < 1e-9) == symmetric


def test_relaxed_pelvis_and_spine_counter_rotate() -> None:
    style = load_style("relaxed")
    tables = StyleTables(style)
    w = Sampler(style).weights((0.25, 0, 0))
    curves = tables.curves(np.linspace(0, 1, 50, endpoint=False), np.repeat(w[None], 50, axis=0))
    pelvis, spine = curves[:, CURVE_KEYS.index("pelvis.yaw")], curves[:, CURVE_KEYS.index("upper.waist_yaw")]
    assert np.corrcoef(pelvis, spine)[0, 1] < -0.99 and np.ptp(pelvis) > 0.1


# -- planner --------------------------------------------------------------------------------------
SCHEDULE = Commands(
    np.array([0.0, 1.0, 3.0, 4.5, 6.0, 7.5]),
    np.array([[0, 0, 0], [0.3, 0, 0], [0.55, 0, 0.4], [0.2, 0.1, -0.5], [-0.2, 0, 0], [0, -0.15, 0]]),
)


@pytest.fixture(scope="module", params=STYLES)
def schedule_plan(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    return plan(load_style(request.param), SCHEDULE, 9.0, rate=125.0, body=BODY)


def test_standing_feet_do_not_move_in_the_reference(schedule_plan) -> None:  # type: ignore[no-untyped-def]
    slip = schedule_plan.stance_slip(BODY)
    assert slip.max() < 1e-12
    flat = schedule_plan.contacts & (np.abs(schedule_plan.foot_rot[..., 2]) < 1e-15)  # no pitch: whole foot still
    for f in range(2):
        both = flat[1:, f] & flat[:-1, f]
        assert np.abs(np.diff(schedule_plan.foot_pos[:, f], axis=0))[both].max() < 1e-12


def test_swing_feet_never_go_below_the_floor(schedule_plan) -> None:  # type: ignore[no-untyped-def]
    corners = schedule_plan.sole_corners(BODY)[..., 2]
    assert corners.min() > -1e-12
    assert schedule_plan.foot_pos[..., 2][~schedule_plan.contacts].max() > 0.03  # they do lift


def test_feet_alternate_and_never_swing_together(schedule_plan) -> None:  # type: ignore[no-untyped-def]
    c = schedule_plan.contacts
    assert c.any(axis=1).all()
    liftoffs = (c[:-1] & ~c[1:]).sum(axis=0)
    assert liftoffs.min() >= 7 and abs(int(liftoffs[0]) - int(liftoffs[1])) <= 1


def test_feet_on_the_floor_keep_apart(schedule_plan) -> None:  # type: ignore[no-untyped-def]
    """Where both feet stand flat, the one that landed last is at least min_separation to its own
    side of the other, in the other's frame (footholds are projected out of the stance foot)."""
    from kinemorph.transforms import quat_rotate

    ref = schedule_plan
    x_axis = quat_rotate(ref.foot_rot, np.array([1.0, 0, 0]))
    flat = np.abs(x_axis[..., 2]) < 1e-15
    keep = ref.contacts.all(axis=1) & flat.all(axis=1)
    assert keep.sum() > 50
    heading = np.arctan2(x_axis[keep][..., 1], x_axis[keep][..., 0])  # (M, 2)
    p = ref.foot_pos[keep][..., :2]
    need = np.array([min_separation(BODY, a) for a in heading[:, 0] - heading[:, 1]])
    d = p[:, 0] - p[:, 1]
    left_in_right = -np.sin(heading[:, 1]) * d[:, 0] + np.cos(heading[:, 1]) * d[:, 1]
    right_in_left = -np.sin(heading[:, 0]) * d[:, 0] + np.cos(heading[:, 0]) * d[:, 1]  # right foot, to the right
    assert np.all((left_in_right >= need - 1e-9) | (right_in_left >= need - 1e-9))


def test_a_foothold_inside_the_stance_foot_is_projected_out_sideways() -> None:
    stance = (1.0, 2.0, 0.3)
    need = min_separation(BODY, 0.1)
    inside = (1.0 + 0.02 * math.cos(0.3), 2.0 + 0.02 * math.sin(0.3), 0.4)  # 2 cm ahead of the stance foot
    out = project_out(inside, stance, +1, BODY)
    local = -math.sin(0.3) * (out[0] - 1.0) + math.cos(0.3) * (out[1] - 2.0)
    along = math.cos(0.3) * (out[0] - 1.0) + math.sin(0.3) * (out[1] - 2.0)
    assert local == pytest.approx(need) and along == pytest.approx(0.02) and out[2] == 0.4
    far = (1.0, 2.5, 0.3)
    assert project_out(far, stance, +1, BODY) == far
    assert project_out(far, stance, -1, BODY)[1] < 2.0  # a right foot never lands left of the left foot


def test_path_integrates_the_command() -> None:
    ref = plan(load_style("neutral"), Commands.constant([0.3, 0.0, 0.2]), 5.0, rate=100.0)
    r = 0.3 / 0.2
    theta = 0.2 * ref.time[-1]
    assert ref.path[-1] == pytest.approx([r * math.sin(theta), r * (1 - math.cos(theta)), theta], abs=1e-9)


def test_pelvis_heading_follows_the_path() -> None:
    ref = plan(load_style("relaxed"), Commands.constant([0.2, 0.0, 0.5]), 6.0, rate=50.0)
    fwd = ref.pelvis_rot[:, 0] ** 2 + ref.pelvis_rot[:, 1] ** 2 - ref.pelvis_rot[:, 2] ** 2 - ref.pelvis_rot[:, 3] ** 2
    side = 2 * (ref.pelvis_rot[:, 1] * ref.pelvis_rot[:, 2] + ref.pelvis_rot[:, 0] * ref.pelvis_rot[:, 3])
    heading = np.arctan2(side, fwd)
    diff = (heading - ref.path[:, 2] + np.pi) % (2 * np.pi) - np.pi
    assert np.abs(diff).max() < 0.15  # the style's pelvis yaw swing on top of the path heading


def test_stepping_online_equals_planning_at_once() -> None:
    style = load_style("injured")
    whole = plan(style, SCHEDULE, 3.0, rate=50.0, body=BODY)
    planner = Planner(style, BODY)
    steps = [planner.step(SCHEDULE.at(t), 0.02 if k else 0.0) for k, t in enumerate(whole.time)]
    assert np.allclose(np.concatenate([s.foot_pos for s in steps]), whole.foot_pos, atol=1e-12)
    assert np.allclose(np.concatenate([s.pelvis_rot for s in steps]), whole.pelvis_rot, atol=1e-12)


def test_a_long_plan_has_every_tick_and_stays_finite() -> None:
    """Ten seconds at 125 Hz: every tick is there and finite (the speed, >= 20x real time, is
    benchmarks/bench_gait.py's figure, not a test's)."""
    ref = plan(load_style("relaxed"), SCHEDULE, 10.0, rate=125.0, body=BODY)
    assert ref.time.shape[0] == 1250 and np.all(np.diff(ref.time) > 0)
    assert np.isfinite(ref.foot_pos).all() and np.isfinite(ref.pelvis_pos).all()


def test_schedule_files(tmp_path: Path) -> None:
    csv = tmp_path / "s.csv"
    csv.write_text("time,vx,vy,yaw_rate\n0,0,0,0\n2,0.4,0,0.2\n")
    js = tmp_path / "s.json"
    js.write_text(json.dumps({"commands": [[0, 0, 0, 0], [2, 0.4, 0, 0.2]]}))
    for p in (csv, js):
        c = load_schedule(p)
        assert c.at(1.0) == pytest.approx([0.2, 0, 0.1]) and c.at(5.0) == pytest.approx([0.4, 0, 0.2])
    csv.write_text("time,vx,vy,yaw_rate\n0,0,0,0\n0,0.4,0,0.2\n")
    with pytest.raises(Exception, match=r"s.csv:3: point 2: time 0 s is not after 0 s"):
        load_schedule(csv)


# -- kinematic output on the robots ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("robot_name", "style", "command"),
    [
        ("unitree_g1", "relaxed", (0.35, 0.0, 0.2)),
        ("booster_t1", "neutral", (0.3, 0.0, -0.3)),
        ("unitree_h1", "injured", (0.2, 0.05, 0.0)),
    ],
)
def test_ik_tracks_feet_within_a_centimetre_inside_joint_limits(robot_name: str, style: str, command: tuple) -> None:  # type: ignore[type-arg]
    from kinemorph.gait import gait_motion

    robot = robot_or_skip(robot_name)
    motion = gait_motion(load_style(style), robot, Commands.constant(command), 5.0)
    assert motion.info["foot_error_max_cm"] < 1.0
    assert motion.info["limit_violations"] == 0
    q = motion.dof_pos
    assert np.all(q >= robot.lower - 1e-9) and np.all(q <= robot.upper + 1e-9)
    assert motion.contacts is not None and motion.contacts.shape == (motion.num_frames, 2)
    assert motion.contact_bodies == robot.feet
    assert motion.info["stance_slip_mean_cm_s"] < 0.5


def test_soles_come_from_the_collision_geometry() -> None:
    from kinemorph.gait.kinematic import solve_reference
    from kinemorph.gait.robot_table import robot_gait
    from kinemorph.robots.geometry import lowest_points

    robot = robot_or_skip("unitree_g1")  # four 5 mm spheres per foot, 3 cm below the ankle roll link
    rg = robot_gait(robot)
    assert rg.sole_pos == pytest.approx(np.array([[0, 0, -0.035], [0, 0, -0.035]]), abs=1e-9)
    assert (rg.body.heel, rg.body.toe, rg.body.half_width) == pytest.approx((-0.055, 0.125, 0.035))
    assert rg.body.foot_spacing == pytest.approx(0.237, abs=1e-3)
    ref = plan(load_style("neutral"), Commands.constant([0, 0, 0]), 0.1, rate=50.0, body=rg.body)
    motion = solve_reference(ref, robot, measured=rg)
    assert lowest_points(robot, motion.qpos[0]).min() == pytest.approx(0.0, abs=1e-4)  # standing on the floor


def test_t1_waist_follows_the_spine_curve_through_the_tasks() -> None:
    from kinemorph.gait.kinematic import GaitConfig, solve_reference, upper_joint_values
    from kinemorph.gait.robot_table import robot_gait

    robot = robot_or_skip("booster_t1")
    rg = robot_gait(robot)
    ref = plan(load_style("relaxed"), Commands.constant([0.25, 0, 0]), 3.0, rate=50.0, body=rg.body)
    motion = solve_reference(ref, robot, GaitConfig())
    want = upper_joint_values(ref, robot, rg)[:, list(rg.joints).index(robot.dof_names.index("Waist"))]
    assert np.ptp(want) > 0.1
    assert np.abs(motion.dof_pos[:, robot.dof_names.index("Waist")] - want).max() < 0.02


@pytest.mark.parametrize("robot_name", ["unitree_g1", "booster_t1", "unitree_h1"])
def test_upper_body_curves_mean_the_same_on_every_robot(robot_name: str) -> None:
    from kinemorph.gait.robot_table import robot_gait
    from kinemorph.gait.style import UPPER_BODY_JOINTS
    from kinemorph.transforms import quat_conj, quat_mul, quat_rotate

    robot = robot_or_skip(robot_name)
    rg = robot_gait(robot)
    rest = robot.rest_qpos()
    base = robot.fk(rest)
    mapped = {robot.dof_names[j]: (c, s) for j, c, s in zip(rg.joints, rg.columns, rg.signs)}

    def moved(name: str) -> tuple[np.ndarray, np.ndarray]:
        joint = next(n for n, (c, _) in mapped.items() if UPPER_BODY_JOINTS[c] == name)
        q = rest.copy()
        q[7 + robot.dof_names.index(joint)] += 0.1 * mapped[joint][1]
        return robot.fk(q).positions[0], robot.fk(q).rotations[0]

    pelvis = robot.body_id(rg.pelvis_body)
    for side, sign in (("l", 1), ("r", -1)):
        joint = next(n for n, (c, _) in mapped.items() if UPPER_BODY_JOINTS[c] == f"elbow_{side}")
        elbow_body = robot.model.jnt_bodyid[robot.joint_ids[robot.dof_names.index(joint)]]
        pos, _ = moved(f"shoulder_pitch_{side}")
        assert pos[elbow_body, 0] > base.positions[0, elbow_body, 0]  # arm forward
        pos, _ = moved(f"shoulder_roll_{side}")
        assert sign * (pos[elbow_body, 1] - base.positions[0, elbow_body, 1]) > 0  # arm out
    for side, tip in FOREARM_TIPS[robot_name].items():  # a bent elbow brings the forearm toward the shoulder
        joint = next(n for n, (c, _) in mapped.items() if UPPER_BODY_JOINTS[c] == f"elbow_{side}")
        forearm = robot.model.jnt_bodyid[robot.joint_ids[robot.dof_names.index(joint)]]
        shoulder = next(n for n, (c, _) in mapped.items() if UPPER_BODY_JOINTS[c] == f"shoulder_pitch_{side}")
        upper_arm = robot.model.jnt_bodyid[robot.joint_ids[robot.dof_names.index(shoulder)]]

        def reach(
            p: np.ndarray, r: np.ndarray, forearm: int = forearm, tip: tuple = tip, upper_arm: int = upper_arm
        ) -> float:  # type: ignore[type-arg]
            return float(np.linalg.norm(p[forearm] + quat_rotate(r[forearm], np.array(tip)) - p[upper_arm]))

        pos, rot = moved(f"elbow_{side}")
        assert reach(pos, rot) < reach(base.positions[0], base.rotations[0])
    _, rot = moved("waist_yaw")
    torso = robot.body_id({"unitree_g1": "torso_link", "unitree_h1": "torso_link", "booster_t1": "Trunk"}[robot_name])
    rel = quat_mul(quat_conj(rot[pelvis]), rot[torso])
    assert quat_rotate(rel, np.array([1.0, 0, 0]))[1] > 0.05  # torso turned left of the pelvis


# -- command line ---------------------------------------------------------------------------------
def test_cli_writes_a_walk_with_contacts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    robot_or_skip("unitree_g1")
    out = tmp_path / "walk.npz"
    schedule = tmp_path / "turns.csv"
    schedule.write_text("time,vx,vy,yaw_rate\n0,0,0,0\n1,0.3,0,0\n2.5,0.3,0,0.4\n")
    rc = main(["gait", "--style", "relaxed", "--robot", "unitree_g1", "--schedule", str(schedule), "-o", str(out)])
    assert rc == 0
    data = np.load(out)
    assert data["dof_pos"].shape[0] == 125  # the schedule's 2.5 s at 50 fps
    assert data["contacts"].shape == (125, 2) and list(data["contact_names"]) == list(ROBOT_FEET["unitree_g1"])
    assert "gait relaxed on unitree_g1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--style", "nope", "--command", "0.3,0,0"], "unknown gait style 'nope'; valid: "),
        (["--command", "0.3,0"], "--command must be three numbers"),
        (["--command", "0.3,0,0", "--duration", "-1"], "--duration must be positive"),
        (["--command", "0.3,0,0", "--robot", "unitree_go2"], "gaits need a biped with two feet"),
        (["--style", "{bad}", "--command", "0.3,0,0"], "sample 'turn_right': curves.left_foot.z"),
    ],
)
def test_cli_bad_input_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], neutral_raw: dict, args: list[str], fragment: str
) -> None:
    robot_or_skip("unitree_g1")
    bad = copy.deepcopy(neutral_raw)
    bad["samples"]["turn_right"]["curves"]["left_foot"]["z"] = [[0.5, "high"]]
    style_file = tmp_path / "bad.json"
    style_file.write_text(json.dumps(bad))
    args = [str(style_file) if a == "{bad}" else a for a in args]
    if "--robot" not in args:
        args = [*args, "--robot", "unitree_g1"]
    out = tmp_path / "walk.npz"
    assert main(["gait", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kinemorph: error: ") and fragment in err[0], err
    assert not out.exists()
