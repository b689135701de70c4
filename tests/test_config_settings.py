"""Settings "part.field=value" on nested config dataclasses (kinemorph.config_fields.apply_settings),
as ``kinemorph gait --control`` and the benchmarks' ``--set`` take them."""

from __future__ import annotations

import pytest

from kinemorph.config_fields import apply_settings
from kinemorph.control import ControlConfig
from kinemorph.errors import ConfigError


def test_nested_settings_are_applied_and_typed() -> None:
    base = ControlConfig()
    cfg = apply_settings(base, ["stepping.enabled=true", "stepping.hold.enabled=1", "stepping.min_time=0.1",
                                "wbc.push_constraints=yes", "settle_time=0.5", "stepping.kappa_steps=4"])  # fmt: skip
    assert cfg.stepping.enabled and cfg.stepping.hold.enabled and cfg.wbc.push_constraints
    assert cfg.stepping.min_time == 0.1 and cfg.settle_time == 0.5
    assert cfg.stepping.kappa_steps == 4 and isinstance(cfg.stepping.kappa_steps, int)
    assert base == ControlConfig()  # the input is not changed
    assert apply_settings(base, []) is base
    assert apply_settings(cfg, ["stepping.hold.enabled=false"]).stepping.hold.enabled is False


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("stepping.enabled", "expected PART.FIELD=VALUE"),
        ("=1", "expected PART.FIELD=VALUE"),
        ("steping.enabled=true", "ControlConfig has no part 'steping'"),
        ("settle_time.x=1", "ControlConfig has no part 'settle_time'"),
        ("stepping.nope=1", "SteppingConfig has no setting 'nope'"),
        ("stepping.hold=true", "SteppingConfig has no setting 'hold'"),  # a part, not a value
        ("stepping.enabled=maybe", "bad value"),
        ("stepping.min_time=fast", "bad value"),
        ("stepping.max_kappa=0.5", "SteppingConfig: need max_kappa >= 1"),  # the config's own check
        ("stepping.hold.kappa=0", "HoldConfig: need 0 < kappa"),
    ],
)
def test_bad_settings_say_which_and_why(setting: str, message: str) -> None:
    with pytest.raises(ConfigError, match="--control") as err:
        apply_settings(ControlConfig(), [setting], option="--control")
    assert repr(setting) in str(err.value) and message in str(err.value)
