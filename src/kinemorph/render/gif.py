"""An animated GIF written frame by frame (Pillow's GIF encoder, one frame in memory at a time).

Every frame is mapped, without dithering, onto one 255-colour palette taken from the first frame
(median cut): a fixed camera distance and the same floor and sky keep the colours of a clip
close to its first frame's, one palette saves a local colour table per frame, and undithered
flat areas compress several times better under GIF's LZW than dithered ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


class GifWriter:
    """``send`` frames (H, W, 3) uint8 one at a time; ``close`` ends the file. Loops forever."""

    def __init__(self, path: str | Path, fps: float, *, colors: int = 255) -> None:
        self.path = Path(path)
        self.fps = float(min(fps, 50.0))  # browsers play delays under 20 ms as 100 ms
        self.colors = colors
        self.frames = 0
        self._palette: Any = None
        self._file = open(self.path, "wb")

    def send(self, frame: np.ndarray) -> None:
        from PIL import GifImagePlugin, Image

        image = Image.fromarray(np.ascontiguousarray(frame, dtype=np.uint8), "RGB")
        if self._palette is None:
            self._palette = image.quantize(self.colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
            header, _ = GifImagePlugin.getheader(self._palette, info={"loop": 0, "optimize": False})
            self._file.writelines(header)
            indexed = self._palette
        else:
            indexed = image.quantize(palette=self._palette, dither=Image.Dither.NONE)
        self._file.writelines(GifImagePlugin.getdata(indexed, duration=self.delay_ms(self.frames)))
        self.frames += 1

    def delay_ms(self, k: int) -> int:
        """Frame ``k``'s delay [ms]: GIF counts in 10 ms steps, so delays alternate (60, 70, 70 ms at
        15 fps) to keep the clip's length exact."""

        def at(i: int) -> int:
            return round(i * 100.0 / self.fps)

        return 10 * (at(k + 1) - at(k))

    def close(self) -> None:
        if not self._file.closed:
            self._file.write(b";")  # the GIF trailer
            self._file.close()

    def __enter__(self) -> GifWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
