"""pinchpoint: analytical performance modelling and bottleneck prediction.

A machine profile becomes a graph of links; every link has a theoretical capacity with the
formula behind it; every flow through the graph has a ceiling and a binding link.  Measured
signatures from the bundled C kernels sit beside the theory.

This module stays import-light on purpose: ``pinchpoint --version`` must start in well under
0.2 s, so nothing heavy (pint, networkx, scipy, sympy) is imported here.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
