"""Page 1, Motion: open a sample or an uploaded BVH, or a video (or landmark file) fitted onto the
LAFAN1 skeleton; the skeleton as capsules on the floor (and a video's landmarks); play, scrub,
speed; the joint hierarchy and the selected joint's channels and values."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import KinemorphError
from ..motion.skeleton import POSITION_CHANNELS
from ..progress import Progress
from ..video import VideoFit
from .playback import Playback, add_controls
from .scene import PointsView, SkeletonView
from .state import AppState
from .ui import Notice, guarded
from .video_upload import landmark_points, open_video

if TYPE_CHECKING:
    from .server import App

INDENT = "· "
LANDMARK_RGB = (230, 73, 128)


class MotionPage:
    """Handlers take and change the shared :class:`AppState`; ``build`` adds the widgets."""

    title = "Motion"

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.playback = Playback()
        self.joint = 0
        self.view: SkeletonView | None = None
        self.video: VideoFit | None = None  # the fit behind the open clip, when it came from a video
        self.video_running = False
        self.video_error = ""
        self.landmarks_view: PointsView | None = None

    # -- handlers (no browser needed) --------------------------------------------------------------
    def clip_keys(self) -> list[str]:
        return list(self.state.sources.motions())

    def open(self, key: str) -> str:
        motion = self.state.open_motion(key)
        self.video = None
        self.playback.load(motion.num_frames, motion.fps)
        self.joint = 0
        return self.summary()

    def upload(self, name: str, content: bytes) -> str:
        motion = self.state.upload_motion(name, content)
        self.video = None
        self.playback.load(motion.num_frames, motion.fps)
        self.joint = 0
        return self.summary()

    def upload_video(self, name: str, content: bytes, progress: Progress | None = None) -> str:
        """A video (pose detection) or a landmark .npz, fitted onto the LAFAN1 skeleton and opened
        as an uploaded BVH (``upload:<name>_video.bvh``), ready for Setup."""
        fit = open_video(self.state, name, content, progress=progress)
        self.video = fit
        self.playback.load(fit.motion.num_frames, fit.motion.fps)
        self.joint = 0
        return f"{self.summary()}\n\nVideo fit: {fit.report.summary()}. {' '.join(fit.report.notes)}"

    def landmarks(self, frame: int | None = None) -> np.ndarray:
        """The video's landmarks at a frame in the world, beside the fitted skeleton. (33, 3) or (0, 3)."""
        if self.video is None:
            return np.zeros((0, 3))
        return landmark_points(self.video, self.playback.frame if frame is None else frame)

    def summary(self) -> str:
        m = self.state.motion
        if m is None:
            return "No motion open: pick a sample or upload a BVH."
        sk = m.skeleton
        return (
            f"**{self.state.motion_key}**: preset {m.preset} ({m.family}), {m.num_frames} frames at "
            f"{m.fps:g} fps = {m.duration:.2f} s; {sk.num_joints} joints, {sk.num_channels} channels, "
            f"stature {m.stature():.2f} m"
        )

    def joint_labels(self) -> list[str]:
        """The joints in hierarchy order, indented by depth (the tree)."""
        m = self.state.motion
        if m is None:
            return ["(none)"]
        sk = m.skeleton
        depth = [0] * sk.num_joints
        for j in range(1, sk.num_joints):
            depth[j] = depth[int(sk.parents[j])] + 1
        return [f"{INDENT * depth[j]}{sk.names[j]}" for j in range(sk.num_joints)]

    def select_joint(self, label: str) -> int:
        m = self.state.motion
        if m is None:
            return 0
        self.joint = m.skeleton.index(label.replace(INDENT, "").strip())
        return self.joint

    def channels(self, frame: int | None = None) -> list[tuple[str, float, str]]:
        """(channel, value, unit) of the selected joint at a frame: the file's own channel values
        for BVH clips (degrees, file length units), then its global position [m]."""
        m = self.state.motion
        if m is None:
            return []
        f = self.playback.frame if frame is None else frame
        sk, j = m.skeleton, self.joint
        rows: list[tuple[str, float, str]] = []
        bvh = self.state.bvh
        if bvh is not None:
            col = sum(len(c) for c in sk.channels[:j])
            for i, c in enumerate(sk.channels[j]):
                unit = "file units" if c in POSITION_CHANNELS else "deg"
                rows.append((c, float(bvh.values[f, col + i]), unit))
        for axis, v in zip("xyz", m.positions[f, j]):
            rows.append((f"world {axis}", float(v), "m"))
        return rows

    def channels_markdown(self) -> str:
        rows = self.channels()
        if not rows:
            return ""
        name = self.state.motion.skeleton.names[self.joint] if self.state.motion else ""
        body = "\n".join(f"| {c} | {v:.3f} | {u} |" for c, v, u in rows)
        return f"**{name}**, frame {self.playback.frame}\n\n| channel | value | unit |\n|---|---:|---|\n{body}"

    # -- widgets -----------------------------------------------------------------------------------
    def build(self, app: App, gui: Any) -> None:
        self.app = app
        with gui.add_folder("Open"):
            keys = self.clip_keys()
            self.clip = gui.add_dropdown("Clip", keys or ["(no samples: set KINEMORPH_DATA)"])
            self.open_button = gui.add_button("Open clip", disabled=not keys)
            self.upload_button = gui.add_upload_button("Upload BVH / NPZ", mime_type=".bvh,.npz")
            self.video_button = gui.add_upload_button("Upload video / landmarks", mime_type="video/*,.npz")
            self.video_bar = gui.add_progress_bar(0.0, animated=False, visible=False)
            self.show_landmarks = gui.add_checkbox("Video landmarks", initial_value=True)
            self.notice = Notice(gui)
            app.watch_upload(self.upload_button, self.notice)
            app.watch_upload(self.video_button, self.notice)
        self.summary_md = gui.add_markdown(self.summary())
        with gui.add_folder("Playback"):
            self.controls = add_controls(gui, self.playback)
        with gui.add_folder("Joints"):
            self.joint_dd = gui.add_dropdown("Joint", self.joint_labels())
            self.channels_md = gui.add_markdown("")
        self.playback.listeners.append(self._on_frame)

        @self.open_button.on_click
        def _(_: Any) -> None:
            guarded(self.notice, lambda: self.open(str(self.clip.value)))
            self._refresh()

        @self.upload_button.on_upload
        def _(_: Any) -> None:
            f = self.upload_button.value
            guarded(self.notice, lambda: self.upload(f.name, f.content))
            self._refresh()

        @self.video_button.on_upload
        def _(_: Any) -> None:
            f = self.video_button.value
            self.start_video(f.name, f.content)

        @self.show_landmarks.on_update
        def _(_: Any) -> None:
            if self.landmarks_view is not None:
                self.landmarks_view.handle.visible = bool(self.show_landmarks.value)

        @self.joint_dd.on_update
        def _(_: Any) -> None:
            self.select_joint(str(self.joint_dd.value))
            if self.view is not None:
                self.view.select(self.joint)
            self.channels_md.content = self.channels_markdown()

    def start_video(self, name: str, content: bytes) -> threading.Thread | None:
        """Detect and fit in a worker thread (the server keeps serving), with the progress bar."""
        if self.video_running:
            return None
        self.video_running = True
        self.video_button.disabled = True
        self.video_bar.visible, self.video_bar.value = True, 0.0
        self.notice.info(f"{name}: detecting the person and fitting the skeleton...")
        worker = threading.Thread(target=self._video_work, args=(name, content), name="kinemorph-video", daemon=True)
        worker.start()
        return worker

    def _video_progress(self, done: int, total: int) -> None:
        self.video_bar.value = 100.0 * done / total if total else 100.0

    def _video_work(self, name: str, content: bytes) -> None:
        try:
            text = self.upload_video(name, content, self._video_progress)
        except Exception as exc:  # shown in the page, not swallowed: the server keeps serving
            self.video_error = str(exc) if isinstance(exc, KinemorphError) else f"{type(exc).__name__}: {exc}"
            self.notice.error(self.video_error)
        else:
            self.video_error = ""
            self.notice.info(text.split("Video fit: ", 1)[-1])
            self._refresh()
        finally:
            self.video_running = False
            self.video_button.disabled = False
            self.video_bar.visible = False

    def _refresh(self) -> None:
        """Redraw after a new clip: summary, clip list, joint tree, skeleton."""
        self.summary_md.content = self.summary()
        keys = self.clip_keys()
        if keys:
            self.clip.options = keys
            if self.state.motion_key in keys:
                self.clip.value = self.state.motion_key
        self.joint_dd.options = self.joint_labels()
        m = self.state.motion
        if m is None:
            return
        if self.view is not None:
            self.view.remove()
        self.view = SkeletonView(self.app.server, "/motion/skeleton", m)
        if self.landmarks_view is not None:
            self.landmarks_view.remove()
            self.landmarks_view = None
        if self.video is not None:
            self.landmarks_view = PointsView(self.app.server, "/motion/landmarks", self.landmarks(), LANDMARK_RGB, 0.02)
            self.landmarks_view.handle.visible = bool(self.show_landmarks.value)
        self.view.select(self.joint)
        self.controls["timeline"].max = max(1, m.num_frames - 1)
        self.app.look_at(m.positions[0, 0], m.stature())
        self._on_frame(self.playback.frame)

    def _on_frame(self, frame: int) -> None:
        if self.view is not None and self.state.motion is not None:
            self.view.show(frame)
            if self.app.active is self:
                self.app.follow(self.state.motion.positions[frame, 0])
            if self.landmarks_view is not None:
                self.landmarks_view.show(self.landmarks(frame))
            self.channels_md.content = self.channels_markdown()

    def activate(self, active: bool) -> None:
        self.app.scene_root("/motion").visible = active
        if active:
            self.app.show_robots(set())

    def center(self) -> np.ndarray | None:
        m = self.state.motion
        return None if m is None else m.positions[self.playback.frame, 0]
