"""The clean-up stage after any engine: planted contacts held, nothing below the floor or inside
itself, joint limits and a joint speed limit, ballistic flights (one QP per frame)."""

from __future__ import annotations

from ...quality.proxies import LinkProxies, link_proxies
from .config import CleanupConfig
from .schedule import ContactPoints, humanoid_contacts, mask_contacts
from .stage import CleanupReport, cleanup

__all__ = [
    "CleanupConfig",
    "CleanupReport",
    "ContactPoints",
    "LinkProxies",
    "cleanup",
    "humanoid_contacts",
    "link_proxies",
    "mask_contacts",
]
