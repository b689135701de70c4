"""A user's contact schedule (``--contacts FILE``): per-foot booleans, one row per frame."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..._npz import read_npz
from ...errors import KinemorphError


def read_contacts(path: str | Path, frames: int) -> np.ndarray:
    """Contacts (frames, 4) bool, feet FL FR RL RR, from .npy, .npz (key "contacts") or text
    (.csv/.txt: rows of four 0/1 values, commas or spaces, lines starting with # skipped)."""
    p = Path(path)
    if not p.is_file():
        raise KinemorphError(f"{p}: contacts file not found")
    try:
        if p.suffix == ".npz":
            data = read_npz(p)
            if "contacts" not in data:
                raise KinemorphError(f"{p}: no 'contacts' array (keys: {', '.join(sorted(data)) or 'none'})")
            raw = np.asarray(data["contacts"])
        elif p.suffix == ".npy":
            raw = np.load(p, allow_pickle=False)
        else:
            rows = []
            for line_no, line in enumerate(p.read_text().splitlines(), start=1):
                text = line.split("#", 1)[0].replace(",", " ").split()
                if not text:
                    continue
                try:
                    rows.append([float(x) for x in text])
                except ValueError:
                    raise KinemorphError(f"{p}:{line_no}: not a row of numbers: {line.strip()!r}") from None
                if len(rows[-1]) != 4:
                    raise KinemorphError(f"{p}:{line_no}: {len(rows[-1])} values, expected 4 (FL FR RL RR)")
            raw = np.array(rows)
    except (ValueError, OSError) as exc:
        raise KinemorphError(f"{p}: cannot read contacts: {exc}") from None
    if raw.ndim != 2 or raw.shape[1] != 4:
        raise KinemorphError(f"{p}: contacts have shape {raw.shape}, expected (frames, 4) for FL FR RL RR")
    if raw.shape[0] != frames:
        raise KinemorphError(f"{p}: {raw.shape[0]} rows of contacts for a clip of {frames} frames")
    if raw.dtype != bool and not np.isin(raw, (0, 1)).all():
        raise KinemorphError(f"{p}: contacts must be booleans (0 or 1)")
    return raw.astype(bool)
