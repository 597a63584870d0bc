"""Predictions: the PMaC convolution, signature rates, layer conditions and traced workloads."""
