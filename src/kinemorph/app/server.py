"""The app: a viser server with four pages over one shared state, bound to loopback by default.

    kinemorph app                      # http://127.0.0.1:8080
    kinemorph app --host 0.0.0.0 --port 8090 --robot-model my_robot.xml

A button group switches pages (each page's panel and its part of the 3D scene); a clock thread
advances the active page's playback.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .gait_editor import GaitEditor
from .page_gait import GaitPage
from .page_motion import MotionPage
from .page_preview import PreviewPage
from .page_setup import SetupPage
from .scene import RobotView, add_floor
from .sources import MAX_UPLOAD_BYTES, Sources
from .state import AppState
from .upload_gate import UploadGate

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
TICK_S = 1.0 / 30.0


class App:
    """Pages, shared scene pieces (floor, one view per robot) and the playback clock."""

    def __init__(self, server: Any, state: AppState, gait: GaitEditor | None = None) -> None:
        self.server = server
        self.state = state
        self.uploads = UploadGate(server, state.sources.max_upload_bytes).install()
        self.motion_page = MotionPage(state)
        self.setup_page = SetupPage(state)
        self.preview_page = PreviewPage(state)
        self.gait_page = GaitPage(gait)
        self.pages: dict[str, Any] = {
            p.title: p for p in (self.motion_page, self.setup_page, self.preview_page, self.gait_page)
        }
        self.active: Any = None
        self.views: dict[str, RobotView] = {}
        self.roots: dict[str, Any] = {}
        self._stop = threading.Event()
        self._previous_sigterm: Any = None
        self.camera: tuple[np.ndarray, np.ndarray] | None = None  # position, look_at [m]
        self.follow_box: Any = None
        self._lock = threading.RLock()

    # -- scene ---------------------------------------------------------------------------------------
    def scene_root(self, name: str) -> Any:
        if name not in self.roots:
            self.roots[name] = self.server.scene.add_frame(name, show_axes=False)
        return self.roots[name]

    def robot_view(self, key: str) -> RobotView:
        """The robot's meshes, created once per robot under /robots/<key>."""
        with self._lock:
            if key not in self.views:
                robot = self.state.load(key, meshes=True)
                safe = key.replace(":", "_").replace("/", "_")
                self.views[key] = RobotView(self.server, f"/robots/{safe}", robot)
            return self.views[key]

    def show_robots(self, keys: set[str]) -> None:
        for key in keys:
            self.robot_view(key)
        for key, view in self.views.items():
            view.visible = key in keys

    def look_at(self, target: np.ndarray, size: float) -> None:
        """Point every connected browser's camera at ``target`` [m] from a distance fitting ``size`` [m]."""
        t = np.array([target[0], target[1], 0.5 * size])
        self._set_camera(t + size * np.array([2.0, -2.0, 0.8]), t)

    def follow(self, point: np.ndarray) -> None:
        """With "Follow camera" on, keep the camera on ``point`` [m] (the root being played): it
        looks at the point's x, y at its current height, from its current direction and distance
        (which the user's orbit and zoom set); moves under 1 cm wait. Computed from the point, not
        from deltas, so a camera update arriving late from a browser cannot make it drift."""
        if self.follow_box is not None and not self.follow_box.value:
            return
        if self.camera is None:
            return
        position, look = self.camera
        target = np.array([point[0], point[1], look[2]], dtype=np.float64)
        if float(np.linalg.norm(target - look)) < 0.01:
            return
        self._set_camera(target + (position - look), target)

    def _set_camera(self, position: np.ndarray, look_at: np.ndarray) -> None:
        """Every browser's camera, remembered for browsers that connect (or reload) later."""
        self.camera = (np.asarray(position, dtype=np.float64), np.asarray(look_at, dtype=np.float64))
        for client in self.server.get_clients().values():
            with client.atomic():
                client.camera.position, client.camera.look_at = self.camera

    def watch_upload(self, button: Any, notice: Any) -> None:
        """Show in ``notice`` when an upload of ``button`` is refused for its size."""
        self.uploads.watch(button, notice.error)

    def motion_frame(self) -> int:
        return self.motion_page.playback.frame

    # -- pages ---------------------------------------------------------------------------------------
    def build(self) -> None:
        gui = self.server.gui
        self.server.scene.set_up_direction("+z")
        add_floor(self.server)
        gui.configure_theme(control_width="large")  # the mapping and quality tables need the room
        gui.add_markdown("**kinemorph**: motion, retarget setup and preview, gait editor")
        self.page_buttons = gui.add_button_group("Page", tuple(self.pages))
        self.page_md = gui.add_markdown("")
        self.follow_box = gui.add_checkbox(
            "Follow camera", initial_value=True, hint="the camera moves with the robot or skeleton being played"
        )
        self.folders = {}
        for title, page in self.pages.items():
            self.scene_root(f"/{title.lower()}")
            self.folders[title] = gui.add_folder(title)
            with self.folders[title]:
                page.build(self, gui)

        @self.page_buttons.on_click
        def _(_: Any) -> None:
            self.switch(str(self.page_buttons.value))

        @self.server.on_client_connect
        def _(client: Any) -> None:
            if self.camera is None:
                self.camera = (np.array([3.0, -3.0, 1.8]), np.array([0.0, 0.0, 0.7]))
            client.camera.position, client.camera.look_at = self.camera  # the same view after a reload

            @client.camera.on_update
            def _(cam: Any) -> None:  # the user's orbit and zoom are kept too
                self.camera = (np.asarray(cam.position, dtype=np.float64), np.asarray(cam.look_at, dtype=np.float64))

        self.switch("Motion")

    def switch(self, title: str) -> None:
        """Show one page: its panel and its part of the 3D scene."""
        page = self.pages[title]
        if self.active is not None and self.active is not page:
            self.active.activate(False)
        for t, folder in self.folders.items():
            folder.visible = t == title
        self.page_md.content = f"Page: **{title}**"
        self.active = page
        page.activate(True)

    # -- clock ---------------------------------------------------------------------------------------
    def run_clock(self) -> threading.Thread:
        def loop() -> None:
            last = time.perf_counter()
            while not self._stop.is_set():
                now = time.perf_counter()
                page = self.active
                pb = getattr(page, "playback", None)
                if pb is not None and not getattr(page, "testing", False):
                    with self.server.atomic():
                        pb.tick(now - last)
                last = now
                self._stop.wait(TICK_S)

        thread = threading.Thread(target=loop, name="kinemorph-clock", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        """Stop the clock and the server and delete the uploads folder (idempotent)."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._previous_sigterm is not None:
            signal.signal(signal.SIGTERM, self._previous_sigterm)
            self._previous_sigterm = None
        self.server.stop()
        self.state.sources.close()

    def stop_on_sigterm(self) -> None:
        """On SIGTERM, stop (which deletes the temporary upload folder) and exit with 143. Only
        from the main thread (where Python runs signal handlers); stop() puts the old handler back."""
        if threading.current_thread() is not threading.main_thread():
            return

        def handler(signum: int, frame: Any) -> None:
            self.stop()
            raise SystemExit(128 + signum)

        self._previous_sigterm = signal.signal(signal.SIGTERM, handler)


def start_app(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    *,
    robot_models: Sequence[str | Path] = (),
    max_upload_bytes: int = MAX_UPLOAD_BYTES,
    verbose: bool = True,
) -> App:
    """Start the server and the app (returns at once; ``App.stop()`` ends it)."""
    import viser

    sources = Sources(max_upload_bytes=max_upload_bytes, robot_models=tuple(Path(p) for p in robot_models))
    server = viser.ViserServer(host=host, port=port, label="kinemorph", verbose=verbose)
    app = App(server, AppState(sources=sources))
    app.build()
    app.run_clock()
    app.stop_on_sigterm()
    return app
