"""Tensors for the model's two passes: batching encoded requests, and probabilities over
each question's own answers.

The denoising loop itself (commit rule, constraints, continuous batching) is the engine
core's (engine/core.py); this module holds what it and the eval share.
This module never imports grpc.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import torch

from decider.engine.model import BlockDiffusionModel, PrefixKV
from decider.engine.tokenizer import EncodedRequest

MAX_OPTION_TOKENS = 8  # an option's content vector averages at most its first 8 word pieces


@dataclass
class Batch:
    """Padded tensors for a batch of encoded requests."""

    ids: torch.Tensor         # (B, L) prefix token ids
    valid: torch.Tensor       # (B, L) bool
    segments: torch.Tensor    # (B, L) 0 = context, i + 1 = question i
    positions: torch.Tensor   # (B, S) slot position ids
    slot_valid: torch.Tensor  # (B, S) bool
    allowed: torch.Tensor     # (B, S, C) bool: answer classes each slot may take
    option_ids: torch.Tensor  # (B, S, K, T) token ids of each option (K = C - 2)
    option_len: torch.Tensor  # (B, S, K)
    option_start: torch.Tensor  # (B, S, K) prefix index of each option's first word piece
    numbers: torch.Tensor     # (B, L) rank of each prefix token's number (0 = none)
    links: torch.Tensor       # (B, L) int64 bit mask of the names of each prefix token's sentence

    @staticmethod
    def collate(requests: list[EncodedRequest], pad_id: int, n_classes: int,
                device: torch.device | str = "cpu") -> "Batch":
        B = len(requests)
        L = max(len(r.prefix_ids) for r in requests)
        S = max(r.n_slots for r in requests)
        ids = torch.full((B, L), pad_id, dtype=torch.long)
        valid = torch.zeros(B, L, dtype=torch.bool)
        segments = torch.zeros(B, L, dtype=torch.long)
        numbers = torch.zeros(B, L, dtype=torch.long)
        links = torch.zeros(B, L, dtype=torch.long)
        positions = torch.zeros(B, S, dtype=torch.long)
        slot_valid = torch.zeros(B, S, dtype=torch.bool)
        allowed = torch.zeros(B, S, n_classes, dtype=torch.bool)
        T = max([min(len(o), MAX_OPTION_TOKENS) for r in requests for opts in r.option_ids for o in opts] or [1])
        option_ids = torch.zeros(B, S, n_classes - 2, T, dtype=torch.long)
        option_len = torch.zeros(B, S, n_classes - 2, dtype=torch.long)
        option_start = torch.zeros(B, S, n_classes - 2, dtype=torch.long)
        for b, r in enumerate(requests):
            for s, opts in enumerate(r.option_ids):
                for k, o in enumerate(opts):
                    o = o[:MAX_OPTION_TOKENS]
                    option_ids[b, s, k, : len(o)] = torch.tensor(o, dtype=torch.long)
                    option_len[b, s, k] = len(o)
            for s, starts in enumerate(r.option_starts):
                option_start[b, s, : len(starts)] = torch.tensor(starts, dtype=torch.long)
            n = len(r.prefix_ids)
            ids[b, :n] = torch.tensor(r.prefix_ids)
            valid[b, :n] = True
            segments[b, :n] = torch.tensor(r.segments)
            if r.numbers:
                numbers[b, :n] = torch.tensor(r.numbers)
            if r.links:
                links[b, :n] = torch.tensor(r.links)
            positions[b, : r.n_slots] = torch.tensor(r.slot_positions)
            slot_valid[b, : r.n_slots] = True
            for s, classes in enumerate(r.allowed):
                allowed[b, s, classes] = True
        return Batch(ids, valid, segments, positions, slot_valid, allowed, option_ids, option_len, option_start,
                     numbers, links).to(device)

    def to(self, device: torch.device | str) -> "Batch":
        return Batch(*(getattr(self, f.name).to(device, non_blocking=True) for f in fields(self)))

    def answer_vectors(self, model: BlockDiffusionModel, prefix: PrefixKV | None = None) -> torch.Tensor:
        """Every slot's answer classes' vectors; `prefix`: this batch's prefix pass output (the
        models that read options in context need it)."""
        return model.answer_vectors(self.option_ids, self.option_len, self.option_start, prefix)

    def prefix_forward(self, model: BlockDiffusionModel, hidden: list | None = None) -> PrefixKV:
        """`hidden` (training): a list that receives the model's prefix states; only a torch model
        has them, so the other passes (ONNX Runtime's) are never asked."""
        kw = {} if hidden is None else {"hidden": hidden}
        return model.prefix_forward(self.ids, self.valid, self.segments, self.numbers, self.links, **kw)


def answer_probs(logits: torch.Tensor, allowed: torch.Tensor, temperature: float) -> torch.Tensor:
    """Temperature softmax restricted to the allowed classes, renormalised. (B, S, C)"""
    return torch.softmax((logits / temperature).masked_fill(~allowed, float("-inf")), -1).nan_to_num(0.0)
