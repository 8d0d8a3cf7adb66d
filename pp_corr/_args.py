"""Argument checks shared by the public functions: each raises a ValueError (or TypeError) naming the argument."""
from __future__ import annotations

import numbers
import warnings

import numpy as np


class AssumptionWarning(UserWarning):
    """``load_scores`` assumed something it was not told; the message says what, and how to say otherwise."""


def _scalar(name, value):
    """``value`` as a float if it is a real number (Python, numpy or a 0-d array), else a TypeError naming it."""
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    return float(value)


def check_real(name, value, *, low=-np.inf, high=np.inf, low_open=False, high_open=False) -> float:
    """A finite real number within [low, high] (ends excluded when ``low_open`` / ``high_open``).

    >>> check_real("alpha", 0.05, low=0, high=1, low_open=True, high_open=True)
    0.05
    >>> check_real("rope", float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: rope must be a finite number, got nan
    """
    value = _scalar(name, value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    too_low = value <= low if low_open else value < low
    too_high = value >= high if high_open else value > high
    if too_low or too_high:
        left, right = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(f"{name} must be in {left}{low:g}, {high:g}{right}, got {value!r}")
    return value


def check_probability_level(name, value) -> float:
    """A level strictly between 0 and 1 (alpha, a confidence level).

    >>> check_probability_level("confidence_level", 0.95)
    0.95
    """
    return check_real(name, value, low=0, high=1, low_open=True, high_open=True)


def check_flag(name, value) -> bool:
    """A yes/no argument: True or False (numpy's too), never a truthy stand-in such as "no" or 1.

    >>> check_flag("plot", np.True_)
    True
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_count(name, value, *, minimum=1) -> int:
    """A whole number >= ``minimum`` (draws, samples, repetitions, workers).

    >>> check_count("draws", 1000)
    1000
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be a whole number, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def as_rope(rope, name="rope") -> tuple[float, float] | None:
    """Normalise a rope: None, a half-width r >= 0 (-> (-r, r)) or a pair (lo, hi) with lo <= hi.

    >>> as_rope(0.01)
    (-0.01, 0.01)
    >>> as_rope((-0.02, 0.01))
    (-0.02, 0.01)
    """
    if rope is None:
        return None
    if isinstance(rope, (str, bytes)):
        raise TypeError(f"{name} must be a number or a pair (lo, hi), got the text {rope!r}")
    if np.ndim(rope) == 0:
        half = check_real(name, rope, low=0)
        return (-half, half)
    values = np.asarray(rope, dtype=object).ravel()
    if values.shape != (2,):
        raise ValueError(f"{name} must be a half-width or a pair (lo, hi), got {len(values)} values {rope!r}")
    lo, hi = (check_real(f"{name} bound", v) for v in values)
    if lo > hi:
        raise ValueError(f"{name} must be a pair (lo, hi) with lo <= hi, got {rope!r}")
    return (lo, hi)


def as_generator(random_seed) -> np.random.Generator:
    """A numpy Generator from an int, a Generator or None (fresh entropy); never global state.

    >>> float(as_generator(0).random()) == float(as_generator(0).random())
    True
    """
    if isinstance(random_seed, np.random.Generator):
        return random_seed
    if random_seed is not None and not isinstance(random_seed, (numbers.Integral, np.random.SeedSequence)):
        raise TypeError(f"random_seed must be an int, a numpy Generator or None, got {random_seed!r}")
    if isinstance(random_seed, numbers.Integral) and random_seed < 0:
        raise ValueError(f"random_seed must be >= 0, got {random_seed}")
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
    x = _float_array("x", x)
    if y is None:
        return x
    y = _float_array("y", y)
    if x.shape != y.shape:
        raise ValueError(f"x (scores of A) and y (scores of B) differ in shape: {x.shape} vs {y.shape}")
    for name, values in (("x", x), ("y", y)):
        check_finite_array(name, values)
    return y - x


def _float_array(name, values) -> np.ndarray:
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be numbers (an array of floats): {err}") from None


def check_finite_array(name, values):
    bad = ~np.isfinite(values)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} contains NaN or inf (first at index {where})")


def counted(n, noun) -> str:
    """``n`` and ``noun``, plural unless n is 1.

    >>> counted(1, "run"), counted(10, "fold")
    ('1 run', '10 folds')
    """
    return f"{n} {noun}{'s' * (int(n) != 1)}"


PERCENT_ROPE = 0.1  # a rope at most this wide on 0-100 scores is a rope for scores in [0, 1] read as points


def warn_percent_scale(x, y=(), rope="unknown", *, stacklevel):
    """Warn (:class:`AssumptionWarning`) when the scores ``x`` and ``y`` look like percentages (the finite ones all
    in [0, 100], some above 1) and ``rope`` (a half-width or (lo, hi)) is at most 0.1 wide, as a rope for scores in
    [0, 1] is: it is read in the scores' units, percentage points. ``y`` None: ``x`` holds differences B - A,
    which say nothing of the scale; ``rope`` None or 0: no rope, nothing to warn of; "unknown" (the default, for
    scores read before any rope is given): warn whatever the rope.

    >>> import pytest
    >>> with pytest.warns(AssumptionWarning, match="rope=0.01 is 0.01 percentage points"):
    ...     warn_percent_scale([80.0, 82.5], [81.0, 85.0], rope=0.01, stacklevel=1)
    """
    if y is None or rope is None:
        return
    half = None if isinstance(rope, str) else max(abs(v) for v in as_rope(rope))
    if half is not None and not 0 < half <= PERCENT_ROPE:
        return
    try:
        values = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in (x, y)])
    except (TypeError, ValueError):  # not numbers: the caller's checks say so
        return
    values = values[np.isfinite(values)]
    if len(values) and values.min() >= 0 and values.max() <= 100 and values.max() > 1:
        rope_words = "rope=0.01 means 0.01 percentage points" if half is None else \
            f"rope={half:g} is {half:g} percentage points"
        warnings.warn(f"the scores look like percentages (all in [0, 100], the largest {values.max():g}): every "
                      f"rope is in the scores' units, so {rope_words}; give ropes in points (rope=1 is one point) "
                      "or divide the scores by 100", AssumptionWarning, stacklevel=stacklevel + 1)


SAMPLERS = ("pymc", "nutpie")  # the NUTS implementations PyMC models can be sampled with


def check_choice(name, value, choices):
    """``value`` if it is one of ``choices`` (strings), else a ValueError naming ``name`` and the choices.

    >>> check_choice("sampler", "stan", SAMPLERS)
    Traceback (most recent call last):
    ValueError: sampler must be one of ['pymc', 'nutpie'], got 'stan'
    """
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def check_sampler(sampler) -> str:
    """``sampler``, one of :data:`SAMPLERS`, checked.

    >>> check_sampler("nutpie")
    'nutpie'
    """
    return check_choice("sampler", sampler, SAMPLERS)
