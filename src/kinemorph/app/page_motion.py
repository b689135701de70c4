"""Page 1, Motion: open a sample or an uploaded BVH; the skeleton as capsules on the floor; play,
scrub, speed; the joint hierarchy and the selected joint's channels and values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..motion.skeleton import POSITION_CHANNELS
from .playback import Playback, add_controls
from .scene import SkeletonView
from .state import AppState
from .ui import Notice, guarded

if TYPE_CHECKING:
    from .server import App

INDENT = "· "


class MotionPage:
    """Handlers take and change the shared :class:`AppState`; ``build`` adds the widgets."""

    title = "Motion"

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.playback = Playback()
        self.joint = 0
        self.view: SkeletonView | None = None

    # -- handlers (no browser needed) --------------------------------------------------------------
    def clip_keys(self) -> list[str]:
        return list(self.state.sources.motions())

    def open(self, key: str) -> str:
        motion = self.state.open_motion(key)
        self.playback.load(motion.num_frames, motion.fps)
        self.joint = 0
        return self.summary()

    def upload(self, name: str, content: bytes) -> str:
        motion = self.state.upload_motion(name, content)
        self.playback.load(motion.num_frames, motion.fps)
        self.joint = 0
        return self.summary()

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
            self.upload_button = gui.add_upload_button("Upload BVH", mime_type=".bvh")
            self.notice = Notice(gui)
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

        @self.joint_dd.on_update
        def _(_: Any) -> None:
            self.select_joint(str(self.joint_dd.value))
            if self.view is not None:
                self.view.select(self.joint)
            self.channels_md.content = self.channels_markdown()

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
        self.view.select(self.joint)
        self.controls["timeline"].max = max(1, m.num_frames - 1)
        self.app.look_at(m.positions[0, 0], m.stature())
        self._on_frame(self.playback.frame)

    def _on_frame(self, frame: int) -> None:
        if self.view is not None and self.state.motion is not None:
            self.view.show(frame)
            self.channels_md.content = self.channels_markdown()

    def activate(self, active: bool) -> None:
        self.app.scene_root("/motion").visible = active
        if active:
            self.app.show_robots(set())

    def center(self) -> np.ndarray | None:
        m = self.state.motion
        return None if m is None else m.positions[self.playback.frame, 0]
