"""Small charts for the report: matplotlib (Agg, no pyplot state) to inline PNG data URIs, and text sparklines."""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

BAR = "#8c96a3"
RECENT = "#1f77b4"
BURST = "#d62728"
SPARKS = "▁▂▃▄▅▆▇█"
#: Charts are drawn at this many dots per inch and shown at 100, so they stay sharp on dense screens.
DPI = 200


def year_bars(
    counts: Mapping[int, int],
    years: range,
    *,
    recent: tuple[int, int] | None = None,
    burst: tuple[int, int] | None = None,
    size: tuple[float, float] = (2.6, 0.75),
    axes: bool = False,
) -> str:
    """A bar chart of ``counts`` over ``years`` as a ``data:image/png;base64,...`` URI.

    Bars in the ``recent`` window are blue, bars of the ``burst`` red, the rest grey. With
    ``axes`` the chart has year ticks and a count axis (the corpus chart); without, it is a
    chart for a table row, labelled only with its first and last year and its highest count.

    Examples
    --------
    >>> uri = year_bars({2020: 3, 2021: 5}, range(2019, 2022), recent=(2021, 2021))
    >>> uri.startswith("data:image/png;base64,")
    True
    """
    xs = list(years)
    heights = [counts.get(y, 0) for y in xs]
    colours = [
        BURST if burst and burst[0] <= y <= burst[1] else RECENT if recent and recent[0] <= y <= recent[1] else BAR
        for y in xs
    ]
    fig = Figure(figsize=size, dpi=DPI)
    ax = fig.add_subplot()
    ax.bar(xs, heights, color=colours, width=0.8)
    if xs:
        ax.set_xlim(xs[0] - 0.6, xs[-1] + 0.6)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if axes:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # years, never 2020.4
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.tick_params(labelsize=7)
        ax.spines["left"].set_color("#999999")
        ax.spines["bottom"].set_color("#999999")
        fig.tight_layout(pad=0.3)
    else:
        top = max(heights, default=0)
        ax.set_yticks([])
        ax.spines["left"].set_visible(False)
        ax.spines["bottom"].set_color("#bbbbbb")
        ax.set_ylim(0, top * 1.3 or 1)
        if xs:
            ax.set_xticks([xs[0], xs[-1]], [str(xs[0]), str(xs[-1])], fontsize=6.5, color="#5f6b7a")
            ax.tick_params(length=0, pad=1.5)
        if top:
            peak = heights.index(top)
            ax.annotate(
                f"{top:,}",
                (xs[peak], top),
                xytext=(0, 1),
                textcoords="offset points",
                ha="center",
                va="bottom",
                fontsize=6.5,
                color="#1d232b",
            )
        fig.subplots_adjust(left=0.02, right=0.98, top=0.97, bottom=0.2)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", transparent=True, metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def sparkline(counts: Mapping[int, int], years: range) -> str:
    """Counts per year as a line of block characters, for text (the Markdown report).

    >>> sparkline({2020: 1, 2022: 4}, range(2019, 2023))
    '▁▃▁█'
    """
    values = [counts.get(y, 0) for y in years]
    top = max(values, default=0)
    if not top:
        return SPARKS[0] * len(values)
    return "".join(SPARKS[0] if v == 0 else SPARKS[max(1, round(v / top * (len(SPARKS) - 1)))] for v in values)
