"""A stand-in for a CuPy array where a launcher only reads its pointer and layout (the launch tests
of measure/, with no GPU): `data.ptr`, `shape`, row-major float32 `strides` and `dtype`."""

from __future__ import annotations

import types

import numpy as np


class FakeArray:
    def __init__(self, ptr, shape):
        self.data = types.SimpleNamespace(ptr=ptr)
        self.shape, self.strides, self.dtype = shape, (shape[1] * 4, 4), np.dtype(np.float32)
