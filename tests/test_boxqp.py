"""The box-QP solver against the KKT conditions, problems with a known optimum, and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import lsq_linear

from kinemorph.optim.boxqp import (
    STATUS_NOT_PD,
    BoxQpWork,
    box_qp,
    ldl_tree_factor,
    ldl_tree_solve,
    solve_box_qp,
)

sizes = st.integers(1, 40)
seeds = st.integers(0, 2**32 - 1)
patterns = st.sampled_from(["dense", "tree"])


def random_parent(n: int, rng: np.random.Generator) -> np.ndarray:
    """A forest in topological order: parent[i] < i, -1 for roots."""
    return np.array([-1] + [int(rng.integers(-1, i)) for i in range(1, n)], dtype=np.int64)


def ancestors(parent: np.ndarray, i: int) -> list[int]:
    """i and its ancestors."""
    out = []
    while i >= 0:
        out.append(i)
        i = int(parent[i])
    return out


def random_pd(n: int, rng: np.random.Generator, parent: np.ndarray | None) -> np.ndarray:
    """Symmetric positive definite H; with parent, non-zero only between a variable and its ancestors
    (a sum of outer products of vectors supported on root-to-node chains, as IK normal equations are)."""
    h = 1e-3 * np.eye(n)
    for _ in range(2 * n):
        a = np.zeros(n)
        support = ancestors(parent, int(rng.integers(n))) if parent is not None else range(n)
        a[list(support)] = rng.normal(size=len(support))
        h += np.outer(a, a)
    return h


def random_problem(
    n: int, seed: int, pattern: str, *, inf_fraction: float = 0.2
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    rng = np.random.default_rng(seed)
    parent = random_parent(n, rng) if pattern == "tree" else None
    h = random_pd(n, rng, parent)
    c = rng.normal(scale=3.0, size=n)
    lb = rng.uniform(-2.0, 0.5, size=n)
    ub = lb + rng.uniform(0.0, 2.0, size=n)
    lb[rng.random(n) < inf_fraction] = -np.inf
    ub[rng.random(n) < inf_fraction] = np.inf
    return h, c, lb, ub, parent


def assert_kkt(h: np.ndarray, c: np.ndarray, lb: np.ndarray, ub: np.ndarray, x: np.ndarray) -> None:
    """Feasible; gradient zero on free variables, >= 0 at a lower bound, <= 0 at an upper bound."""
    tol = 1e-8 * (1.0 + np.abs(h).max() * (1.0 + np.abs(x).max()) + np.abs(c).max())
    assert np.all(x >= lb) and np.all(x <= ub)
    g = h @ x + c
    at_lo = x == lb
    at_hi = x == ub
    free = ~(at_lo | at_hi)
    np.testing.assert_allclose(g[free], 0.0, atol=tol)
    assert np.all(g[at_lo & ~at_hi] >= -tol)
    assert np.all(g[at_hi & ~at_lo] <= tol)


def objective(h: np.ndarray, c: np.ndarray, x: np.ndarray) -> float:
    return float(0.5 * x @ h @ x + c @ x)


# -- the factorisation ------------------------------------------------------------------------
@given(n=sizes, seed=seeds, pattern=patterns)
def test_tree_ldl_solves_linear_systems(n: int, seed: int, pattern: str) -> None:
    rng = np.random.default_rng(seed)
    parent = random_parent(n, rng) if pattern == "tree" else np.arange(n, dtype=np.int64) - 1
    h = random_pd(n, rng, parent if pattern == "tree" else None)
    f = np.tril(h).copy()
    assert ldl_tree_factor(f, parent, n)
    b = rng.normal(size=n)
    x = b.copy()
    ldl_tree_solve(f, parent, n, x)
    np.testing.assert_allclose(h @ x, b, atol=1e-8 * (1 + np.abs(b).max()) * np.linalg.cond(h) ** 0.5)


@given(n=st.integers(2, 20), seed=seeds)
def test_tree_sparse_factor_creates_no_fill_in(n: int, seed: int) -> None:
    """The factor stays on the pattern: off-pattern entries of the work matrix are never written."""
    rng = np.random.default_rng(seed)
    parent = random_parent(n, rng)
    h = random_pd(n, rng, parent)
    on_pattern = np.zeros((n, n), dtype=bool)
    for i in range(n):
        on_pattern[i, ancestors(parent, i)] = True
    assert np.all(h[~(on_pattern | on_pattern.T)] == 0.0)
    f = np.where(on_pattern, h, 7.0)  # sentinel off the pattern
    assert ldl_tree_factor(f, parent, n)
    assert np.all(f[~on_pattern] == 7.0)


def test_factor_reports_an_indefinite_matrix() -> None:
    h = np.array([[1.0, 2.0], [2.0, 1.0]])
    parent = np.array([-1, 0], dtype=np.int64)
    assert not ldl_tree_factor(np.tril(h).copy(), parent, 2)


# -- optimality -------------------------------------------------------------------------------
@given(n=sizes, seed=seeds, pattern=patterns)
def test_solution_satisfies_kkt(n: int, seed: int, pattern: str) -> None:
    h, c, lb, ub, parent = random_problem(n, seed, pattern)
    x, status = box_qp(h, c, lb, ub, parent)
    assert status >= 0
    assert_kkt(h, c, lb, ub, x)


@given(n=sizes, seed=seeds, pattern=patterns, kinds=st.sampled_from(["mixed", "all_lower", "all_upper", "all_bounds"]))
def test_recovers_a_planted_optimum(n: int, seed: int, pattern: str, kinds: str) -> None:
    """Choose x*, its active set and multipliers, derive c = g - H x*: x* is the unique optimum."""
    rng = np.random.default_rng(seed)
    parent = random_parent(n, rng) if pattern == "tree" else None
    h = random_pd(n, rng, parent)
    state = {
        "mixed": rng.integers(-1, 2, size=n),
        "all_lower": -np.ones(n, dtype=int),
        "all_upper": np.ones(n, dtype=int),
        "all_bounds": rng.choice([-1, 1], size=n),
    }[kinds]
    lb = rng.uniform(-2.0, 0.0, size=n)
    ub = lb + rng.uniform(0.1, 2.0, size=n)
    x_star = np.where(state < 0, lb, np.where(state > 0, ub, rng.uniform(lb, ub)))
    g = np.where(state < 0, rng.uniform(0.01, 3.0, size=n), np.where(state > 0, -rng.uniform(0.01, 3.0, size=n), 0.0))
    free = state == 0
    # Bounds a free variable never touches may be infinite.
    lb[free & (rng.random(n) < 0.3)] = -np.inf
    ub[free & (rng.random(n) < 0.3)] = np.inf
    c = g - h @ x_star
    x, status = box_qp(h, c, lb, ub, parent)
    assert status >= 0
    np.testing.assert_allclose(x, x_star, atol=1e-8 * (1 + np.abs(x_star).max()) * np.linalg.cond(h) ** 0.5)
    np.testing.assert_array_equal(x[state < 0], lb[state < 0])  # active bounds are met exactly
    np.testing.assert_array_equal(x[state > 0], ub[state > 0])


@given(n=sizes, seed=seeds, pattern=patterns)
def test_infinite_bounds_give_the_unconstrained_minimum(n: int, seed: int, pattern: str) -> None:
    h, c, _, _, parent = random_problem(n, seed, pattern)
    x, status = box_qp(h, c, np.full(n, -np.inf), np.full(n, np.inf), parent)
    assert status == 0
    np.testing.assert_allclose(h @ x, -c, atol=1e-8 * (1 + np.abs(c).max()) * np.linalg.cond(h) ** 0.5)


@given(n=sizes, seed=seeds)
def test_equal_bounds_fix_variables(n: int, seed: int) -> None:
    h, c, lb, ub, parent = random_problem(n, seed, "tree", inf_fraction=0.0)
    fixed = np.random.default_rng(seed + 1).random(n) < 0.5
    ub[fixed] = lb[fixed]
    x, status = box_qp(h, c, lb, ub, parent)
    assert status >= 0
    np.testing.assert_array_equal(x[fixed], lb[fixed])
    assert_kkt(h, c, lb, ub, x)


@given(n=sizes, seed=seeds, pattern=patterns)
def test_only_the_lower_triangle_on_the_pattern_is_read(n: int, seed: int, pattern: str) -> None:
    h, c, lb, ub, parent = random_problem(n, seed, pattern)
    x_full, _ = box_qp(h, c, lb, ub, parent)
    x_lower, _ = box_qp(np.tril(h) + np.triu(np.full((n, n), 5.0), 1), c, lb, ub, parent)
    np.testing.assert_array_equal(x_lower, x_full)


@given(n=sizes, seed=seeds, pattern=patterns)
def test_warm_start_with_the_optimal_active_set_stops_at_once(n: int, seed: int, pattern: str) -> None:
    h, c, lb, ub, parent = random_problem(n, seed, pattern)
    par = np.arange(n, dtype=np.int64) - 1 if parent is None else parent
    work = BoxQpWork(n)
    x = np.zeros(n)
    state = np.zeros(n, dtype=np.int8)
    assert solve_box_qp(h, par, c, lb, ub, x, state, work.l, work.cols, work.v, work.idx, work.s) >= 0
    x_cold = x.copy()
    work = BoxQpWork(n)
    assert solve_box_qp(h, par, c, lb, ub, x, state, work.l, work.cols, work.v, work.idx, work.s) == 0
    np.testing.assert_allclose(x, x_cold, atol=1e-12)


def test_not_positive_definite_is_reported() -> None:
    h = np.array([[1.0, 0.0], [0.0, -1.0]])
    _, status = box_qp(h, np.zeros(2), -np.ones(2), np.ones(2))
    assert status == STATUS_NOT_PD


def test_one_variable_clamps_to_its_bounds() -> None:
    h = np.array([[2.0]])
    for c, expect in [(-10.0, 1.0), (10.0, -1.0), (1.0, -0.5)]:
        x, status = box_qp(h, np.array([c]), np.array([-1.0]), np.array([1.0]))
        assert status >= 0
        assert x[0] == pytest.approx(expect)


# -- against scipy ----------------------------------------------------------------------------
@settings(max_examples=15)
@given(n=st.integers(1, 25), seed=seeds, pattern=patterns)
def test_matches_scipy_bounded_least_squares(n: int, seed: int, pattern: str) -> None:
    """0.5 x'Hx + c'x = 0.5 |Ax - b|^2 + const with H = L L', A = L', b = -L^-1 c."""
    h, c, lb, ub, parent = random_problem(n, seed, pattern)
    x, status = box_qp(h, c, lb, ub, parent)
    assert status >= 0
    l = np.linalg.cholesky(h)
    ref = lsq_linear(l.T, -np.linalg.solve(l, c), bounds=(lb, ub), method="bvls", tol=1e-14)
    assert objective(h, c, x) <= objective(h, c, ref.x) + 1e-9 * (1 + abs(objective(h, c, ref.x)))
    np.testing.assert_allclose(x, ref.x, atol=1e-6 * (1 + np.abs(ref.x).max()))
