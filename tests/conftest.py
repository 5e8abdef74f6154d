"""Shared fixtures: the shipped tokenizer, a tiny random model, the shipped checkpoint."""

import atexit
import os
import shutil
import tempfile

import torch

# Triton kernels run in Triton's interpreter where there is no GPU (set before triton loads)
if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

# graphs exported for ONNX Runtime (engine/onnx_passes.py) go to this run's own folder
os.environ["DECIDER_CACHE_DIR"] = tempfile.mkdtemp(prefix="decider-test-cache-")
atexit.register(shutil.rmtree, os.environ["DECIDER_CACHE_DIR"], ignore_errors=True)

import sys
from pathlib import Path

import pytest

# benchmark code (the AR twin) lives in bench/, next to the scripts that use it
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

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


@pytest.fixture()
def tiny_bert(tiny):
    """tiny_bert(seed): a random BERT in Hugging Face's layout, the tiny model's size, as a
    pretrained encoder would come (the option reader's, training's anchor)."""
    from transformers import BertConfig, BertModel

    cfg = tiny.model.cfg

    def make(seed: int):
        torch.manual_seed(seed)
        return BertModel(BertConfig(vocab_size=cfg.vocab_size, hidden_size=cfg.dim, num_hidden_layers=cfg.n_layers,
                                    num_attention_heads=cfg.n_heads, intermediate_size=cfg.ffn_dim,
                                    max_position_embeddings=cfg.max_position, hidden_act="gelu")).eval()
    return make


@pytest.fixture(scope="session")
def shipped():
    return load_checkpoint()
