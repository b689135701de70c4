"""Conventions shared by every layer (see DESIGN.md): names and orders that must agree."""

LEGS = ("FL", "FR", "RL", "RR")
"""Quadruped leg order everywhere in kinemorph: front left, front right, rear left, rear right."""
