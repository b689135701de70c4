"""App uploads stay inside their bounds: the size limit holds on the bytes that arrive (a real
websocket client that lies about the size is cut off), a zip-bomb .npz is refused from its
headers, a failed upload is deleted and not selectable, reader crashes become messages, a robot
model cannot reach files outside its upload, a robot .zip brings its meshes (a lone MJCF loads
without them and says so), and SIGTERM removes the upload folder."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from conftest import needs_menagerie
from kinemorph.app.sources import Sources
from kinemorph.app.state import AppState
from kinemorph.app.upload_checks import UploadError, check_npz, find_model, model_files

MB = 1024 * 1024


# -- the size limit, on the wire ---------------------------------------------------------------------
@pytest.fixture
def small_app():  # type: ignore[no-untyped-def]
    pytest.importorskip("viser")
    from kinemorph.app.server import start_app

    app = start_app(port=0, verbose=False, max_upload_bytes=1 * MB)
    yield app
    app.stop()


def _client(app):  # type: ignore[no-untyped-def]
    import viser
    from websockets.sync.client import connect

    return connect(
        f"ws://127.0.0.1:{app.server.get_port()}",
        subprotocols=[f"viser-v{viser.__version__}"],
        max_queue=None,  # keep reading the server's messages, so its close frame is seen
        max_size=None,
    )


def _send(ws, message) -> None:  # type: ignore[no-untyped-def]
    import msgspec

    ws.send(msgspec.msgpack.encode(message.as_serializable_dict()))


def _start(app, size: int, parts: int):  # type: ignore[no-untyped-def]
    import uuid

    from viser import _messages

    button = app.motion_page.upload_button._impl.uuid
    start = _messages.FileTransferStartUpload(
        source_component_uuid=button, transfer_uuid=uuid.uuid4().hex, filename="lie.bvh",
        mime_type="text/plain", part_count=parts, size_bytes=size,
    )  # fmt: skip
    return start, button


def test_an_upload_that_lies_about_its_size_is_cut_at_the_limit(small_app) -> None:  # type: ignore[no-untyped-def]
    from viser import _messages
    from websockets.exceptions import ConnectionClosed

    app = small_app
    start, button = _start(app, size=1000, parts=400)  # declares 1,000 bytes, sends up to 400 MB
    sent = 0
    chunk = b"x" * MB
    with _client(app) as ws:
        _send(ws, start)
        with pytest.raises(ConnectionClosed):
            for i in range(400):
                _send(ws, _messages.FileTransferPart(button, start.transfer_uuid, i, chunk))
                sent += len(chunk)
                time.sleep(0.01)
            ws.recv(timeout=10)
    assert sent <= 60 * MB  # cut long before the 400 MB (the socket buffers a few parts in flight)
    assert app.server.gui._current_file_upload_states == {}  # its buffered parts were dropped
    assert [r.filename for r in app.uploads.refused] == ["lie.bvh"]
    notice = app.motion_page.notice
    assert notice.is_error and "over the upload limit of 1 MB" in notice.text
    assert "upload:lie.bvh" not in app.state.sources.motions()


def test_an_upload_declared_over_the_limit_is_dropped_at_its_start(small_app) -> None:  # type: ignore[no-untyped-def]
    app = small_app
    start, _ = _start(app, size=5 * MB, parts=5)
    with _client(app) as ws:
        _send(ws, start)
        deadline = time.time() + 10
        while not app.uploads.refused and time.time() < deadline:
            time.sleep(0.05)
    assert app.uploads.refused and app.uploads.refused[0].reason == "declared size"
    assert app.server.gui._current_file_upload_states == {}
    assert "over the upload limit" in app.motion_page.notice.text


def test_an_honest_upload_under_the_limit_goes_through_the_gate(small_app) -> None:  # type: ignore[no-untyped-def]
    import uuid

    from viser import _messages

    app = small_app
    content = _arm()
    button = app.setup_page.robot_upload._impl.uuid
    start = _messages.FileTransferStartUpload(
        source_component_uuid=button, transfer_uuid=uuid.uuid4().hex, filename="arm.xml",
        mime_type="text/xml", part_count=3, size_bytes=len(content),
    )  # fmt: skip
    third = -(-len(content) // 3)
    with _client(app) as ws:
        _send(ws, start)
        for i in range(3):
            _send(ws, _messages.FileTransferPart(button, start.transfer_uuid, i, content[i * third : (i + 1) * third]))
        deadline = time.time() + 20
        while app.setup_page.robot_upload.value.name != "arm.xml" and time.time() < deadline:
            time.sleep(0.05)
    # viser assembled the whole file (its callback then runs for a registered browser client)
    assert app.setup_page.robot_upload.value.content == content and not app.uploads.refused
    assert app.server.gui._current_file_upload_states == {}


# -- .npz uploads ----------------------------------------------------------------------------------------
def _bomb(path: Path, unpacked: int) -> Path:
    """A .npz of zeros: a few hundred kB that unpack to ``unpacked`` bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        with z.open("positions.npy", "w", force_zip64=True) as f:
            header = io.BytesIO()
            np.lib.format.write_array_header_1_0(
                header, {"descr": "<f8", "fortran_order": False, "shape": (unpacked // 8,)}
            )
            f.write(header.getvalue())
            zeros = bytes(MB)
            for _ in range(unpacked // MB):
                f.write(zeros)
    return path


def test_a_zip_bomb_npz_is_refused_from_its_headers(tmp_path: Path) -> None:
    path = _bomb(tmp_path / "bomb.npz", 600 * MB)
    assert path.stat().st_size < 2 * MB
    with pytest.raises(UploadError, match="once decompressed"):
        check_npz(path, "bomb.npz", 500 * MB)


def test_a_zip_bomb_upload_is_not_inflated_and_not_kept(tmp_path: Path) -> None:
    import resource

    content = _bomb(tmp_path / "bomb.npz", 600 * MB).read_bytes()
    state = AppState(sources=Sources(max_upload_bytes=50 * MB))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(UploadError, match="once decompressed"):
        state.upload_motion("bomb.npz", content)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 100
    assert not state.sources.motions().get("upload:bomb.npz")
    assert not any(state.sources.folder.iterdir())


def test_a_header_claiming_more_than_it_holds_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "liar.npz"
    with zipfile.ZipFile(path, "w") as z:
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (10**11,)})
        z.writestr("positions.npy", header.getvalue())
    with pytest.raises(UploadError, match="claims shape"):
        check_npz(path, "liar.npz", 500 * MB)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("not_a_zip.npz", b"\x93NUMPY not a zip"),
        ("broken.bvh", b"HIERARCHY\nROOT x\n{"),
        ("binary.bvh", bytes(range(256))),
    ],
)
def test_an_upload_that_fails_to_parse_is_deleted_and_not_selectable(name: str, content: bytes) -> None:
    state = AppState(sources=Sources())
    with pytest.raises(UploadError if name.endswith(".npz") else Exception) as info:
        state.upload_motion(name, content)
    assert isinstance(info.value, UploadError) or "KinemorphError" in [c.__name__ for c in type(info.value).__mro__]
    assert f"upload:{name}" not in state.sources.motions()
    assert not any(state.sources.folder.iterdir())


