"""Linear layers whose weights oneDNN packs once, for the CPU bf16 engine.

`F.linear` on bf16 CPU tensors hands oneDNN a plain row-major weight, which it reorders into
its blocked layout on every call: for decider-small's layers at the 8 rows of a batch-1 block
pass that reorder is a third to a half of the call (docs/BENCHMARKS.md). Packing once, with
the op PyTorch's own compiler emits for frozen CPU graphs (`mkldnn._linear_pointwise` on a
weight from `mkldnn._reorder_linear_weight`), takes it out. The packed op runs the same
kernel on the same blocked weight, so its results are the bits of `F.linear`: `pack_linears`
checks that on every layer it packs and leaves the layer as it is where they differ, so the
engine's answers, and its batch invariance, are those of the unpacked model.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

ROWS_HINT = 8  # the rows oneDNN tunes the packing for: a batch-1 block pass (8 slots)


def packing_available() -> bool:
    """Whether this torch build has oneDNN's packed linear (CPU builds with mkldnn)."""
    return torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_linear_pointwise")


class PackedLinear(nn.Module):
    """An nn.Linear of the bf16 CPU engine with its weight packed once (inference only)."""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        self.in_features, self.out_features = linear.in_features, linear.out_features
        weight = linear.weight.detach()
        self.packed = torch.ops.mkldnn._reorder_linear_weight(weight, ROWS_HINT)
        self.register_buffer("bias", None if linear.bias is None else linear.bias.detach().clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._linear_pointwise(x, self.packed, self.bias, "none", [], "")

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, packed=oneDNN"


def _same_bits(linear: nn.Linear, packed: PackedLinear) -> bool:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 11, linear.in_features, generator=g).to(linear.weight.dtype)
    with torch.no_grad():
        for rows in (x[:1, :1], x[:1, :8], x):
            if not torch.equal(packed(rows), F.linear(rows, linear.weight, linear.bias)):
                return False
    return True


def fuse_qkv(model: nn.Module) -> int:
    """Give every attention layer of a bf16 CPU `model` (modules with `query`, `key`, `value`
    and an empty `qkv`) one linear layer for the three projections, one call instead of three,
    where its outputs are the bits of the three (checked); returns how many were fused. The
    separate layers stay, for the prefix's last layer that needs only keys and values."""
    count = 0
    for m in model.modules():
        parts = [getattr(m, n, None) for n in ("query", "key", "value")]
        skip = not hasattr(m, "qkv") or m.qkv is not None  # not an attention layer, or fused already
        if skip or not all(type(p) is nn.Linear for p in parts) \
                or any(p.weight.dtype != torch.bfloat16 or p.weight.device.type != "cpu" for p in parts):
            continue
        fused = nn.Linear(parts[0].in_features, sum(p.out_features for p in parts),
                          bias=parts[0].bias is not None, dtype=torch.bfloat16)
        with torch.no_grad():
            fused.weight.copy_(torch.cat([p.weight for p in parts]))
            if fused.bias is not None:
                fused.bias.copy_(torch.cat([p.bias for p in parts]))
            x = torch.randn(2, 9, fused.in_features, generator=torch.Generator().manual_seed(0)).bfloat16()
            if all(torch.equal(fused(r), torch.cat([p(r) for p in parts], -1)) for r in (x[:1, :1], x)):
                m.qkv = fused
                count += 1
    return count


def pack_linears(model: nn.Module) -> int:
    """Replace every bf16 nn.Linear of a CPU `model` (in place) by a PackedLinear whose results
    are bit-identical to it (checked per layer); returns how many were packed. Layers named in
    the model's `reads_weights` (whose weight other code reads) stay. A no-op (0) where the op
    is missing or the model is not bf16 on a CPU."""
    if not packing_available():
        return 0
    keep = set(getattr(model, "reads_weights", ()))
    count = 0
    for path, parent in list(model.named_modules()):
        for name, child in list(parent.named_children()):
            if type(child) is not nn.Linear or f"{path}.{name}".lstrip(".") in keep \
                    or child.weight.device.type != "cpu" or child.weight.dtype != torch.bfloat16:
                continue
            try:
                packed = PackedLinear(child)
                same = _same_bits(child, packed)
            except RuntimeError:  # oneDNN refuses the shape or dtype on this CPU: keep F.linear
                continue
            if same:
                setattr(parent, name, packed)
                count += 1
    return count
