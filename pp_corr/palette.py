"""The one palette of every figure: Okabe-Ito colours that stay apart under colour-vision deficiencies.

The three regions of a comparison keep their colour in every plot: A better is blue, practically equivalent
(the rope, or a tie) a neutral grey, B better orange. Where a region carries a verdict it is also told apart
by a hatch and a marker, so the figure still reads in greyscale or printed, and legends name the algorithms.
Lines that are not regions (tests, simulation cases) take :data:`SERIES`, which leaves blue and orange to the
regions. Simulated for deuteranopia, protanopia and tritanopia (Machado et al. 2009, full severity), the region
colours stay at least 27 CAM02-UCS units apart (``tests/test_plots.py`` measures it).
"""
from __future__ import annotations

import matplotlib.colors as mcolors
import numpy as np

OKABE_ITO = {
    "black": "#000000", "orange": "#E69F00", "sky_blue": "#56B4E9", "bluish_green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "reddish_purple": "#CC79A7",
}
A_BETTER = OKABE_ITO["blue"]
ROPE = "#999999"  # the neutral grey of the usual colour-blind palette
B_BETTER = OKABE_ITO["orange"]
REGION_COLORS = (A_BETTER, ROPE, B_BETTER)  # left (A better), rope, right (B better)
REGION_HATCHES = ("////", "", "\\\\\\\\")  # A better leans right, B better leans left, the rope is plain
REGION_MARKERS = ("<", "o", ">")  # pointing to the side that is better
UNDECIDED = "#FFFFFF"  # no decision: no colour, so it cannot be read as either side
INK = "#000000"  # text, outlines, reference lines
SERIES = tuple(OKABE_ITO[name] for name in ("black", "vermillion", "bluish_green", "reddish_purple", "sky_blue"))


def region_labels(a, b) -> tuple[str, str, str]:
    """The three regions in words, for legends: A better, practically equivalent, B better.

    >>> region_labels("nbc", "hnb")
    ('nbc better', 'practically equivalent', 'hnb better')
    """
    return f"{a} better", "practically equivalent", f"{b} better"


def tint(color, strength) -> tuple[float, float, float]:
    """``color`` mixed with white: ``strength`` 1 is the colour itself, 0 is white (for cell backgrounds).

    >>> tint(A_BETTER, 0.0), tint("#000000", 0.5)
    ((1.0, 1.0, 1.0), (0.5, 0.5, 0.5))
    """
    if not 0 <= strength <= 1:
        raise ValueError(f"strength must be in [0, 1], got {strength!r}")
    rgb = np.asarray(mcolors.to_rgb(color))
    return tuple(float(v) for v in 1 - strength * (1 - rgb))


def series_color(index) -> str:
    """The colour of the ``index``-th line that is not a region (cycling through :data:`SERIES`).

    >>> series_color(0), series_color(len(SERIES))
    ('#000000', '#000000')
    """
    return SERIES[index % len(SERIES)]