def test_a_reader_crash_becomes_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    import kinemorph.app.state as state_module

    def boom(*_: object, **__: object) -> None:
        raise MemoryError

    monkeypatch.setattr(state_module, "read_bvh", boom)
    state = AppState(sources=Sources())
    with pytest.raises(UploadError, match="too large to read into memory"):
        state.upload_motion("big.bvh", b"HIERARCHY\n")
    monkeypatch.setattr(state_module, "read_bvh", lambda *_: (_ for _ in ()).throw(TypeError("bad")))
    with pytest.raises(UploadError, match=r"cannot be read \(TypeError: bad\)"):
        state.upload_motion("odd.bvh", b"HIERARCHY\n")
    assert state.sources.motions() == state.sources.samples()


# -- robot uploads ------------------------------------------------------------------------------------------
LEG = """
      <body name="{s}_thigh" pos="0 {y} -0.1">
        <joint name="{s}_hip" type="hinge" axis="0 1 0" range="-1 1"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.35" size="0.04" mass="1"/>
        <body name="{s}_shin" pos="0 0 -0.38">
          <joint name="{s}_knee" type="hinge" axis="0 1 0" range="0 2"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.33" size="0.03" mass="0.5"/>
          <body name="{s}_foot" pos="0 0 -0.36">
            <joint name="{s}_ankle" type="hinge" axis="0 1 0" range="-1 1"/>
            <geom type="box" pos="0.03 0 -0.02" size="0.08 0.04 0.02" mass="0.2"/>
          </body>
        </body>
      </body>"""

ARM = (
    """<mujoco model="biped">{compiler}
  <asset>{assets}</asset>
  <worldbody>
    <body name="pelvis" pos="0 0 0.9">
      <freejoint/>
      <geom type="box" size="0.1 0.15 0.1" mass="5"/>{geoms}"""
    + LEG.format(s="left", y=0.1)
    + LEG.format(s="right", y=-0.1)
    + """
    </body>
  </worldbody>
</mujoco>
"""
)
"""A small biped (three links a leg): the robot loader recognises its legs."""

TETRA_OBJ = b"v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def _arm(*, mesh: str = "", include: str = "", compiler: str = "") -> bytes:
    assets = f'<mesh name="shell" file="{mesh}"/>' if mesh else ""
    geoms = '\n      <geom type="mesh" mesh="shell" mass="0.1"/>' if mesh else ""
    text = ARM.format(compiler=compiler, assets=assets, geoms=geoms)
    if include:
        text = text.replace("<worldbody>", f'<include file="{include}"/>\n  <worldbody>')
    return text.encode()


