"""Batch retargeting of many files (a dataset): a local process pool by default, Ray on request;
one output per input, a manifest and a summary, resumable, one file's failure never stopping the
others. No algorithm code here: each file goes through load_motion, retarget, evaluate and save.

    from kinemorph.batch import run_batch
    result = run_batch(["clips/**/*.bvh"], "out", robot="unitree_g1", workers=2)
"""

from .jobs import Job, Settings
from .manifest import MANIFEST_NAME, SUMMARY_NAME, Manifest, Record
from .runner import BatchResult, prepare_settings, run_batch

__all__ = [
    "MANIFEST_NAME",
    "SUMMARY_NAME",
    "BatchResult",
    "Job",
    "Manifest",
    "Record",
    "Settings",
    "prepare_settings",
    "run_batch",
]
