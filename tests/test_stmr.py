"""STMR (engine "stmr"): the spatial stage on a synthetic trot, the time warp, the contact file,
bad input; the temporal stage's slow checks on the shared dog clips are in test_stmr_dynamics.py."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.errors import ConfigError, KinemorphError
from kinemorph.io import save
from kinemorph.quality import evaluate
from kinemorph.retarget import StmrConfig, retarget
from kinemorph.retarget.stmr.contacts_file import read_contacts
from kinemorph.retarget.stmr.spatial import exit_velocity, flight_frames, landing_climb
from kinemorph.retarget.stmr.warp import Warp, interpolate_qpos, segment_bounds, warp_contacts
from test_quadruped import synthetic_trot


@pytest.fixture(scope="module")
def go2():  # type: ignore[no-untyped-def]
    return robot_or_skip("unitree_go2")


@pytest.fixture(scope="module")
def trot_smr(go2):  # type: ignore[no-untyped-def]
    return retarget(synthetic_trot(), go2, engine="stmr", config=StmrConfig(stages="spatial", verdict=False))


def test_spatial_stage_plants_feet_on_the_floor_without_slip(go2, trot_smr) -> None:  # type: ignore[no-untyped-def]
    """The foot constraints hold (independent metrics): no slip, no penetration, no joint jumps."""
    q = evaluate(trot_smr, go2)
    assert q.foot_slip_mean_cm_s <= 1.0
    assert q.penetration_p95_cm <= 0.1
    assert q.joint_jump_frames == 0
    # planted paws roll on the floor: their contact points' material speed stays under 0.3 cm/s
    # (under 0.1 mm per frame) on every planted frame of the schedule, their centres stay at the
    # floor and move (rolling with the calf: radius x turn rate) by up to a centimetre per stance
    from kinemorph.motion.contacts import contact_intervals
    from kinemorph.quality import foot_slip

    slip = foot_slip(trot_smr, go2)
    assert slip.round_feet.all() and slip.speed_cm_s[trot_smr.contacts].max() < 0.3
    ids = [go2.body_id(f) for f in trot_smr.contact_bodies]
    feet = go2.fk(trot_smr.qpos).positions[:, ids]
    spread = []
    for leg in range(4):
        for a, b in contact_intervals(trot_smr.contacts[:, leg]):
            assert np.ptp(feet[a:b, leg, 2]) < 1e-3
            spread.append(np.ptp(feet[a:b, leg, :2], axis=0).max())
    assert 0.002 < max(spread) < 0.02


def test_spatial_stage_follows_the_trot_forward(trot_smr) -> None:  # type: ignore[no-untyped-def]
    """The base travels as the source's does (0.8 m/s over 4 s, scaled to the robot's legs)."""
    travel = trot_smr.root_pos[-1, 0] - trot_smr.root_pos[0, 0]
    assert travel > 1.0
    assert trot_smr.info["engine"] == "stmr" and trot_smr.info["stages"] == "spatial"


def test_exit_velocity_of_a_parabola_is_exact() -> None:
    dt = 1 / 30
    t = np.arange(6) * dt
    p = np.stack([0.5 * t, 0 * t, 0.3 + 1.2 * t - 4.905 * t**2], axis=1)
    v = exit_velocity(p, dt)
    np.testing.assert_allclose(v, [0.5, 0.0, 1.2 - 9.81 * t[-1]], atol=1e-9)


def test_a_flight_lands_at_the_landing_frames_height() -> None:
    """The base stepped frame by frame under gravity from the take-off speed landing_climb gives
    (frames 10-19 a flight, 20 the landing) reaches the IK's height on the landing frame, whatever
    the take-off height."""
    dt = 1 / 120.0
    flight = np.zeros(40, dtype=bool)
    flight[10:20] = True
    ik_z = np.full(40, 0.31)
    for z0 in (0.31, 0.35, 0.28):
        v = landing_climb(z0, ik_z, flight, 10, dt)
        z = z0
        for _ in range(10, 21):  # the ten flight frames, then the landing frame's step
            v -= 9.81 * dt
            z += v * dt
        assert z == pytest.approx(0.31, abs=1e-9)
    assert landing_climb(0.31, ik_z, flight, 10, dt) > 0  # it climbs, then falls back


def test_flights_need_a_falling_base() -> None:
    """An all-swing run is a flight only when the base falls like a thrown body over it."""
    fps = 30.0
    c = np.ones((30, 4), dtype=bool)
    c[10:20] = False
    t = (np.arange(30) - 9) / fps
    thrown = np.where((t >= 0) & (t <= 11 / fps), 0.3 + 1.6 * t - 4.905 * t**2, 0.3)
    assert flight_frames(thrown, c, fps)[10:20].all()
    assert not flight_frames(np.full(30, 0.3), c, fps).any()


def test_segments_cut_at_contact_changes() -> None:
    c = np.zeros((100, 4), dtype=bool)
    c[:, 0] = True
    c[20:40, 1] = True
    c[60:80, 2] = True
    b = segment_bounds(c, 3)
    assert b[0] == 0 and b[-1] == 99 and len(b) == 4
    assert set(b[1:-1]) <= {20, 40, 60, 80}
    with pytest.raises(ConfigError, match="at most 5 segments"):
        segment_bounds(c, 6)


def test_warp_slows_the_scaled_segment(go2) -> None:  # type: ignore[no-untyped-def]
    """alpha = 2 on the second half doubles its control time; targets interpolate the source."""
    fps, dt = 30.0, 0.01
    bounds = np.array([0, 30, 60])
    w = Warp.of(np.array([1.0, 2.0]), bounds, fps, dt)
    assert w.dt == dt and 1.0 + 2.0 <= w.steps * w.dt < 1.0 + 2.0 + dt  # the step is kept
    assert w.source_time[-1] == pytest.approx(2.0)
    steps_first = int(np.sum(w.source_time < 1.0 - 1e-9))
    assert abs(steps_first - 100) <= 1
    q = np.tile(go2.rest_qpos(), (61, 1))
    q[:, 0] = np.arange(61) / fps
    qi = interpolate_qpos(go2.model, q, w.frames(fps))
    np.testing.assert_allclose(qi[:, 0], w.source_time, atol=1e-12)
    c = np.zeros((61, 4), dtype=bool)
    c[45:] = True
    wc = warp_contacts(c, w.frames(fps))
    assert wc[-1].all() and not wc[0].any()


def test_contacts_file_is_used_and_checked(go2, tmp_path) -> None:  # type: ignore[no-untyped-def]
    motion = synthetic_trot(seconds=2.0)
    n = motion.num_frames
    mask = np.ones((n, 4), dtype=bool)
    mask[20:30, 0] = False
    path = tmp_path / "c.csv"
    path.write_text("# FL FR RL RR\n" + "\n".join(" ".join(str(int(x)) for x in row) for row in mask))
    np.testing.assert_array_equal(read_contacts(path, n), mask)
    out = retarget(motion, go2, engine="stmr", config=StmrConfig(stages="spatial", contacts=str(path), verdict=False))
    np.testing.assert_array_equal(out.contacts, mask)
    (tmp_path / "bad.csv").write_text("1 1 1\n")
    with pytest.raises(KinemorphError, match=r"bad.csv:1: 3 values, expected 4"):
        read_contacts(tmp_path / "bad.csv", n)
    with pytest.raises(KinemorphError, match="rows of contacts for a clip of"):
        read_contacts(path, n + 1)


@pytest.mark.parametrize(("lo", "hi"), [(2.0, 0.5), (0.0, 1.0), (-1.0, 2.0)])
def test_empty_or_inverted_alpha_bounds_are_refused(lo: float, hi: float) -> None:
    with pytest.raises(ConfigError, match="alpha bounds"):
        StmrConfig(alpha_min=lo, alpha_max=hi)


def test_too_many_segments_are_refused(go2) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="at most"):
        retarget(synthetic_trot(seconds=1.0), go2, engine="stmr", config=StmrConfig(segments=500, verdict=False))


def test_a_humanoid_clip_is_refused(go2, generated_walk) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(KinemorphError, match="quadruped"):
        retarget(generated_walk, go2, engine="stmr")


def test_spatial_output_saves_without_controls(trot_smr, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = save(trot_smr, tmp_path / "t.npz")
    with np.load(path) as z:
        assert "controls" not in z and z["contacts"].shape == trot_smr.contacts.shape


@pytest.mark.parametrize("robot_name", ["unitree_go2", "unitree_a1"])
@pytest.mark.parametrize("clip", ["dog_walk.bvh", "dog_idle.bvh"])
def test_spatial_stage_meets_the_foot_targets_on_the_dog_clips(clip: str, robot_name: str) -> None:
    """SMR alone on the shared clips: slip <= 1 cm/s, penetration p95 <= 0.1 cm, no joint jumps."""
    from conftest import data_path
    from kinemorph.motion import load_motion

    robot = robot_or_skip(robot_name)
    out = retarget(
        load_motion(data_path(clip)), robot, engine="stmr", config=StmrConfig(stages="spatial", verdict=False)
    )
    q = evaluate(out, robot)
    assert q.foot_slip_mean_cm_s <= 1.0
    assert q.penetration_p95_cm <= 0.1
    assert q.joint_jump_frames == 0


def test_missed_stances_are_completed_and_flights_kept() -> None:
    """A paw resting 6 cm above its floor for half a second is planted; one moving fast at that
    height is not; a 1 s swing whose paw dips to the floor gets a short touch-down there; a paw
    high in the air stays a swing."""
    from kinemorph.retarget.stmr.stance import complete_paw_contacts

    fps, n = 30.0, 60
    t = np.arange(n) / fps
    paws = np.zeros((n, 4, 3))
    paws[:, :, 2] = 0.2  # all four high (a flight) ...
    paws[:10, :, 2] = 0.0  # ... after a first stance that sets each paw's floor
    paws[12:27, 0, 2] = 0.06  # paw 0 rests 6 cm up for 0.5 s
    paws[12:27, 1, 2] = 0.06
    paws[12:27, 1, 0] = 2.0 * t[12:27]  # paw 1 at that height, moving at 2 m/s
    paws[30:60, 2, 2] = 0.2 - 0.19 * np.exp(-(((t[30:60] - 1.5) / 0.05) ** 2))  # paw 2 dips at 1.5 s
    none = np.zeros((n, 4), dtype=bool)
    none[:10] = True
    out = complete_paw_contacts(paws, fps, none)
    assert out[13:26, 0].all()
    assert not out[12:27, 1].any()
    assert out[44:46, 2].all() and out[30:60, 2].sum() <= 3
    assert not out[10:, 3].any()


def test_a_virtual_paw_hangs_below_its_joint_in_the_source_chain() -> None:
    """A paw the rig recognition made from an End Site (an elephant's, Motion.virtual) is not a
    skeleton joint: the leg's chain runs root ... last joint, then the virtual paw."""
    from kinemorph.motion.motion import Motion
    from kinemorph.motion.skeleton import Skeleton
    from kinemorph.retarget.stmr.reference import source_chain

    names = ("body", "hip", "knee", "ankle")
    offsets = np.array([[0, 0, 0.6], [0.2, 0.1, 0], [0, 0, -0.25], [0, 0, -0.25]], dtype=np.float64)
    sk = Skeleton(names, np.array([-1, 0, 1, 2]), offsets, (("Xrotation",),) * 4)
    rot = np.tile([1.0, 0.0, 0.0, 0.0], (2, 4, 1))
    pos = np.tile(offsets, (2, 1, 1))
    virtual = {"landmark:paw": ("ankle", "ankle", (0.0, 0.0, -0.05))}
    m = Motion.from_local(sk, 30.0, rot, pos, virtual=virtual)
    assert source_chain(m, "hip", "landmark:paw") == ["hip", "knee", "ankle", "landmark:paw"]
    assert source_chain(m, "hip", "ankle") == ["hip", "knee", "ankle"]
    assert np.allclose(m.body("landmark:paw")[0][0], [0.2, 0.1, 0.6 - 0.55])


def test_spatial_stage_takes_a_quadruped_whose_paws_are_end_sites() -> None:
    """The shared elephant (a Bip01-style rig: its paws are End Sites, virtual bodies; its front legs
    end at the wrist, 22 cm up) onto Go2: the spatial stage runs (it failed looking the paws up as
    joints) and plants all four feet of this idle clip (the front ones hovered 5 cm up, never planted)."""
    from kinemorph.motion import load_motion
    from test_rig_data import external

    robot = robot_or_skip("unitree_go2")
    motion = load_motion(external("ganimator_elephant_idle1.bvh"))
    assert any(paw in motion.virtual for _, paw in motion.legs)
    out = retarget(motion, robot, engine="stmr", config=StmrConfig(stages="spatial", verdict=False))
    q = evaluate(out, robot)
    assert q.foot_slip_mean_cm_s <= 1.0 and q.penetration_p95_cm <= 0.1 and q.joint_jump_frames == 0
    assert out.contacts is not None and out.contacts.mean(axis=0).min() > 0.9
    for _, foot in robot.legs:
        z = robot.fk(out.qpos).positions[:, robot.body_id(foot), 2]
        assert np.median(z) < 0.03  # on the floor (the sphere paws' centres rest 2.3 cm up)