@pytest.mark.parametrize(
    "content",
    [
        _arm(include="/etc/passwd"),
        _arm(include="../../../etc/hostname"),
        _arm(mesh="/etc/passwd"),
        _arm(mesh="../../secret.stl"),
        _arm(mesh="m.stl", compiler='\n  <compiler meshdir="/usr/share"/>'),
        _arm(mesh="m.stl", compiler='\n  <compiler meshdir="../.."/>'),
    ],
    ids=["include-absolute", "include-escape", "mesh-absolute", "mesh-escape", "meshdir-absolute", "meshdir-escape"],
)
def test_an_uploaded_model_cannot_reach_outside_its_folder(content: bytes) -> None:
    state = AppState(sources=Sources())
    with pytest.raises(UploadError, match=r"absolute path|outside the upload"):
        state.upload_robot("arm.xml", content)
    assert state.sources.models() == {}
    assert not any(state.sources.folder.iterdir())


def test_includes_resolve_inside_the_zip(tmp_path: Path) -> None:
    root = tmp_path / "robot"
    (root / "parts").mkdir(parents=True)
    (root / "parts" / "extra.xml").write_text('<mujoco><include file="../../outside.xml"/></mujoco>')
    (tmp_path / "outside.xml").write_text("<mujoco/>")
    (root / "arm.xml").write_bytes(_arm(include="parts/extra.xml"))
    with pytest.raises(UploadError, match="outside the upload"):
        model_files(root / "arm.xml", root, "arm.zip")


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_a_robot_zip_brings_its_meshes() -> None:
    state = AppState(sources=Sources())
    content = _zip({"arm/arm.xml": _arm(mesh="assets/shell.obj"), "arm/assets/shell.obj": TETRA_OBJ,
                    "arm/scene.xml": b'<mujoco><include file="arm.xml"/></mujoco>'})  # fmt: skip
    robot = state.upload_robot("arm.zip", content)
    assert state.robot_key == "upload:arm/arm/arm.xml"
    assert robot.dof_names[:3] == ("left_hip", "left_knee", "left_ankle")
    assert state.robot(meshes=True).model.nmesh == 1
    assert state.notes == {}


def test_a_lone_mjcf_without_its_meshes_loads_without_them_and_says_so() -> None:
    state = AppState(sources=Sources())
    state.upload_robot("arm.xml", _arm(mesh="assets/pelvis.STL"))
    assert state.robot_key == "upload:arm.xml"
    assert "assets/pelvis.STL not uploaded" in state.notes["upload:arm.xml"]
    assert state.robot(meshes=True).model.nmesh == 0  # drawn without meshes instead of failing


def test_a_zip_member_outside_the_folder_is_refused() -> None:
    state = AppState(sources=Sources())
    with pytest.raises(UploadError, match="outside the upload"):
        state.upload_robot("evil.zip", _zip({"../evil.xml": _arm()}))
    assert state.sources.models() == {}


def test_the_robot_file_is_chosen_over_its_scene(tmp_path: Path) -> None:
    (tmp_path / "scene.xml").write_text('<mujoco><include file="g1.xml"/></mujoco>')
    (tmp_path / "g1.xml").write_text("<mujoco/>")
    assert find_model([tmp_path / "scene.xml", tmp_path / "g1.xml"], tmp_path, "g1.zip").name == "g1.xml"


@needs_menagerie
def test_an_uploaded_lone_g1_is_drawn_without_its_meshes() -> None:
    """The issue's case: g1.xml alone (its assets/*.STL not uploaded) is accepted, says so, and
    the robot view's load (meshes asked for) does not fail."""
    state = AppState(sources=Sources())
    g1 = Path(os.environ["MENAGERIE_ROOT"]) / "unitree_g1" / "g1.xml"
    robot = state.upload_robot("g1.xml", g1.read_bytes())
    assert len(robot.dof_names) == 29
    assert "without its meshes" in state.notes["upload:g1.xml"] and "assets/pelvis.STL" in state.notes["upload:g1.xml"]
    assert state.load("upload:g1.xml", meshes=True).model.nmesh == 0


# -- SIGTERM --------------------------------------------------------------------------------------------
def test_sigterm_removes_the_upload_folder(tmp_path: Path) -> None:
    pytest.importorskip("viser")
    script = textwrap.dedent(
        """
        import sys, time
        from kinemorph.app.server import start_app
        app = start_app(port=0, verbose=False)
        app.state.sources.store("a.bvh", b"x", (".bvh",))
        print("FOLDER", app.state.sources.folder, flush=True)
        while True:
            time.sleep(1)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        folder = Path(next(ln for ln in proc.stdout if ln.startswith("FOLDER")).split(" ", 1)[1].strip())  # type: ignore[union-attr]
        assert folder.is_dir() and (folder / "a.bvh").is_file()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not folder.exists()
