"""Measuring a machine: the kernels, their runner, noise, host facts and detection."""
