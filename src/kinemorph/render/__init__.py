"""Videos of robot motion: offscreen MuJoCo rendering (EGL or OSMesa) to .mp4 or .gif.

    from kinemorph.render import RenderConfig, render_video
    info = render_video(result, load_robot("unitree_g1", meshes=True), "walk.gif", RenderConfig(fps=15))

Modules: backend.py (OpenGL context), stage.py (render model: floor, sky, sun; frame renderer),
video.py (frames, camera, GIF and MP4 writers). The command is kinemorph.cli.render.
"""

from .backend import GL_BACKENDS, RenderError, gl_available, gl_backend
from .stage import Camera, FrameRenderer, render_model
from .video import VIDEO_FORMATS, RenderConfig, RenderInfo, camera_targets, frame_indices, render_video

__all__ = [
    "GL_BACKENDS",
    "VIDEO_FORMATS",
    "Camera",
    "FrameRenderer",
    "RenderConfig",
    "RenderError",
    "RenderInfo",
    "camera_targets",
    "frame_indices",
    "gl_available",
    "gl_backend",
    "render_model",
    "render_video",
]
