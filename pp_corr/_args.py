"""Argument checks shared by the public functions."""
from __future__ import annotations

import numbers

import numpy as np


def as_rope(rope) -> tuple[float, float] | None:
    """Normalise a rope: None, a half-width r (-> (-r, r)) or a pair (lo, hi).

    >>> as_rope(0.01)
    (-0.01, 0.01)
    """
    if rope is None:
        return None
    if isinstance(rope, numbers.Real):
        if not np.isfinite(rope) or rope < 0:
            raise ValueError(f"rope must be a finite half-width >= 0, got {rope!r}")
        return (-float(rope), float(rope))
    lo, hi = (float(v) for v in rope)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo > hi:
        raise ValueError(f"rope must be a pair (lo, hi) with lo <= hi, got {rope!r}")
    return (lo, hi)


def as_generator(random_seed) -> np.random.Generator:
    """A numpy Generator from an int, a Generator or None (fresh entropy); never global state."""
    if isinstance(random_seed, np.random.Generator):
        return random_seed
    return np.random.default_rng(random_seed)


def check_alternative(alternative: str) -> str:
    if alternative not in ("two-sided", "less", "greater"):
        raise ValueError(f"alternative must be 'two-sided', 'less' or 'greater', got {alternative!r}")
    return alternative


def b_minus_a(x, y=None) -> np.ndarray:
    """``x`` as floats when it already holds differences B - A, else ``y - x`` (scores of B minus A).

    >>> b_minus_a([0.8, 0.9], [0.85, 0.9]).round(2).tolist()
    [0.05, 0.0]
    """
    x = np.asarray(x, dtype=float)
    if y is None:
        return x
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"x (scores of A) and y (scores of B) differ in shape: {x.shape} vs {y.shape}")
    return y - x
