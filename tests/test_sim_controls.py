"""kinemorph.sim replays a motion that carries its own controls (STMR's) with those controls, says
so in the verdict, keeps the tracking replay for the rest, and an npz round trip keeps them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from conftest import robot_or_skip
from kinemorph.errors import KinemorphError
from kinemorph.io import load, save
from kinemorph.retarget import StmrConfig, retarget
from kinemorph.sim import SimConfig, run_simulation, simulate
from test_quadruped import synthetic_trot

QUICK = {"outer_evaluations": 1, "inner_iterations": 1, "final_iterations": 0, "verdict": False}


@pytest.fixture(scope="module")
def go2():  # type: ignore[no-untyped-def]
    return robot_or_skip("unitree_go2")


@pytest.fixture(scope="module")
def trot(go2):  # type: ignore[no-untyped-def]
    cfg = StmrConfig(alpha_min=1.0, alpha_max=1.0, **QUICK)  # type: ignore[arg-type]
    return retarget(synthetic_trot(seconds=1.5), go2, engine="stmr", config=cfg)


def test_own_controls_give_the_rollout_back_on_its_physics(go2, trot) -> None:  # type: ignore[no-untyped-def]
    """The controls name the physics the rollout ran (its step, floor solimp and time constant);
    replayed there with MuJoCo's position servos, as the rollout ran them, and with each receding-
    horizon window continuing the last one's simulation (the solver's warm start included), they
    give the output's states back to rounding."""
    c = trot.controls
    assert c is not None and c.physics_dt is not None and 0.0009 < c.physics_dt < 0.001
    assert c.floor_timeconst == pytest.approx(0.02) and c.floor_solimp == (0.99, 0.99)
    res = run_simulation(trot, go2)
    rep = res.report
    assert rep.controller.startswith("own controls on the floor they were made on")
    assert "time constant 20 ms" in rep.controller and "step 0.925926 ms" in rep.controller
    n = min(res.rollout.motion.num_frames, trot.num_frames)
    err = np.linalg.norm(res.rollout.motion.qpos[:n] - trot.qpos[:n], axis=1)
    assert not rep.fell and n == trot.num_frames
    assert err.max() < 1e-6
    assert rep.torque_saturation_fraction <= 0.2
    assert "controller: own controls" in rep.summary()


def test_own_controls_keep_the_motion_at_1_khz(go2, trot) -> None:  # type: ignore[no-untyped-def]
    """The same PD targets and feedback gains run at the check's 1 kHz physics instead (another
    step: no longer the rollout's arithmetic): the feedback keeps the robot on its own motion."""
    other = dataclasses.replace(trot, controls=dataclasses.replace(trot.controls, physics_dt=None))
    rep = simulate(other, go2)
    assert "step 1 ms" in rep.controller
    assert not rep.fell
    assert 1e-5 < rep.base_position_rms_m < 0.03
    assert rep.torque_saturation_fraction <= 0.2


def test_controls_made_on_a_stiffer_floor_are_replayed_on_it(go2, trot) -> None:  # type: ignore[no-untyped-def]
    """STMR's rollouts on a 4 ms floor (StmrConfig.floor_timeconst) keep it with their controls, and
    the check replays them there and says so; SimConfig.floor_timeconst overrides it (MuJoCo's
    default, five times softer): the verdict says which floor, the replay differs, and on the
    stiff floor the paws sink less."""
    cfg = StmrConfig(alpha_min=1.0, alpha_max=1.0, floor_timeconst=0.004, **QUICK)  # type: ignore[arg-type]
    stiff = retarget(synthetic_trot(seconds=1.5), go2, engine="stmr", config=cfg)
    assert stiff.controls is not None and stiff.controls.floor_timeconst == 0.004
    own, soft = simulate(stiff, go2), simulate(stiff, go2, config=SimConfig(floor_timeconst=0.02))
    assert own.controller.startswith("own controls on the floor they were made on")
    assert "time constant 4 ms" in own.controller and not own.fell
    assert "another floor than theirs (time constant 4 ms)" in soft.controller
    assert "time constant 20 ms" in soft.controller
    assert soft.base_position_rms_m != own.base_position_rms_m
    # the same trot's rollout on MuJoCo's default floor sinks its paws deeper
    assert own.max_penetration_m < 0.5 * simulate(trot, go2).max_penetration_m
    with pytest.raises(KinemorphError, match="floor_timeconst"):
        SimConfig(floor_timeconst=0.0)
    # a motion made on MuJoCo's default floor, replayed on a stiffer one: the verdict names it too
    stiffer = simulate(trot, go2, config=SimConfig(floor_timeconst=0.004))
    assert "another floor than theirs (time constant 20 ms)" in stiffer.controller


