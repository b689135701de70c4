"""The app's pages at the library level: every handler called as a plain method over the state,
no browser. The last tests start a real viser server (no browser) to check the pages build and
that a failed retarget is shown while the server keeps serving."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import data_path, needs_data, needs_menagerie
from kinemorph.app.forms import apply_values, field_specs, parse_value
from kinemorph.app.gait_editor import GaitEditor
from kinemorph.app.geometry import capsule_instances, checker_quads, cluster_vertices, quat_z_to
from kinemorph.app.playback import Playback
from kinemorph.app.sources import Sources, UploadError, safe_name
from kinemorph.app.state import AppState
from kinemorph.errors import ConfigError, KinemorphError, MappingError, UnknownNameError
from kinemorph.gait import StyleError, style_from_dict
from kinemorph.retarget import GmrConfig
from kinemorph.transforms import quat_rotate


# -- sources: what the browser may open ---------------------------------------------------------------
def test_upload_names_lose_their_folders() -> None:
    assert safe_name("../../etc/passwd.bvh") == "passwd.bvh"
    assert safe_name("C:\\x\\my clip (1).bvh") == "my_clip__1_.bvh"
    assert safe_name("...") == "upload"


def test_a_path_that_is_not_a_listed_key_is_refused() -> None:
    with pytest.raises(UnknownNameError, match="valid"):
        Sources().path("/etc/passwd")


def test_uploads_over_the_limit_are_refused() -> None:
    s = Sources(max_upload_bytes=10)
    with pytest.raises(UploadError, match="over the upload limit"):
        s.store("a.bvh", b"x" * 11, (".bvh",))
    assert s.motions() == {k: v for k, v in s.samples().items()}


def test_uploads_of_the_wrong_kind_are_refused() -> None:
    with pytest.raises(UploadError, match=r"expected a \.bvh"):
        Sources().store("a.exe", b"x", (".bvh",))


@needs_data
def test_samples_are_the_clips_under_kinemorph_data() -> None:
    data_path("walk.bvh")
    assert {"sample:walk.bvh", "sample:dog_walk.bvh"} <= set(Sources().samples())


# -- state and motion page --------------------------------------------------------------------------------
@pytest.fixture
def state():  # type: ignore[no-untyped-def]
    s = AppState()
    yield s
    s.sources.close()


@needs_menagerie
def test_a_bad_upload_shows_the_readers_error_and_is_deleted(state: AppState) -> None:
    with pytest.raises(KinemorphError, match="HIERARCHY"):
        state.upload_motion("broken.bvh", b"not a bvh file\n")
    assert not any(k.startswith("upload:") for k in state.sources.motions())


@needs_menagerie
def test_an_uploaded_bvh_opens_with_the_validated_reader(state: AppState, tmp_path: Path) -> None:
    from kinemorph.motion import save_bvh
    from kinemorph.motion.procedural import procedural_walk

    path = save_bvh(procedural_walk(), tmp_path / "gen.bvh")
    motion = state.upload_motion("gen.bvh", path.read_bytes())
    assert state.motion_key == "upload:gen.bvh" and motion.preset == "lafan1" and state.robot_key == "unitree_g1"


@needs_data
@needs_menagerie
def test_motion_page_opens_a_sample_and_lists_its_joints(state: AppState) -> None:
    from kinemorph.app.page_motion import INDENT, MotionPage

    data_path("walk.bvh")
    page = MotionPage(state)
    assert "1800 frames" in page.open("sample:walk.bvh")
    labels = page.joint_labels()
    assert labels[0] == "Hips" and labels[1].startswith(INDENT) and len(labels) == 22
    assert page.select_joint(labels[1]) == 1
    page.select_joint("Hips")
    rows = page.channels(frame=10)
    assert [r[0] for r in rows[:6]] == list(state.motion.skeleton.channels[0])
    assert rows[-1][0] == "world z" and rows[-1][1] == pytest.approx(state.motion.positions[10, 0, 2])
    assert state.bvh is not None and rows[0][1] == pytest.approx(state.bvh.values[10, 0])


@needs_data
@needs_menagerie
def test_a_dog_clip_selects_go2_and_greys_out_the_humanoids(state: AppState) -> None:
    data_path("dog_walk.bvh")
    state.open_motion("sample:dog_walk.bvh")
    assert state.robot_key == "unitree_go2"
    enabled = {c.key: c.enabled for c in state.robot_choices()}
    assert not enabled["unitree_g1"] and enabled["unitree_a1"]
    with pytest.raises(KinemorphError, match="quadruped"):
        state.select_robot("unitree_g1")
    state.open_motion("sample:walk.bvh")
    assert state.robot_key == "unitree_g1"


# -- playback -----------------------------------------------------------------------------------------------
def test_playback_advances_at_speed_and_loops() -> None:
    seen: list[int] = []
    pb = Playback(listeners=[seen.append])
    pb.load(30, 30.0)
    pb.playing, pb.speed = True, 2.0
    assert pb.tick(0.25) and pb.frame == 15
    pb.tick(0.5)
    assert pb.frame == 15  # 1 s of clip later, looped back to the same frame
    pb.seek(99)
    assert pb.frame == 29 and seen[-1] == 29


def test_a_paused_playback_does_not_move() -> None:
    pb = Playback()
    pb.load(30, 30.0)
    assert not pb.tick(1.0) and pb.frame == 0


# -- forms -------------------------------------------------------------------------------------------------
def test_config_fields_become_typed_widgets() -> None:
    specs = {s.name: s for s in field_specs(GmrConfig)}
    assert specs["damping"].type is float and specs["max_extra_iterations"].type is int
    assert specs["human_height"].optional and "stature" in specs["human_height"].help


def test_form_values_parse_and_validate() -> None:
    specs = {s.name: s for s in field_specs(GmrConfig)}
    assert parse_value(specs["human_height"], "") is None
    assert parse_value(specs["human_height"], "1.75") == 1.75
    cfg = apply_values(GmrConfig(), {"damping": 0.2, "max_extra_iterations": 4.0, "human_height": "1.7"})
    assert (cfg.damping, cfg.max_extra_iterations, cfg.human_height) == (0.2, 4, 1.7)
    with pytest.raises(ConfigError, match="whole number"):
        apply_values(GmrConfig(), {"max_extra_iterations": 2.5})
    with pytest.raises(ConfigError, match="ground"):
        apply_values(GmrConfig(), {"ground": "sometimes"})


# -- setup page ----------------------------------------------------------------------------------------------
@pytest.fixture
def setup(state: AppState):  # type: ignore[no-untyped-def]
    from kinemorph.app.page_setup import SetupPage

    data_path("walk.bvh")
    if not __import__("os").environ.get("MENAGERIE_ROOT"):
        pytest.skip("MENAGERIE_ROOT is not set")
    state.open_motion("sample:walk.bvh")
    return SetupPage(state)


def test_setup_edits_a_tasks_weights_and_offsets(setup) -> None:  # type: ignore[no-untyped-def]
    body = setup.rows(0)[1][0]
    m = setup.edit_task(0, body, position_weight=42.0, position_offset=(0.0, 0.01, 0.0))
    task = next(t for t in m.stage1 if t.robot_body == body)
    assert task.position_weight == 42.0 and task.position_offset[1] == 0.01
    assert setup.state.mapping is m


def test_setup_refuses_a_bad_edit_and_keeps_the_mapping(setup) -> None:  # type: ignore[no-untyped-def]
    before = setup.state.current_mapping().to_dict()
    body = setup.rows(1)[0][0]
    with pytest.raises(MappingError, match=r"weights? must be (a finite number )?>= 0"):
        setup.edit_task(1, body, rotation_weight=-1.0)
    with pytest.raises(MappingError, match="unit quaternion"):
        setup.edit_task(1, body, rotation_offset=[2.0, 0.0, 0.0, 0.0])
    with pytest.raises(UnknownNameError, match="source body"):
        setup.edit_task(1, body, source_body="Tail")
    assert setup.state.current_mapping().to_dict() == before


def test_setup_adds_and_removes_rows_and_scales(setup) -> None:  # type: ignore[no-untyped-def]
    n = len(setup.rows(1))
    setup.remove_task(1, setup.rows(1)[0][0])
    assert len(setup.rows(1)) == n - 1
    setup.add_task(1, "torso_link", "Spine2")
    assert "torso_link" in [r[0] for r in setup.rows(1)]
    setup.set_scale("Spine2", 0.7)
    assert setup.mapping_dict()["human_scale_table"]["Spine2"] == 0.7
    with pytest.raises(MappingError, match="positive"):
        setup.set_scale("Spine2", 0.0)


def test_mapping_json_exports_and_imports_unchanged(setup) -> None:  # type: ignore[no-untyped-def]
    name, data = setup.export_mapping()
    d = json.loads(data)
    assert name == "unitree_g1_mapping.json" and {"ik_match_table1", "human_scale_table"} <= set(d)
    d["ik_match_table1"][next(iter(d["ik_match_table1"]))][1] = 7.0
    m = setup.import_mapping("mine.json", json.dumps(d).encode())
    assert m.to_dict()["ik_match_table1"] == d["ik_match_table1"]
    with pytest.raises(MappingError, match="invalid JSON"):
        setup.import_mapping("bad.json", b"{")
    with pytest.raises(UploadError, match=r"expected a \.json"):
        setup.import_mapping("bad.txt", b"{}")


def test_setup_links_each_target_to_its_robot_body(setup) -> None:  # type: ignore[no-untyped-def]
    links = setup.links(frame=100)
    k = len(setup.rows(0)) + len(setup.rows(1))
    assert links["targets"].shape == (k, 3) and links["bodies"].shape == (k, 3)
    assert np.linalg.norm(links["targets"] - links["bodies"], axis=1).max() < 1.0


def test_setup_engine_and_solver_parameters(setup) -> None:  # type: ignore[no-untyped-def]
    assert setup.set_engine("auto") == "gmr"
    cfg = setup.set_config({"damping": 0.9})
    assert cfg.damping == 0.9 and setup.state.config() is cfg
    assert setup.set_engine("mesh") == "mesh"
    with pytest.raises(UnknownNameError):
        setup.set_engine("magic")


# -- preview page ----------------------------------------------------------------------------------------------
def test_preview_retargets_plots_and_downloads_every_format(setup, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import kinemorph
    from kinemorph.app.page_preview import PreviewPage
    from kinemorph.io import FORMATS

    page = PreviewPage(setup.state)
    calls: list[tuple[int, int]] = []
    assert "1800 frames onto unitree_g1" in page.run(lambda d, t: calls.append((d, t)))
    assert calls[-1][0] == calls[-1][1]
    t, err = page.error_curve()
    assert t.shape == err.shape == (1800,) and np.all(err >= 0)
    t, names, curves = page.joint_curves("legs")
    assert names and all("hip" in n or "knee" in n or "ankle" in n for n in names) and curves[0].shape == (1800,)
    assert "keypoint tracking error" in page.quality_markdown()
    for suffix in FORMATS:
        name, data = page.download(suffix)
        (tmp_path / name).write_bytes(data)
        back = kinemorph.load_robot_motion(tmp_path / name, dof_names=setup.state.robot().dof_names)
        assert np.allclose(back.dof_pos, setup.state.result.dof_pos, atol=1e-6)


def test_preview_without_a_result_refuses_downloads(state: AppState) -> None:
    from kinemorph.app.page_preview import PreviewPage

    with pytest.raises(ValueError, match="retarget first"):
        PreviewPage(state).download(".npz")
    with pytest.raises(KinemorphError, match="open a motion first"):
        PreviewPage(state).run()


# -- gait editor --------------------------------------------------------------------------------------------------
@pytest.fixture
def editor() -> GaitEditor:
    return GaitEditor(style="neutral", sample="forward_slow")


def test_a_too_short_double_support_is_refused_in_place(editor: GaitEditor) -> None:
    before = editor.intervals()
    with pytest.raises(StyleError, match="double support"):
        editor.set_interval("right_liftoff", before["left_touchdown"] + 0.02)
    assert editor.error is not None and editor.error[0] == "intervals" and "double support" in editor.error[1]
    assert editor.intervals() == before


def test_valid_edits_change_the_style(editor: GaitEditor) -> None:
    editor.set_attribute("stance_width", 0.03)
    assert editor.style.samples["forward_slow"].attributes.stance_width == 0.03 and editor.error is None
    editor.curve = "left_foot.z"
    n = len(editor.knots())
    editor.add_knot(0.3, 0.05)
    assert len(editor.knots()) == n + 1 and [0.3, 0.05] in editor.knots()
    editor.set_knot(editor.knots().index([0.3, 0.05]), 0.35, 0.06)
    u, v = editor.curve_values()
    assert v[np.argmin(abs(u - 0.35))] == pytest.approx(0.06, abs=1e-3)
    editor.remove_knot(editor.knots().index([0.35, 0.06]))
    assert len(editor.knots()) == n


def test_saved_style_json_reads_back(editor: GaitEditor) -> None:
    editor.set_attribute("x_bias", 0.01)
    name, data = editor.style_json()
    style = style_from_dict(json.loads(data))
    assert name == "neutral.json" and style.samples["forward_slow"].attributes.x_bias == 0.01


@needs_menagerie
def test_the_robot_walks_the_sample_and_test_mode_continues(editor: GaitEditor) -> None:
    walk = editor.walk(cycles=1.0)
    cycle = editor.style.samples["forward_slow"].timing.cycle
    assert walk.num_frames == round(cycle * editor.config.fps)
    a = editor.test_chunk((0.3, 0.0, 0.0), 0.5)
    b = editor.test_chunk((0.3, 0.0, 0.0), 0.5)
    assert b.root_pos[0, 0] > a.root_pos[0, 0] + 0.05  # the path goes on between chunks
    assert np.linalg.norm(b.root_pos[0, :2] - a.root_pos[-1, :2]) < 0.05
    assert isinstance(editor.limits(walk, 0), list)


# -- geometry -------------------------------------------------------------------------------------------------------
@given(st.lists(st.floats(-1, 1), min_size=3, max_size=3).filter(lambda v: np.linalg.norm(v) > 1e-3))
def test_quat_z_to_turns_z_onto_the_direction(d: list[float]) -> None:
    q = quat_z_to(np.array([d]))
    u = np.array(d) / np.linalg.norm(d)
    assert np.allclose(quat_rotate(q, np.array([0.0, 0.0, 1.0]))[0], u, atol=1e-9)


def test_capsules_span_their_bones() -> None:
    pos, _, scale = capsule_instances(np.array([[0.0, 0, 0]]), np.array([[0.0, 0, 2]]), 0.1)
    assert np.allclose(pos, [[0, 0, 1]]) and np.allclose(scale, [[0.1, 0.1, 2.0]])


def test_checkerboard_squares_alternate() -> None:
    (lv, lf), (dv, df) = checker_quads(1.0, 0.5)
    assert len(lf) == len(df) == 16 and lv.shape == dv.shape == (32, 3)


def test_vertex_clustering_lightens_a_mesh_and_keeps_its_extent() -> None:
    import trimesh

    m = trimesh.creation.icosphere(subdivisions=5, radius=0.1)
    v, f = cluster_vertices(m.vertices, m.faces, 0.02)
    assert len(f) < len(m.faces) / 4 and f.max() < len(v)
    assert np.allclose(np.abs(v).max(axis=0), 0.1, atol=0.02)


# -- a real server, no browser ---------------------------------------------------------------------------------
@pytest.fixture
def server_app():  # type: ignore[no-untyped-def]
    pytest.importorskip("viser", reason="viser is not installed (pip install -e '.[app]')")
    data_path("walk.bvh")
    from kinemorph.app.server import start_app

    app = start_app(port=0, verbose=False)
    yield app
    app.stop()


@needs_menagerie
def test_every_page_builds_and_switches(server_app) -> None:  # type: ignore[no-untyped-def]
    server_app.motion_page.open("sample:walk.bvh")
    server_app.motion_page._refresh()
    for title in ("Setup", "Preview", "Gait", "Motion"):
        server_app.switch(title)
        assert server_app.active.title == title
    assert server_app.server.get_host() == "127.0.0.1"


@needs_menagerie
def test_a_failed_retarget_shows_in_the_page_and_the_server_keeps_serving(server_app) -> None:  # type: ignore[no-untyped-def]
    page = server_app.preview_page
    server_app.switch("Preview")
    page.start().join()  # no motion open yet
    assert "open a motion first" in page.notice.text and page.notice.is_error and not page.running
    server_app.motion_page.open("sample:walk.bvh")
    server_app.state.configs["gmr"] = GmrConfig(max_extra_iterations=0)

    def boom(_: object = None) -> None:
        raise RuntimeError("engine exploded")

    server_app.state.run_retarget = boom  # type: ignore[method-assign]
    page.start().join()
    assert "RuntimeError: engine exploded" in page.notice.text
    url = f"http://127.0.0.1:{server_app.server.get_port()}/"
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.status == 200


# -- gait page: the simulate view ------------------------------------------------------------------------------
def test_simulate_requests_refuse_bad_fields_with_one_message() -> None:
    from kinemorph.app.gait_sim import make_request

    ok = make_request((0.2, 0.0, 0.0), 8.0, "front", 1.5, 4.0)
    assert ok.push is not None and ok.push.force_per_kg == 1.5 and ok.push.direction == "front"
    assert make_request((0.0, 0.0, 0.0), 5.0, "left", 0.0, 1.0).push is None  # no force: no push
    for args, words in (
        (((0, 0, 0), 0.0, "none", 0.0, 0.0), "simulation length"),
        (((0, 0, 0), 5.0, "above", 1.0, 1.0), "push side 'above'"),
        (((0, 0, 0), 5.0, "front", 1.0, 6.0), "after the walk ends"),
        (((0, 0, 0), 5.0, "front", 50.0, 1.0), "[0, 20] N/kg"),
    ):
        with pytest.raises(ConfigError, match=re.escape(words)):
            make_request(*args)  # type: ignore[arg-type]


@needs_menagerie
def test_the_gait_page_simulates_the_style_under_physics(server_app) -> None:  # type: ignore[no-untyped-def]
    page = server_app.gait_page
    server_app.switch("Gait")
    page.sim_len.value = 2.0
    page.push_side.value = "front"
    page.push_force.value = 0.5
    page.push_at.value = 1.0
    assert page.simulate()
    assert not page.simulate() and "already running" in page.sim_notice.text  # one walk at a time
    page.sim.wait(120)
    assert not page.sim.error, page.sim.error
    sim = page.sim.result
    assert sim is not None and not sim.fell and sim.simulated_s == pytest.approx(2.0)
    assert sim.log.push_force[:, :2].any()  # the push was applied
    assert page.sim_md.content.startswith("**Simulated**: walked 2.0 s")
    assert page.motion is sim.motion and page.playback.num_frames == sim.motion.num_frames
    t, ref, got = page.sim_plot.data
    assert len(t) == len(sim.log.time) and np.all(np.abs(got - ref) < 0.05)


@needs_menagerie
def test_a_refused_simulation_shows_its_message_in_place(server_app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.app import gait_sim

    def refuse(*_: object, **__: object) -> None:
        raise KinemorphError("robot x: every motor needs a torque limit for the controller")

    monkeypatch.setattr(gait_sim, "simulate_gait", refuse)
    page = server_app.gait_page
    server_app.switch("Gait")
    before = page.motion
    assert page.simulate()
    page.sim.wait(30)
    assert page.sim_notice.is_error and "torque limit" in page.sim_notice.text
    assert page.motion is before  # the looping sample stays
    page.sim_len.value = -1.0
    assert not page.simulate() and "simulation length" in page.sim_notice.text
