"""What the figures share: a new axes when none is given, and a legend above the axes that carries the title."""
from __future__ import annotations

import matplotlib.pyplot as plt


def axes(ax, figsize=(6, 4)):
    """``ax``, or new axes of ``figsize`` (constrained layout) when ``ax`` is None."""
    return ax if ax is not None else plt.subplots(figsize=figsize, layout="constrained")[1]



def legend_on_top(ax, handles, title, ncols=1):
    """A legend above the axes, whose title is the figure's title (so the two never overlap)."""
    return ax.legend(handles=handles, title=title, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=ncols,
                     fontsize=8, title_fontsize=9, frameon=False, alignment="center")

