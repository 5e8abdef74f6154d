"""Tensors for the model's two passes: batching requests, device and precision choice,
probabilities over each question's own answers, and the oracle/flip diagnostic.

The denoising loop itself (commit rule, constraints, continuous batching) is the engine
core's (engine/core.py); this module holds what it and the eval share.
This module never imports grpc.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, fields

import torch

from decider.engine.model import BlockDiffusionModel, PrefixKV
from decider.engine.tokenizer import EncodedRequest

MAX_OPTION_TOKENS = 8  # an option's content vector averages at most its first 8 word pieces


def bf16_is_fast(device: torch.device | str) -> bool:
    """True on CUDA and on CPUs with AMX or AVX512-BF16, where bf16 matmuls run 5-10x faster
    than fp32. Elsewhere (AVX2-only CPUs) bf16 is emulated and ~100x slower: stay in fp32."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    if device.type == "cpu":
        return torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported()
    return False


def resolve_device(name: str = "auto") -> torch.device:
    """'auto' = CUDA when present, else CPU; anything else is taken as a torch device name."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def autocast_for(device: torch.device | str, enabled: bool = True):
    """bf16 autocast for the linear layers where it pays (see bf16_is_fast), else a no-op."""
    device = torch.device(device)
    if not (enabled and bf16_is_fast(device)):
        return nullcontext()
    return torch.autocast(device.type, dtype=torch.bfloat16)


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

    @staticmethod
    def collate(requests: list[EncodedRequest], pad_id: int, n_classes: int,
                device: torch.device | str = "cpu") -> "Batch":
        B = len(requests)
        L = max(len(r.prefix_ids) for r in requests)
        S = max(r.n_slots for r in requests)
        ids = torch.full((B, L), pad_id, dtype=torch.long)
        valid = torch.zeros(B, L, dtype=torch.bool)
        segments = torch.zeros(B, L, dtype=torch.long)
        positions = torch.zeros(B, S, dtype=torch.long)
        slot_valid = torch.zeros(B, S, dtype=torch.bool)
        allowed = torch.zeros(B, S, n_classes, dtype=torch.bool)
        T = max([min(len(o), MAX_OPTION_TOKENS) for r in requests for opts in r.option_ids for o in opts] or [1])
        option_ids = torch.zeros(B, S, n_classes - 2, T, dtype=torch.long)
        option_len = torch.zeros(B, S, n_classes - 2, dtype=torch.long)
        for b, r in enumerate(requests):
            for s, opts in enumerate(r.option_ids):
                for k, o in enumerate(opts):
                    o = o[:MAX_OPTION_TOKENS]
                    option_ids[b, s, k, : len(o)] = torch.tensor(o, dtype=torch.long)
                    option_len[b, s, k] = len(o)
            n = len(r.prefix_ids)
            ids[b, :n] = torch.tensor(r.prefix_ids)
            valid[b, :n] = True
            segments[b, :n] = torch.tensor(r.segments)
            positions[b, : r.n_slots] = torch.tensor(r.slot_positions)
            slot_valid[b, : r.n_slots] = True
            for s, classes in enumerate(r.allowed):
                allowed[b, s, classes] = True
        return Batch(ids, valid, segments, positions, slot_valid, allowed, option_ids, option_len).to(device)

    def to(self, device: torch.device | str) -> "Batch":
        return Batch(*(getattr(self, f.name).to(device, non_blocking=True) for f in fields(self)))

    def answer_vectors(self, model: BlockDiffusionModel) -> torch.Tensor:
        return model.answer_vectors(self.option_ids, self.option_len)

    def prefix_forward(self, model: BlockDiffusionModel) -> PrefixKV:
        return model.prefix_forward(self.ids, self.valid, self.segments)


def answer_probs(logits: torch.Tensor, allowed: torch.Tensor, temperature: float) -> torch.Tensor:
    """Temperature softmax restricted to the allowed classes, renormalised. (B, S, C)"""
    return torch.softmax((logits / temperature).masked_fill(~allowed, float("-inf")), -1).nan_to_num(0.0)


@torch.no_grad()
def decode_revealed(model: BlockDiffusionModel, requests: list[EncodedRequest],
                    reveals: list[list[list[int]]], *, temperature: float = 1.0, pad_id: int = 0,
                    bf16: bool = True) -> list[list[list[torch.Tensor]]]:
    """For each reveal v, request b and slot i: the answer distribution of slot i when every
    other slot j holds `reveals[v][b][j]` (an answer class). One prefix pass per request
    serves every reveal; one block pass covers all variants. Used by the oracle diagnostic
    (true answers revealed) and the flip test (wrong answers revealed)."""
    device = next(model.parameters()).device
    C = model.cfg.n_answers
    batch = Batch.collate(requests, pad_id, C, device)
    B, S = batch.positions.shape
    rows, answers = [], []
    for revealed in reveals:
        for b, r in enumerate(requests):
            for i in range(r.n_slots):
                row = [model.mask_token] * S
                for j, cls in enumerate(revealed[b]):
                    if j != i:
                        row[j] = cls
                rows.append(b)
                answers.append(row)
    index = torch.tensor(rows, device=device)
    with autocast_for(device, bf16):
        prefix: PrefixKV = batch.prefix_forward(model).select(index)
        logits = model.block_forward(torch.tensor(answers, device=device), batch.positions[index],
                                     batch.slot_valid[index], prefix, batch.answer_vectors(model)[index])
        probs = answer_probs(logits, batch.allowed[index], temperature).cpu()
    out, k = [], 0
    for _ in reveals:
        per_request = []
        for r in requests:
            per_request.append([probs[k + i, i] for i in range(r.n_slots)])
            k += r.n_slots
        out.append(per_request)
    return out
