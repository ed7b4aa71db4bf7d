# Minimal stubs for the part of onnxruntime Hearth uses (adapters/embedding/e5_onnx.py);
# the wheel ships no type information.
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

import numpy as np
import numpy.typing as npt

__version__: str

class ExecutionMode(Enum):
    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1

class GraphOptimizationLevel(Enum):
    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99

class SessionOptions:
    intra_op_num_threads: int
    inter_op_num_threads: int
    execution_mode: ExecutionMode
    graph_optimization_level: GraphOptimizationLevel
    optimized_model_filepath: str
    def __init__(self) -> None: ...
    def add_session_config_entry(self, key: str, value: str) -> None: ...

class InferenceSession:
    def __init__(
        self,
        path_or_bytes: str | bytes,
        sess_options: SessionOptions | None = ...,
        providers: Sequence[str] | None = ...,
        provider_options: Sequence[dict[str, Any]] | None = ...,
        *,
        disabled_optimizers: Sequence[str] | None = ...,
    ) -> None: ...
    def run(
        self, output_names: Sequence[str] | None, input_feed: Mapping[str, npt.NDArray[np.generic]]
    ) -> list[Any]: ...

def get_available_providers() -> list[str]: ...
