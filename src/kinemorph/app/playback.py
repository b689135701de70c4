"""Playback of a clip: play/pause, a timeline slider, speed. The clock is plain Python (tested
without a browser); ``add_controls`` builds its widgets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SPEEDS = ("0.25", "0.5", "1", "2")


@dataclass
class Playback:
    """A looping clock over ``num_frames`` frames at ``fps``.

    Attributes:
        num_frames: frames in the clip.
        fps: the clip's rate [1/s].
        frame: the frame shown.
        playing: whether ``tick`` advances.
        speed: playback speed (1: real time).
        listeners: called with the frame whenever it changes.
    """

    num_frames: int = 1
    fps: float = 30.0
    frame: int = 0
    playing: bool = False
    speed: float = 1.0
    listeners: list[Callable[[int], None]] = field(default_factory=list)
    _time: float = 0.0

    def load(self, num_frames: int, fps: float) -> None:
        """A new clip: back to frame 0, paused state kept."""
        self.num_frames, self.fps = max(1, int(num_frames)), float(fps)
        self.seek(0)

    def seek(self, frame: int) -> None:
        self.frame = int(min(max(frame, 0), self.num_frames - 1))
        self._time = self.frame / self.fps
        for cb in list(self.listeners):
            cb(self.frame)

    def tick(self, dt: float) -> bool:
        """Advance by dt [s] of wall time when playing (looping at the end); True when the frame changed."""
        if not self.playing or self.num_frames < 2:
            return False
        self._time = (self._time + dt * self.speed) % (self.num_frames / self.fps)
        frame = min(int(self._time * self.fps), self.num_frames - 1)
        if frame == self.frame:
            return False
        self.frame = frame
        for cb in list(self.listeners):
            cb(frame)
        return True


def add_controls(gui: Any, playback: Playback) -> dict[str, Any]:
    """Play/pause button, timeline slider and speed buttons for a Playback; returns the handles.
    The slider follows the clock; moving it seeks."""
    play = gui.add_button("Play", icon=None)
    timeline = gui.add_slider("Frame", min=0, max=max(1, playback.num_frames - 1), step=1, initial_value=0)
    speed = gui.add_button_group("Speed", SPEEDS)
    syncing = [False]

    @play.on_click
    def _(_: Any) -> None:
        playback.playing = not playback.playing
        play.label = "Pause" if playback.playing else "Play"

    @timeline.on_update
    def _(_: Any) -> None:
        if not syncing[0] and int(timeline.value) != playback.frame:
            playback.seek(int(timeline.value))

    @speed.on_click
    def _(_: Any) -> None:
        playback.speed = float(speed.value)

    def follow(frame: int) -> None:
        syncing[0] = True
        try:
            timeline.max = max(1, playback.num_frames - 1)
            timeline.value = frame
        finally:
            syncing[0] = False

    playback.listeners.append(follow)
    return {"play": play, "timeline": timeline, "speed": speed}
