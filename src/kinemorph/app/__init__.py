"""The browser app (viser): motion viewer, retarget setup and preview, gait editor.

The app holds no algorithm code: its pages call the library. Modules: sources.py (what the
browser may open: samples, uploads, listed robot models), state.py (the shared state, plain
Python), geometry.py and scene.py (capsule skeletons, robot meshes from the MuJoCo model,
checkerboard floor), playback.py, forms.py (config dataclasses as widgets), ui.py, one module per
page (page_motion, page_setup with setup_logic, page_preview, page_gait with gait_editor), server.py,
cli.py.
Page handlers are plain methods over the state, tested without a browser (tests/test_app.py).
viser is imported only by the modules that draw (the [app] extra).
"""

from .gait_editor import GaitEditor
from .sources import MAX_UPLOAD_BYTES, Sources, UploadError
from .state import AppState

__all__ = ["MAX_UPLOAD_BYTES", "AppState", "GaitEditor", "Sources", "UploadError"]
