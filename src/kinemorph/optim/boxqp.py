"""Exact solver for small box-constrained QPs, compiled with numba.

    minimise 0.5 x'Hx + c'x   subject to   lb <= x <= ub   (H symmetric positive definite)

Block principal pivoting (Judice and Pires, "A block principal pivoting algorithm for large-scale
strictly monotone linear complementarity problems", 1994) on the bounded problem: guess which
variables sit at a bound, solve for the rest, and flip every variable whose bound or multiplier
has the wrong sign; when the number of wrong signs stops falling, flip only the last one
(Murty's rule), which terminates for positive definite H. The result is the exact optimum (to
rounding), as an active-set solver such as daqp gives.

H is factorised once, as L'DL with the sparsity of a kinematic tree: ``parent`` gives, for
each variable, the previous variable it couples to (MuJoCo's dof_parentid), and H may be
non-zero only between a variable and its ancestors. Eliminating leaves first then creates no
fill-in (the scheme MuJoCo uses for its mass matrix), so a 35-dof humanoid costs a few hundred
operations instead of a dense factorisation. ``parent[i] = i - 1`` describes a dense matrix.
With active set A (m variables held at bounds b_A), the solution is x = x0 + H^-1 E lam with
x0 = -H^-1 c and (E' H^-1 E) lam = b_A - x0_A, so each guess costs m solves and an m x m system
instead of a new factorisation; lam is also the vector of multipliers (H x + c = E lam) whose
signs the pivoting checks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

FREE = 0
AT_LOWER = -1
AT_UPPER = 1

STATUS_NOT_PD = -1
STATUS_MAX_ITER = -2


@njit(cache=True, inline="always")
def cholesky_inplace(a: np.ndarray, n: int) -> bool:
    """Lower Cholesky factor of a[:n, :n] in its lower triangle. False if not positive definite."""
    for j in range(n):
        s = a[j, j]
        for k in range(j):
            s -= a[j, k] * a[j, k]
        if s <= 0.0:
            return False
        d = np.sqrt(s)
        a[j, j] = d
        inv = 1.0 / d
        for i in range(j + 1, n):
            s = a[i, j]
            for k in range(j):
                s -= a[i, k] * a[j, k]
            a[i, j] = s * inv
    return True


@njit(cache=True, inline="always")
def cholesky_solve(l: np.ndarray, n: int, b: np.ndarray) -> None:
    """Solve (L L') y = b in place, L the lower factor in l[:n, :n]."""
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= l[i, k] * b[k]
        b[i] = s / l[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, n):
            s -= l[k, i] * b[k]
        b[i] = s / l[i, i]


@njit(cache=True, inline="always")
def ldl_tree_factor(a: np.ndarray, parent: np.ndarray, n: int) -> bool:
    """In place: a = L' D L with L unit lower triangular on the tree pattern (leaves eliminated
    first). Reads the lower triangle (a[k, j] for j an ancestor of k). False if not positive definite."""
    for k in range(n - 1, -1, -1):
        dk = a[k, k]
        if not dk > 0.0:
            return False
        i = parent[k]
        while i >= 0:
            tmp = a[k, i] / dk
            j = i
            while j >= 0:
                a[i, j] -= tmp * a[k, j]
                j = parent[j]
            a[k, i] = tmp
            i = parent[i]
    return True


@njit(cache=True, inline="always")
def ldl_tree_solve(a: np.ndarray, parent: np.ndarray, n: int, x: np.ndarray) -> None:
    """Solve (L' D L) y = x in place with the factor from ldl_tree_factor."""
    for i in range(n - 1, -1, -1):
        j = parent[i]
        xi = x[i]
        while j >= 0:
            x[j] -= a[i, j] * xi
            j = parent[j]
    for i in range(n):
        x[i] /= a[i, i]
    for i in range(n):
        j = parent[i]
        acc = x[i]
        while j >= 0:
            acc -= a[i, j] * x[j]
            j = parent[j]
        x[i] = acc


@njit(cache=True, inline="always")
def _wrong_sign(state: int, xi: float, lo: float, hi: float, lam: float, tol: float) -> int:
    """0 if consistent, else the state the variable should flip to."""
    if state == FREE:
        if xi < lo - tol * (1.0 + abs(lo)):
            return AT_LOWER
        if xi > hi + tol * (1.0 + abs(hi)):
            return AT_UPPER
        return FREE
    if (state == AT_LOWER and lam < -tol) or (state == AT_UPPER and lam > tol):
        return 2  # release: flip to FREE
    return FREE


@njit(cache=True)
def solve_box_qp(
    h: np.ndarray,
    parent: np.ndarray,
    c: np.ndarray,
    lb: np.ndarray,
    ub: np.ndarray,
    x: np.ndarray,
    state: np.ndarray,
    work_l: np.ndarray,
    work_cols: np.ndarray,
    work_v: np.ndarray,
    work_idx: np.ndarray,
    work_s: np.ndarray,
    max_iter: int = 100,
) -> int:
    """Solve the box QP into x. h: (n, n), lower triangle read on the pattern of ``parent``.

    state: initial guess of the active set (FREE / AT_LOWER / AT_UPPER per variable; zeros for
    none); returns the final one. Work arrays: work_l (n, n), work_cols (n, n), work_v (3, n),
    work_idx (2, n) int, work_s (n, n + 1). Infinite bounds are allowed.
    Returns the number of pivoting rounds, STATUS_NOT_PD or STATUS_MAX_ITER (x then holds the
    last iterate clipped to the box).
    """
    n = c.shape[0]
    tol = 1e-12
    for i in range(n):
        j = i
        while j >= 0:
            work_l[i, j] = h[i, j]
            j = parent[j]
    if not ldl_tree_factor(work_l, parent, n):
        return STATUS_NOT_PD
    x0 = work_v[0]
    lam_full = work_v[1]
    for i in range(n):
        x0[i] = -c[i]
    ldl_tree_solve(work_l, parent, n, x0)
    col_of = work_idx[0]  # variable -> column slot in work_cols, -1 if not computed
    active = work_idx[1]
    for i in range(n):
        col_of[i] = -1
    ncols = 0
    best = n + 1
    tries_left = 3
    for it in range(max_iter):
        m = 0
        for i in range(n):
            if state[i] != FREE:
                active[m] = i
                m += 1
        for i in range(n):
            x[i] = x0[i]
            lam_full[i] = 0.0
        if m > 0:
            for a in range(m):
                i = active[a]
                if col_of[i] < 0:
                    col = work_cols[ncols]
                    for r in range(n):
                        col[r] = 0.0
                    col[i] = 1.0
                    ldl_tree_solve(work_l, parent, n, col)
                    col_of[i] = ncols
                    ncols += 1
            # S lam = b_A - x0_A, S = (H^-1)_AA, in work_s[:m, :m], rhs in work_s[:m, n]
            for a in range(m):
                ia = active[a]
                ca = work_cols[col_of[ia]]
                for b in range(a + 1):
                    work_s[a, b] = ca[active[b]]
                bound = lb[ia] if state[ia] == AT_LOWER else ub[ia]
                work_s[a, n] = bound - x0[ia]
            if not cholesky_inplace(work_s, m):
                return STATUS_NOT_PD
            rhs = work_v[2]
            for a in range(m):
                rhs[a] = work_s[a, n]
            cholesky_solve(work_s, m, rhs)
            for a in range(m):
                ia = active[a]
                lam_full[ia] = rhs[a]
                ca = work_cols[col_of[ia]]
                for r in range(n):
                    x[r] += ca[r] * rhs[a]
            for a in range(m):  # exact bound values (no rounding drift)
                ia = active[a]
                x[ia] = lb[ia] if state[ia] == AT_LOWER else ub[ia]
        n_bad = 0
        last_bad = -1
        for i in range(n):
            if _wrong_sign(state[i], x[i], lb[i], ub[i], lam_full[i], tol) != FREE:
                n_bad += 1
                last_bad = i
        if n_bad == 0:
            return it
        if n_bad < best:
            best = n_bad
            tries_left = 3
            flip_all = True
        elif tries_left > 0:
            tries_left -= 1
            flip_all = True
        else:
            flip_all = False
        for i in range(n):
            if not flip_all and i != last_bad:
                continue
            to = _wrong_sign(state[i], x[i], lb[i], ub[i], lam_full[i], tol)
            if to == 2:
                state[i] = FREE
            elif to != FREE:
                state[i] = to
    for i in range(n):
        x[i] = min(max(x[i], lb[i]), ub[i])
    return STATUS_MAX_ITER


class BoxQpWork:
    """Work arrays for problems of size n."""

    def __init__(self, n: int) -> None:
        self.l = np.zeros((n, n))
        self.cols = np.zeros((n, n))
        self.v = np.zeros((3, n))
        self.idx = np.zeros((2, n), dtype=np.int64)
        self.s = np.zeros((n, n + 1))


def box_qp(
    h: np.ndarray, c: np.ndarray, lb: np.ndarray, ub: np.ndarray, parent: np.ndarray | None = None
) -> tuple[np.ndarray, int]:
    """Convenience wrapper: returns (x, status) for one problem (status as in solve_box_qp).
    parent: tree sparsity pattern (None: dense)."""
    n = c.shape[0]
    if parent is None:
        parent = np.arange(n, dtype=np.int64) - 1
    x = np.zeros(n)
    state = np.zeros(n, dtype=np.int8)
    w = BoxQpWork(n)
    status = solve_box_qp(
        np.ascontiguousarray(h, dtype=np.float64),
        np.ascontiguousarray(parent, dtype=np.int64),
        np.ascontiguousarray(c, dtype=np.float64),
        np.ascontiguousarray(lb, dtype=np.float64),
        np.ascontiguousarray(ub, dtype=np.float64),
        x,
        state,
        w.l,
        w.cols,
        w.v,
        w.idx,
        w.s,
    )
    return x, status
