"""Exact solver for small box-constrained QPs, compiled with numba.

    minimise 0.5 x'Hx + c'x   subject to   lb <= x <= ub   (H symmetric positive definite)

Block principal pivoting (Judice and Pires, "A block principal pivoting algorithm for large-scale
strictly monotone linear complementarity problems", 1994) on the bounded problem: guess which
variables sit at a bound, solve the reduced linear system by Cholesky, and flip every variable
whose bound or multiplier has the wrong sign; when the number of wrong signs stops falling,
flip only the last one (Murty's rule), which terminates for positive definite H. The result is
the exact optimum (to rounding), like an active-set QP solver such as daqp.
"""

from __future__ import annotations

import numpy as np
from numba import njit

FREE = 0
AT_LOWER = -1
AT_UPPER = 1


@njit(cache=True, fastmath=False)
def cholesky_solve_inplace(a: np.ndarray, n: int, b: np.ndarray) -> bool:
    """Solve a[:n,:n] y = b[:n] in place (a is overwritten by its Cholesky factor). False if not PD."""
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
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= a[i, k] * b[k]
        b[i] = s / a[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, n):
            s -= a[k, i] * b[k]
        b[i] = s / a[i, i]
    return True


@njit(cache=True)
def solve_box_qp(
    h: np.ndarray,
    c: np.ndarray,
    lb: np.ndarray,
    ub: np.ndarray,
    x: np.ndarray,
    state: np.ndarray,
    work_a: np.ndarray,
    work_b: np.ndarray,
    free_idx: np.ndarray,
    max_iter: int = 100,
) -> int:
    """Solve the box QP into x. ``state`` holds the initial guess of the active set
    (FREE / AT_LOWER / AT_UPPER per variable; zeros for none) and returns the final one.
    Work arrays: work_a (n, n), work_b (n,), free_idx (n,) int. Infinite bounds are allowed.

    Returns the number of pivoting iterations, or -1 if H was not positive definite on the free
    set, or -2 if the iteration limit was hit (x then holds the last iterate, clipped to the box).
    """
    n = c.shape[0]
    tol = 1e-12
    best = n + 1
    tries_left = 3
    for it in range(max_iter):
        # Variables at a bound take it; the others solve the reduced system.
        nf = 0
        for i in range(n):
            if state[i] == AT_LOWER:
                x[i] = lb[i]
            elif state[i] == AT_UPPER:
                x[i] = ub[i]
            else:
                free_idx[nf] = i
                nf += 1
        for a in range(nf):
            i = free_idx[a]
            s = -c[i]
            for j in range(n):
                if state[j] != FREE:
                    s -= h[i, j] * x[j]
            work_b[a] = s
            for b in range(a + 1):
                work_a[a, b] = h[i, free_idx[b]]
        if nf > 0:
            if not cholesky_solve_inplace(work_a, nf, work_b):
                return -1
            for a in range(nf):
                x[free_idx[a]] = work_b[a]
        # Wrong signs: free variables outside the box, bound variables whose multiplier pulls inward.
        n_bad = 0
        last_bad = -1
        for i in range(n):
            if state[i] == FREE:
                if x[i] < lb[i] - tol * (1.0 + abs(lb[i])) or x[i] > ub[i] + tol * (1.0 + abs(ub[i])):
                    n_bad += 1
                    last_bad = i
            else:
                g = c[i]
                for j in range(n):
                    g += h[i, j] * x[j]
                if (state[i] == AT_LOWER and g < -tol * (1.0 + abs(c[i]))) or (
                    state[i] == AT_UPPER and g > tol * (1.0 + abs(c[i]))
                ):
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
            if state[i] == FREE:
                if x[i] < lb[i] - tol * (1.0 + abs(lb[i])):
                    state[i] = AT_LOWER
                elif x[i] > ub[i] + tol * (1.0 + abs(ub[i])):
                    state[i] = AT_UPPER
            else:
                g = c[i]
                for j in range(n):
                    g += h[i, j] * x[j]
                if (state[i] == AT_LOWER and g < -tol * (1.0 + abs(c[i]))) or (
                    state[i] == AT_UPPER and g > tol * (1.0 + abs(c[i]))
                ):
                    state[i] = FREE
    for i in range(n):
        x[i] = min(max(x[i], lb[i]), ub[i])
    return -2


def box_qp(h: np.ndarray, c: np.ndarray, lb: np.ndarray, ub: np.ndarray) -> tuple[np.ndarray, int]:
    """Convenience wrapper: returns (x, status) for one problem (status as in solve_box_qp)."""
    n = c.shape[0]
    x = np.zeros(n)
    state = np.zeros(n, dtype=np.int8)
    status = solve_box_qp(
        np.ascontiguousarray(h, dtype=np.float64),
        np.ascontiguousarray(c, dtype=np.float64),
        np.ascontiguousarray(lb, dtype=np.float64),
        np.ascontiguousarray(ub, dtype=np.float64),
        x,
        state,
        np.zeros((n, n)),
        np.zeros(n),
        np.zeros(n, dtype=np.int64),
    )
    return x, status
