"""bench/weight_average.py: a checkpoint whose weights are the mean of others'."""

import pytest
import torch
from weight_average import averaged

from decider.engine.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint, random_init, save_checkpoint
from decider.engine.model import ModelConfig

TOKENIZER = DEFAULT_CHECKPOINT / "tokenizer.json"


def _tiny(seed: int, **cfg):
    return random_init(ModelConfig(**{"dim": 32, "n_layers": 2, "n_heads": 4, "ffn_dim": 64, **cfg}), TOKENIZER, seed=seed)


def test_the_average_holds_the_mean_of_every_weight_and_loads(tmp_path):
    a, b = _tiny(1), _tiny(2)
    want = {k: (v.float() + b.model.state_dict()[k].float()) / 2 for k, v in a.model.state_dict().items()}
    assert any(not torch.equal(v, b.model.state_dict()[k]) for k, v in a.model.state_dict().items())
    save_checkpoint(averaged([a, b]), tmp_path / "avg")
    got = load_checkpoint(tmp_path / "avg").model.state_dict()
    for k, v in want.items():
        torch.testing.assert_close(got[k], v)


def test_checkpoints_of_different_models_do_not_average():
    with pytest.raises(ValueError, match="n_layers"):
        averaged([_tiny(1), _tiny(2, n_layers=3)])
