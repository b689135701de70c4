"""The QP wrapper: both backends agree with an exact KKT solution and respect every constraint kind."""

from __future__ import annotations

import numpy as np
import pytest

from kinemorph.errors import ConfigError
from kinemorph.optim.qp import SOLVERS, solve_qp


def _random_problem(seed: int, n: int = 8, m: int = 5):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n, n))
    H = M @ M.T + 0.5 * np.eye(n)
    g = rng.normal(size=n)
    A = rng.normal(size=(m, n))
    return H, g, A


@pytest.mark.parametrize("solver", SOLVERS)
def test_unconstrained_matches_linear_solve(solver: str) -> None:
    H, g, _ = _random_problem(0)
    res = solve_qp(H, g, solver=solver, tolerance=1e-9)
    assert res.solved
    np.testing.assert_allclose(res.x, np.linalg.solve(H, -g), atol=1e-5)


@pytest.mark.parametrize("solver", SOLVERS)
def test_equality_matches_kkt(solver: str) -> None:
    H, g, A = _random_problem(1)
    b = np.arange(A.shape[0], dtype=float)
    res = solve_qp(H, g, A_eq=A, b_eq=b, solver=solver, tolerance=1e-9)
    n, m = H.shape[0], A.shape[0]
    kkt = np.block([[H, A.T], [A, np.zeros((m, m))]])
    x = np.linalg.solve(kkt, np.concatenate([-g, b]))[:n]
    assert res.solved
    np.testing.assert_allclose(res.x, x, atol=1e-4)


@pytest.mark.parametrize("solver", SOLVERS)
def test_inequalities_and_bounds_hold_and_backends_agree(solver: str) -> None:
    H, g, A = _random_problem(2)
    res = solve_qp(
        H,
        g * 10,
        A=A,
        lower=-np.ones(5),
        upper=np.ones(5),
        x_lower=-0.3 * np.ones(8),
        x_upper=0.2 * np.ones(8),
        solver=solver,
        tolerance=1e-9,
    )
    assert res.solved
    assert (A @ res.x <= 1 + 1e-5).all() and (A @ res.x >= -1 - 1e-5).all()
    assert (res.x <= 0.2 + 1e-6).all() and (res.x >= -0.3 - 1e-6).all()
    ref = solve_qp(
        H,
        g * 10,
        A=A,
        lower=-np.ones(5),
        upper=np.ones(5),
        x_lower=-0.3 * np.ones(8),
        x_upper=0.2 * np.ones(8),
        solver="daqp",
        tolerance=1e-9,
    )
    np.testing.assert_allclose(res.x, ref.x, atol=1e-4)


@pytest.mark.parametrize("solver", SOLVERS)
def test_infeasible_is_reported(solver: str) -> None:
    H = np.eye(2)
    A = np.array([[1.0, 0.0], [-1.0, 0.0]])
    res = solve_qp(H, np.zeros(2), A=A, upper=np.array([-1.0, -1.0]), solver=solver)  # x <= -1 and x >= 1
    assert res.status == "infeasible"


def test_inverted_bounds_are_infeasible() -> None:
    res = solve_qp(np.eye(2), np.zeros(2), x_lower=np.ones(2), x_upper=np.zeros(2))
    assert res.status == "infeasible"


def test_bad_shapes_and_names_are_refused() -> None:
    with pytest.raises(ConfigError, match="valid: daqp, osqp"):
        solve_qp(np.eye(2), np.zeros(2), solver="nope")
    with pytest.raises(ConfigError, match="expected"):
        solve_qp(np.eye(3), np.zeros(2))
    with pytest.raises(ConfigError, match="NaN"):
        solve_qp(np.eye(2), np.zeros(2), x_lower=np.array([np.nan, 0.0]))
