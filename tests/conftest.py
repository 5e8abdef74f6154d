"""Shared fixtures: the shipped tokenizer, a tiny random model, the shipped checkpoint."""

from pathlib import Path

import pytest
import torch

from decider.engine.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint, random_init
from decider.engine.model import ModelConfig

TOKENIZER = DEFAULT_CHECKPOINT / "tokenizer.json"


@pytest.fixture(scope="session")
def tokenizer_path() -> Path:
    return TOKENIZER


@pytest.fixture()
def tiny():
    """A tiny random model with the real tokenizer (fp32, eval mode)."""
    torch.manual_seed(0)
    cfg = ModelConfig(dim=32, n_layers=2, n_heads=4, ffn_dim=64)
    ckpt = random_init(cfg, TOKENIZER)
    ckpt.model.eval()
    return ckpt


@pytest.fixture(scope="session")
def shipped():
    return load_checkpoint()
