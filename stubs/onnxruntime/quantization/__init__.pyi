# Minimal stubs for onnxruntime.quantization as used by adapters/embedding/e5_onnx.py.
from collections.abc import Sequence
from enum import Enum
from pathlib import Path

class QuantType(Enum):
    QInt8 = 0
    QUInt8 = 1

def quantize_dynamic(
    model_input: str | Path,
    model_output: str | Path,
    op_types_to_quantize: Sequence[str] | None = ...,
    per_channel: bool = ...,
    reduce_range: bool = ...,
    weight_type: QuantType = ...,
    nodes_to_include: Sequence[str] | None = ...,
    nodes_to_exclude: Sequence[str] | None = ...,
) -> None: ...
