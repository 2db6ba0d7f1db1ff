"""The Worker protocol: the only thing a runtime (native onnxruntime, browser bridge) implements."""
from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class Worker(Protocol):
    def det(self, x: np.ndarray) -> Any:   # float32 [N,3,H,W] -> [N,1,H,W] (or an awaitable of it)
        ...

    def cls(self, x: np.ndarray) -> Any:   # float32 [N,3,48,192] -> [N,2]
        ...

    def rec(self, x: np.ndarray) -> Any:   # float32 [N,3,48,W] -> [N,W/8,C]
        ...
