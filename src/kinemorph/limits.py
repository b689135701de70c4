"""The bounds kinemorph puts on its inputs, in one place (the README's "Bad input" lists them).

Each is checked where the data enters, with a message naming the file (and line) or the option.
"""

from __future__ import annotations

MIN_FPS = 1.0
"""Lowest frame rate a motion may have [1/s] (a BVH Frame Time of at most 1 s)."""

MAX_FPS = 10_000.0
"""Highest frame rate a motion may have [1/s] (a BVH Frame Time of at least 0.1 ms)."""

MAX_FILE_BYTES = 2_000_000_000
"""Largest motion file read (BVH text, keypoint or AMASS .npz on disk) [bytes]."""

MAX_NPZ_BYTES = 2_000_000_000
"""Largest total size the arrays of one .npz may decompress to [bytes], read from the zip
headers before anything is inflated. KINEMORPH_MAX_NPZ_BYTES overrides it."""

MAX_FRAMES = 10_000_000
"""Most frames one motion may have (about 28 hours at 100 fps)."""

MAX_GAIT_SECONDS = 3600.0
"""Longest stylized walk `kinemorph gait` generates [s]."""

MAX_GAIT_FPS = 1000.0
"""Highest frame rate of a stylized walk [1/s]."""


def max_npz_bytes() -> int:
    """MAX_NPZ_BYTES, or the KINEMORPH_MAX_NPZ_BYTES environment variable when set."""
    import os

    raw = os.environ.get("KINEMORPH_MAX_NPZ_BYTES")
    try:
        return int(raw) if raw else MAX_NPZ_BYTES
    except ValueError:
        return MAX_NPZ_BYTES
