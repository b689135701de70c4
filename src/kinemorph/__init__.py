"""kinemorph: motion capture and authored motion onto legged robots, with quality metrics."""

__version__ = "0.1.0"
