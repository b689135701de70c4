"""Late touch-downs: a foot the plan has put on the floor that has not reached it yet.

The gait planner's contact schedule is a clock; the simulated swing foot can land after it (a
pushed or tilted robot, a long step). Until it touches the floor such a foot is treated as
swinging: the whole-body QP gives it no contact force and keeps pressing it down from its
reference, the CoM planner's current support is the other foot alone, and the gait is slowed
(time scaling) so that the double support is not spent while the foot is still in the air.
A foot counts as touching when its lowest contact point is within ``height`` of the floor (z = 0).
"""

from __future__ import annotations

import mujoco
import numpy as np


class TouchdownWatch:
    """Per foot: whether it has reached the floor since the plan last lifted it.

    Args:
        points: contact points of each foot in its body frame [m]. Shape: (2, 4, 3).
        feet: foot body ids, left then right.
        height: a contact point this close to the floor counts as touching [m].
    """

    def __init__(self, points: np.ndarray, feet: tuple[int, int], height: float = 0.004) -> None:
        self.points = np.asarray(points, dtype=np.float64)
        self.feet = feet
        self.height = height
        self.down = np.array([True, True])
        self.waiting = np.array([False, False])

    def touching(self, d: mujoco.MjData) -> np.ndarray:
        """Whether each foot's lowest contact point is within ``height`` of the floor. Shape: (2,)."""
        out = np.zeros(2, dtype=bool)
        for f, body in enumerate(self.feet):
            z = d.xpos[body, 2] + self.points[f] @ d.xmat[body].reshape(3, 3)[2]
            out[f] = float(z.min()) < self.height
        return out

    def update(self, d: mujoco.MjData, planned: np.ndarray) -> np.ndarray:
        """Feet the plan has on the floor that have not touched it yet (kinematics computed). Shape: (2,)."""
        touch = self.touching(d)
        for f in range(2):
            if not planned[f]:
                self.down[f] = False
            elif touch[f]:
                self.down[f] = True
        self.waiting = np.asarray(planned, dtype=bool) & ~self.down
        return self.waiting.copy()
