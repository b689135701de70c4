"""The project's one wrapper around dense convex QP solvers.

    minimise    1/2 x' H x + g' x
    subject to  x_lower <= x <= x_upper            (simple bounds, optional)
                lower <= A x <= upper              (general rows; lower == upper makes an equality)
                A_eq x == b_eq                     (equalities, optional)

Backends: ``daqp`` (dual active set, the fastest on the small dense problems of a control or
clean-up step: ~30 us for 40 variables; NOTES.md) and ``osqp`` (ADMM, sparse; for larger
problems such as an MPC horizon). Every engine, the clean-up stage, the physics analysis and the
controller solve their QPs through :func:`solve_qp`, so a change of solver is made here once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError

SOLVERS = ("daqp", "osqp")
_INF = 1e30  # bounds beyond this are "none" for both backends


@dataclass(frozen=True)
class QpResult:
    """A QP solution.

    Attributes:
        x: the minimiser (the last iterate when not solved). Shape: (n,).
        status: "solved", "infeasible", "max_iterations" or "failed".
        objective: 1/2 x'Hx + g'x at x.
        iterations: solver iterations.
        multipliers: dual values of [simple bounds (n, when given), general rows, equality rows]
            (daqp only; empty for osqp). Shape: (m,).
    """

    x: np.ndarray
    status: str
    objective: float
    iterations: int
    multipliers: np.ndarray

    @property
    def solved(self) -> bool:
        return self.status == "solved"


def _bounds(v: np.ndarray | None, n: int, fill: float, name: str) -> np.ndarray:
    if v is None:
        return np.full(n, fill)
    out = np.asarray(v, dtype=np.float64).reshape(-1)
    if out.shape != (n,):
        raise ConfigError(f"solve_qp: {name} has {out.shape[0]} entries, expected {n}")
    if np.isnan(out).any():
        raise ConfigError(f"solve_qp: {name} contains NaN")
    return np.clip(out, -_INF, _INF)


def solve_qp(
    H: np.ndarray,
    g: np.ndarray,
    *,
    A: np.ndarray | None = None,
    lower: np.ndarray | None = None,
    upper: np.ndarray | None = None,
    A_eq: np.ndarray | None = None,
    b_eq: np.ndarray | None = None,
    x_lower: np.ndarray | None = None,
    x_upper: np.ndarray | None = None,
    solver: str = "daqp",
    warm_start: np.ndarray | None = None,
    max_iterations: int = 10_000,
    tolerance: float = 1e-6,
) -> QpResult:
    """Solve a convex QP (see the module docstring). H must be symmetric positive semidefinite
    (daqp adds a small proximal term when it is singular). Shapes: H (n, n), g (n,), A (m, n),
    lower/upper (m,), A_eq (e, n), b_eq (e,), x_lower/x_upper (n,). Bounds may be +-inf."""
    if solver not in SOLVERS:
        raise ConfigError(f"solve_qp: unknown solver {solver!r}; valid: {', '.join(SOLVERS)}")
    H = np.asarray(H, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64).reshape(-1)
    n = g.shape[0]
    if H.shape != (n, n):
        raise ConfigError(f"solve_qp: H has shape {H.shape}, expected {(n, n)}")
    rows, lo, hi, eq = [], [], [], []
    if A is not None:
        A = np.asarray(A, dtype=np.float64).reshape(-1, n)
        m = A.shape[0]
        rows.append(A)
        lo.append(_bounds(lower, m, -_INF, "lower"))
        hi.append(_bounds(upper, m, _INF, "upper"))
        eq.append(np.zeros(m, dtype=bool))
    if A_eq is not None:
        A_eq = np.asarray(A_eq, dtype=np.float64).reshape(-1, n)
        b = _bounds(b_eq, A_eq.shape[0], 0.0, "b_eq")
        rows.append(A_eq)
        lo.append(b)
        hi.append(b)
        eq.append(np.ones(A_eq.shape[0], dtype=bool))
    A_all = np.vstack(rows) if rows else np.zeros((0, n))
    lo_all = np.concatenate(lo) if lo else np.zeros(0)
    hi_all = np.concatenate(hi) if hi else np.zeros(0)
    eq_all = np.concatenate(eq) if eq else np.zeros(0, dtype=bool)
    has_box = x_lower is not None or x_upper is not None
    xl = _bounds(x_lower, n, -_INF, "x_lower")
    xu = _bounds(x_upper, n, _INF, "x_upper")
    if (lo_all > hi_all + 1e-12).any() or (xl > xu + 1e-12).any():
        return QpResult(np.zeros(n), "infeasible", float("nan"), 0, np.zeros(0))
    if solver == "daqp":
        return _solve_daqp(H, g, A_all, lo_all, hi_all, eq_all, xl, xu, has_box, warm_start, max_iterations, tolerance)
    return _solve_osqp(H, g, A_all, lo_all, hi_all, xl, xu, has_box, warm_start, max_iterations, tolerance)


def _objective(H: np.ndarray, g: np.ndarray, x: np.ndarray) -> float:
    return float(0.5 * x @ H @ x + g @ x)


_DAQP_STATUS = {1: "solved", 2: "solved", -1: "infeasible", -2: "failed", -3: "max_iterations", -4: "failed"}


def _solve_daqp(
    H: np.ndarray,
    g: np.ndarray,
    A: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    eq: np.ndarray,
    xl: np.ndarray,
    xu: np.ndarray,
    has_box: bool,
    warm: np.ndarray | None,
    max_iterations: int,
    tolerance: float,
) -> QpResult:
    import daqp

    n = g.shape[0]
    if has_box:  # daqp reads the first n bounds as simple bounds when there are more bounds than rows
        blower = np.concatenate([xl, lo])
        bupper = np.concatenate([xu, hi])
        sense = np.concatenate([np.zeros(n, dtype=np.int32), np.where(eq, 5, 0).astype(np.int32)])
    else:
        blower, bupper = lo.copy(), hi.copy()
        sense = np.where(eq, 5, 0).astype(np.int32)
    kw = {}
    if warm is not None:
        kw["primal_start"] = np.asarray(warm, dtype=np.float64)
    x, _, flag, info = daqp.solve(
        np.ascontiguousarray(H),
        g,
        np.ascontiguousarray(A) if A.shape[0] else np.zeros((0, n)),
        bupper,
        blower,
        sense,
        iter_limit=max_iterations,
        primal_tol=tolerance,
        **kw,
    )
    x = np.asarray(x, dtype=np.float64)
    status = _DAQP_STATUS.get(int(flag), "failed")
    return QpResult(x, status, _objective(H, g, x), int(info["iterations"]), np.asarray(info["lam"]))


def _solve_osqp(
    H: np.ndarray,
    g: np.ndarray,
    A: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    xl: np.ndarray,
    xu: np.ndarray,
    has_box: bool,
    warm: np.ndarray | None,
    max_iterations: int,
    tolerance: float,
) -> QpResult:
    import osqp
    from scipy import sparse

    n = g.shape[0]
    if has_box:
        A = np.vstack([np.eye(n), A])
        lo = np.concatenate([xl, lo])
        hi = np.concatenate([xu, hi])
    prob = osqp.OSQP()
    prob.setup(
        sparse.csc_matrix(np.triu(H)),
        g,
        sparse.csc_matrix(A) if A.shape[0] else sparse.csc_matrix((0, n)),
        lo,
        hi,
        verbose=False,
        eps_abs=tolerance,
        eps_rel=tolerance,
        max_iter=max_iterations,
        polishing=True,
    )
    if warm is not None:
        prob.warm_start(x=np.asarray(warm, dtype=np.float64))
    res = prob.solve(raise_error=False)
    raw = str(res.info.status).lower()
    if "solved" in raw and "inaccurate" not in raw:
        status = "solved"
    elif "infeasible" in raw:
        status = "infeasible"
    elif "max" in raw:
        status = "max_iterations"
    else:
        status = "failed"
    x = np.asarray(res.x if res.x is not None else np.zeros(n), dtype=np.float64)
    if not np.isfinite(x).all():
        x = np.zeros(n)
    return QpResult(x, status, _objective(H, g, x), int(res.info.iter), np.zeros(0))
