"""One vocabulary for "is a measured figure good?": the verdicts `classify` and `diagnose` both give.

The binding ceiling is the lowest that applies; efficiency = measured / binding ceiling:

- ``at-ceiling``: efficiency >= 0.9: the hardware (or the modelled limit) is the limit;
- ``below-ceiling``: 0.5 .. 0.9: a modelled limit is near, something else costs the rest;
- ``far-below-all``: below 0.5: no modelled ceiling explains the figure (software, or something
  the model does not include);
- ``above-ceiling``: more than 5 % above a bound the figure cannot exceed: an input is wrong.

The thresholds are our choice (a figure within 10 % of a bound has met it; rounding of the
figure, of the inputs, and iperf's interval jitter stay within a few per cent of a bound).
"""

from __future__ import annotations

#: Verdict thresholds on efficiency = measured / binding ceiling.
AT_CEILING = 0.9
FAR_BELOW = 0.5
#: Above this fraction of a bound the figure cannot be a measurement of it.
ABOVE_CEILING = 1.05

VERDICTS = ("at-ceiling", "below-ceiling", "far-below-all", "above-ceiling")

def legend(at_ceiling: float = AT_CEILING) -> str:
    """What each verdict means, for the line under a table."""
    return (f"at-ceiling: at least {at_ceiling:.0%} of the binding (lowest) ceiling; below-ceiling: "
            f"{FAR_BELOW:.0%} .. {at_ceiling:.0%}; far-below-all: below {FAR_BELOW:.0%} (software, or something "
            f"not modelled); above-ceiling: more than {ABOVE_CEILING - 1:.0%} above one.")


def verdict_for(efficiency: float, exceeded: bool, at_ceiling: float = AT_CEILING) -> str:
    """The verdict for ``efficiency`` (measured / binding ceiling); ``exceeded``: the figure is
    more than ABOVE_CEILING above some bound it cannot exceed."""
    if exceeded:
        return "above-ceiling"
    if efficiency >= at_ceiling:
        return "at-ceiling"
    if efficiency >= FAR_BELOW:
        return "below-ceiling"
    return "far-below-all"
