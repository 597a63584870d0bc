"""Fixtures for the prediction tests."""

from __future__ import annotations

import pytest
from synthetic_signature import synthetic_signature

from pinchpoint.inputs.signature import Signature


@pytest.fixture
def sig() -> Signature:
    return synthetic_signature()
