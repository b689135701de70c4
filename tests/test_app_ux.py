"""The app's UX fixes at the library level (a real viser server, no browser): a stale result is
dropped with its reason, progress shows frames and rate, the camera follows, the plots carry a
frame cursor and a legend for every joint, tables stay compact, gait boxes keep their values,
messages show no server paths or command-line advice, `--help` shows no RST markup."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import data_path, needs_data, needs_menagerie
from kinemorph.app.page_preview import cursor
from kinemorph.app.state import AppState
from kinemorph.app.ui import public_text
from kinemorph.cli._text import plain
from kinemorph.errors import KinemorphError


@pytest.fixture
def app():  # type: ignore[no-untyped-def]
    pytest.importorskip("viser", reason="viser is not installed (pip install -e '.[app]')")
    from kinemorph.app.server import start_app

    a = start_app(port=0, verbose=False)
    yield a
    a.stop()


def _short_walk(state: AppState) -> None:
    state.open_motion("sample:walk.bvh")
    state.motion = state.motion.slice(0, 60)  # type: ignore[union-attr]


# -- stale results --------------------------------------------------------------------------------------
@needs_data
@needs_menagerie
def test_a_robot_change_drops_the_result_and_says_why(app) -> None:  # type: ignore[no-untyped-def]
    data_path("walk.bvh")
    st, page = app.state, app.preview_page
    _short_walk(st)
    app.switch("Preview")
    page.start().join()
    assert st.result is not None and page.quality_md.content.startswith("| metric | value |")
    assert page.kp_view is not None and page.bar.value == 100.0
    st.select_robot("booster_t1")
    assert st.result is None and st.stale == "the robot changed to booster_t1"
    assert page.summary_md.content == "**No current result**: the robot changed to booster_t1. Retarget again."
    assert page.quality_md.content == "" and page.kp_view is None and page.joint_plot is None
    assert page.bar.value == 0.0 and page.progress == (0, 0) and page.progress_md.content == ""
    assert "dropped" in page.notice.text
    with pytest.raises(ValueError, match="retarget first"):
        page.download(".npz")


@needs_data
@needs_menagerie
@pytest.mark.parametrize(
    "change",
    [
        lambda st: st.open_motion("sample:dog_walk.bvh"),
        lambda st: st.set_engine("mesh"),
        lambda st: st.set_mapping(st.current_mapping()),
    ],
    ids=["clip", "engine", "mapping"],
)
def test_every_setup_change_invalidates(change) -> None:  # type: ignore[no-untyped-def]
    data_path("dog_walk.bvh")
    st = AppState()
    _short_walk(st)
    st.run_retarget()
    seen: list[str] = []
    st.invalidated.append(seen.append)
    change(st)
    assert st.result is None and st.report is None and seen == [st.stale] and st.stale


@needs_data
@needs_menagerie
def test_a_result_of_an_old_setup_is_not_kept() -> None:
    st = AppState()
    _short_walk(st)
    with pytest.raises(KinemorphError, match="changed while retargeting"):
        st.run_retarget(progress=lambda done, total: st.invalidate("the robot changed") if done == total else None)
    assert st.result is None


# -- progress, plots, tables ------------------------------------------------------------------------------------
@needs_data
@needs_menagerie
def test_progress_shows_frames_done_and_the_rate(app) -> None:  # type: ignore[no-untyped-def]
    page = app.preview_page
    page._t0 -= 1.0  # started a second ago
    page._progress(300, 1800)
    assert page.progress_md.content.startswith("300 / 1800 frames, ") and "frames/s" in page.progress_md.content
    assert page.bar.value == pytest.approx(100 * 300 / 1800)
    page._progress(1800, 1800)
    assert "evaluating" in page.progress_md.content


def test_the_frame_cursor_is_a_vertical_line_at_the_frame() -> None:
    a, b = np.linspace(0, 1, 50), np.linspace(-2, 3, 50)
    line = cursor([a, b], 10)
    assert np.isnan(line).sum() == 48 and line[10] == -2 and line[11] == 3
    assert cursor([a], 49)[48] == 0 and np.isnan(cursor([], 3)).all()


@needs_data
@needs_menagerie
def test_every_joint_has_a_legend_entry_and_the_cursor_follows_playback(app) -> None:  # type: ignore[no-untyped-def]
    st, page = app.state, app.preview_page
    _short_walk(st)
    app.switch("Preview")
    page.start().join()
    page.group_dd.value = "torso and arms"
    page._plot_joints()
    series = page.joint_plot.series
    assert len(series) - 2 > 8 and page.joint_plot.legend["show"]
    page.playback.playing = False
    page.playback.seek(20)
    t = page.joint_plot.data[0]
    marker = page.joint_plot.data[-1]
    assert np.flatnonzero(~np.isnan(marker)).tolist() == [20, 21] and t[20] == pytest.approx(20 / 30)
    assert np.flatnonzero(~np.isnan(page.err_plot.data[-1])).tolist() == [20, 21]


@needs_data
@needs_menagerie
def test_mapping_table_rows_stay_on_one_line() -> None:
    from kinemorph.app.page_setup import SetupPage

    st = AppState()
    _short_walk(st)
    page = SetupPage(st)
    html = page.table_markdown(0, selected="pelvis")
    assert html.count("<tr") == len(page.rows(0)) + 1 and "white-space:nowrap" in html
    assert "background:#fff3bf" in html  # the row being edited
    assert "1 0 0 0" not in html  # an identity rotation is "-", not four numbers


# -- follow camera --------------------------------------------------------------------------------------------
@needs_data
@needs_menagerie
def test_the_camera_follows_the_played_root(app) -> None:  # type: ignore[no-untyped-def]
    motion = app.state.open_motion("sample:walk.bvh")
    app.motion_page.playback.load(motion.num_frames, motion.fps)
    app.motion_page._refresh()
    app.switch("Motion")
    look0 = app.camera[1].copy()
    pos0 = app.camera[0].copy()
    app.motion_page.playback.seek(900)
    root = motion.positions[900, 0]
    assert np.allclose(app.camera[1][:2], root[:2], atol=0.02)
    assert np.allclose(app.camera[0] - app.camera[1], pos0 - look0)  # same view direction and distance
    app.follow_box.value = False
    app.motion_page.playback.seek(0)
    assert np.allclose(app.camera[1][:2], root[:2], atol=0.02)  # off: the camera stays


# -- gait page ---------------------------------------------------------------------------------------------------
@needs_menagerie
def test_a_refused_gait_value_reverts_in_its_box(app) -> None:  # type: ignore[no-untyped-def]
    page = app.gait_page
    before = page.editor.intervals()["left_touchdown"]
    page._edit(lambda: page.editor.set_interval("left_touchdown", 5.0), "intervals")
    assert page.iv_notice.is_error
    assert page.iv["left_touchdown"].value == pytest.approx(before)


@needs_menagerie
def test_gait_boxes_keep_their_precision_and_lines_stay_apart(app) -> None:  # type: ignore[no-untyped-def]
    page = app.gait_page
    assert page.knot_v.precision == 6 and page.iv["cycle"].precision == 6
    page.load_values()
    assert page.velocity_md.content.startswith("Sample **forward_slow**")
    app.switch("Gait")
    page._on_frame(0)
    assert page.limits_md.content.startswith("Joints near a limit")
    assert page.velocity_md.content.startswith("Sample **")  # not overwritten by the limit line
    assert page.mode_md.content.startswith("Mode: **Edit**")
    assert app.page_md.content == "Page: **Gait**"
    page.testing = False


# -- messages and help -----------------------------------------------------------------------------------------
def test_messages_show_no_server_paths_or_command_line_advice(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import tempfile

    monkeypatch.setenv("KINEMORPH_DATA", str(tmp_path))
    upload = f"{tempfile.gettempdir()}/kinemorph-app-abc123/walk.bvh:12: bad channel"
    assert public_text(upload) == "walk.bvh:12: bad channel"
    assert public_text(f"{tmp_path}/motions/run.bvh: odd") == "run.bvh: odd"
    text = public_text("x.xml has no default mapping: pass one (--mapping FILE)")
    assert "--" not in text and "Import mapping JSON" in text


def test_help_text_has_no_rst_markup(capsys) -> None:  # type: ignore[no-untyped-def]
    from kinemorph.cli import build_parser

    assert plain("see :func:`kinemorph.load` and ``x --y``::") == "see kinemorph.load and x --y:"
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, parser in sub.choices.items():  # type: ignore[union-attr]
        text = parser.format_help()
        assert "``" not in text and ":func:" not in text and ":class:" not in text, name


@pytest.mark.parametrize(
    ("exc", "shown"),
    [(MemoryError(), "out of memory"), (TypeError("bad type"), "TypeError: bad type"), (KinemorphError("x"), "x")],
)
def test_a_handler_failure_of_any_kind_shows_in_its_notice(exc: BaseException, shown: str) -> None:
    from kinemorph.app.ui import Notice, guarded

    class Html:
        content, visible = "", False

    class Gui:
        def add_html(self, *_: object, **__: object) -> Html:
            return Html()

    notice = Notice(Gui())

    def fail() -> None:
        raise exc

    assert guarded(notice, fail) is None
    assert notice.is_error and shown in notice.text


@needs_data
@needs_menagerie
def test_scales_are_edited_in_place_and_a_refused_one_reverts(app) -> None:  # type: ignore[no-untyped-def]
    from types import SimpleNamespace

    st, page = app.state, app.setup_page
    _short_walk(st)
    page.refresh()
    body, box = next(iter(page.scale_boxes.items()))
    user = SimpleNamespace(client_id=1)
    box.value = 0.8
    for cb in box._impl.update_cb:
        cb(user)
    assert st.current_mapping().to_dict()["human_scale_table"][body] == pytest.approx(0.8)
    box.value = -3.0  # refused by the mapping's validation
    for cb in box._impl.update_cb:
        cb(user)
    assert page.notice.is_error
    assert st.current_mapping().to_dict()["human_scale_table"][body] == pytest.approx(0.8)
    assert page.scale_boxes[body].value == pytest.approx(0.8)


@needs_data
@needs_menagerie
def test_task_weights_are_edited_in_place(app) -> None:  # type: ignore[no-untyped-def]
    from types import SimpleNamespace

    st, page = app.state, app.setup_page
    _short_walk(st)
    page.refresh()
    key, box = next(iter(page.weight_boxes.items()))
    body = key.split(":", 1)[1]
    box.value = (7.5, 2.0)
    for cb in box._impl.update_cb:
        cb(SimpleNamespace(client_id=1))
    row = next(r for r in page.rows(page.stage) if r[0] == body)
    assert (row[2], row[3]) == (7.5, 2.0) and not page.notice.is_error
