"""Conventions shared by every layer (see DESIGN.md): names and orders that must agree."""

LEGS = ("FL", "FR", "RL", "RR")
"""Quadruped leg order everywhere in kinemorph: front left, front right, rear left, rear right."""

LANDMARKS = (
    "pelvis", "neck",
    "shoulder_l", "shoulder_r", "elbow_l", "elbow_r", "wrist_l", "wrist_r",
    "knee_l", "knee_r", "ankle_l", "ankle_r", "toe_l", "toe_r",
)  # fmt: skip
"""The 14 humanoid landmarks of the relation metrics and the graph engine, in this order (after
"Morphology-agnostic humanoid retargeting via perception-motivated graph similarity")."""