def test_the_tracking_replay_is_kept_for_motions_without_controls(go2, trot) -> None:  # type: ignore[no-untyped-def]
    plain = dataclasses.replace(trot, controls=None)
    assert simulate(plain, go2).controller == "tracking replay"
    assert simulate(trot, go2, config=SimConfig(controller="tracking")).controller == "tracking replay"


def test_controls_that_do_not_hold_the_robot_let_it_fall(go2, trot) -> None:  # type: ignore[no-untyped-def]
    """The replay really runs the controls: targets at every joint's zero and no feedback drop the trunk."""
    c = trot.controls
    limp = dataclasses.replace(c, values=np.zeros_like(c.values), gains=np.zeros_like(c.gains))
    rep = simulate(dataclasses.replace(trot, controls=limp), go2)
    assert rep.controller.startswith("own controls")
    assert rep.fell and not rep.feasible


def test_an_npz_round_trip_keeps_the_controls(go2, trot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    back = load(save(trot, tmp_path / "t.npz"), robot_name=go2.name, dof_names=go2.dof_names)
    c, b = trot.controls, back.controls
    assert b is not None and b.kind == c.kind and b.names == c.names
    assert b.dt == pytest.approx(c.dt)
    for name in ("values", "gains", "kp", "kd"):
        np.testing.assert_array_equal(getattr(b, name), getattr(c, name))
    assert (b.floor_timeconst, b.physics_dt, b.floor_solimp) == (c.floor_timeconst, c.physics_dt, c.floor_solimp)
    rep = simulate(back, go2)
    assert rep.controller.startswith("own controls on the floor they were made on")
    assert rep.base_position_rms_m < 1e-6


def test_controls_that_do_not_fit_the_motion_are_refused(go2, trot) -> None:  # type: ignore[no-untyped-def]
    c = trot.controls
    short = dataclasses.replace(c, values=c.values[:-10], gains=c.gains[:-10])
    with pytest.raises(KinemorphError, match="span"):
        simulate(dataclasses.replace(trot, controls=short), go2)
    wrong = dataclasses.replace(c, gains=c.gains[:, :, :5])
    with pytest.raises(KinemorphError, match="shapes"):
        simulate(dataclasses.replace(trot, controls=wrong), go2)


def test_an_npz_with_part_of_the_controls_is_refused(go2, trot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = save(trot, tmp_path / "t.npz")
    with np.load(path) as z:
        data = {k: z[k] for k in z.files if k != "gains"}
    np.savez(tmp_path / "part.npz", **data)
    with pytest.raises(KinemorphError, match="lacks"):
        load(tmp_path / "part.npz", robot_name=go2.name, dof_names=go2.dof_names)


def test_the_cli_names_the_controller_and_can_force_the_tracking_replay(go2, trot, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.cli import main

    path = save(trot, tmp_path / "t.npz")
    assert main(["simulate", str(path), "--robot", "unitree_go2", "--quiet"]) == 0
    assert "controller: own controls" in capsys.readouterr().out
    assert main(["simulate", str(path), "--robot", "unitree_go2", "--quiet", "--controller", "tracking"]) == 0
    assert "controller: tracking replay" in capsys.readouterr().out


def test_controls_made_with_stiff_friction_rows_are_replayed_with_them(go2, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """STMR's rollouts with the floor's friction rows at 4 ms (StmrConfig.floor_friction_timeconst)
    keep that with their controls through an npz; the check replays them there, giving the rollout
    back to rounding and saying so, and a replay with the friction rows as the contacts' differs."""
    cfg = StmrConfig(alpha_min=1.0, alpha_max=1.0, floor_friction_timeconst=0.004, **QUICK)  # type: ignore[arg-type]
    made = retarget(synthetic_trot(seconds=1.0), go2, engine="stmr", config=cfg)
    assert made.controls is not None and made.controls.floor_friction_timeconst == 0.004
    back = load(save(made, tmp_path / "f.npz"), robot_name=go2.name, dof_names=go2.dof_names)
    assert back.controls is not None and back.controls.floor_friction_timeconst == 0.004
    own = simulate(back, go2)
    assert own.controller.startswith("own controls on the floor they were made on")
    assert "friction rows 4 ms" in own.controller and own.base_position_rms_m < 1e-6
    soft = simulate(back, go2, config=SimConfig(floor_friction_timeconst=0.02))
    assert "another floor than theirs (time constant 20 ms, friction rows 4 ms)" in soft.controller
    assert soft.base_position_rms_m > 1e-5
    with pytest.raises(KinemorphError, match="floor_friction_timeconst"):
        SimConfig(floor_friction_timeconst=0.2)
    with pytest.raises(KinemorphError, match="floor_friction_timeconst"):
        StmrConfig(floor_friction_timeconst=-1.0)
