"""The OpenGL context for offscreen rendering: EGL or OSMesa, chosen once per process.

MuJoCo's own choice (``MUJOCO_GL``) is read when mujoco is first imported, which the package does
long before a video is asked for, and PyOpenGL fixes its platform on first import. So the context
class is imported here directly: ``MUJOCO_GL=egl|osmesa`` when set, else the first backend that
creates a context in a short probe subprocess (EGL, then OSMesa).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from typing import Any

from ..errors import KinemorphError

GL_BACKENDS = ("egl", "osmesa")
"""Offscreen backends, in the order they are tried."""

_PROBE = "from mujoco.{0} import GLContext; c = GLContext(8, 8); c.make_current(); c.free()"
_HINT = (
    "offscreen rendering needs EGL (Debian: libegl1 libgl1-mesa-dri) or OSMesa (libosmesa6); "
    "set MUJOCO_GL=egl or MUJOCO_GL=osmesa to pick one"
)


class RenderError(KinemorphError):
    """A video cannot be rendered: no OpenGL backend, a bad size or format, a model mismatch."""


def _probe(backend: str) -> str | None:
    """None when ``backend`` creates a context in a fresh interpreter, else the reason it does not."""
    env = {**os.environ, "MUJOCO_GL": backend, "PYOPENGL_PLATFORM": backend}
    try:
        run = subprocess.run(
            [sys.executable, "-c", _PROBE.format(backend)], env=env, capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        return "timed out"
    if run.returncode == 0:
        return None
    lines = [ln for ln in run.stderr.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else f"exit code {run.returncode}"


@functools.cache
def gl_backend() -> str:
    """The backend this process renders with ("egl" or "osmesa"); RenderError when none works."""
    chosen = os.environ.get("MUJOCO_GL", "").strip().lower()
    if chosen in GL_BACKENDS:
        return chosen
    reasons = []
    for backend in GL_BACKENDS:
        why = _probe(backend)
        if why is None:
            return backend
        reasons.append(f"{backend}: {why}")
    raise RenderError(f"no OpenGL backend works ({'; '.join(reasons)}); {_HINT}")


def gl_available() -> bool:
    """Whether offscreen rendering works here (see :func:`gl_backend`)."""
    try:
        gl_backend()
    except RenderError:
        return False
    return True


def gl_context(width: int, height: int) -> Any:
    """A current offscreen OpenGL context of the chosen backend; call ``.free()`` when done."""
    backend = gl_backend()
    platform = os.environ.get("PYOPENGL_PLATFORM")
    if platform and platform != backend:
        raise RenderError(f"PYOPENGL_PLATFORM={platform} conflicts with the {backend} backend; {_HINT}")
    os.environ["PYOPENGL_PLATFORM"] = backend
    try:
        if backend == "egl":
            from mujoco.egl import GLContext
        else:
            from mujoco.osmesa import GLContext  # type: ignore[no-redef]
        ctx = GLContext(width, height)
    except Exception as exc:  # PyOpenGL and the drivers raise many types; the message says which
        raise RenderError(f"cannot create an {backend} context ({type(exc).__name__}: {exc}); {_HINT}") from None
    ctx.make_current()
    return ctx
