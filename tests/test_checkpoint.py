import json

import pytest
import torch

from decider.engine.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from decider.engine.core import EngineCore
from decider.engine.request import as_request


def _saved(tiny, tmp_path):
    return save_checkpoint(tiny, tmp_path / "ckpt")


def test_round_trip_gives_the_same_answers(tiny, tmp_path):
    folder = _saved(tiny, tmp_path)
    loaded = load_checkpoint(folder)
    for k, v in tiny.model.state_dict().items():
        torch.testing.assert_close(loaded.model.state_dict()[k], v)
    from decider.engine.training.corpus import CorpusSpec, make_sets
    requests = [as_request(s.context, s.questions) for s in make_sets(CorpusSpec(split="test"), 4)]
    a = EngineCore(tiny).decide(requests)
    b = EngineCore(loaded).decide(requests)
    assert [[(x.index, x.confidence) for x in r.answers] for r in a] == \
           [[(x.index, x.confidence) for x in r.answers] for r in b]


def test_refuses_pickle_weights(tiny, tmp_path):
    folder = _saved(tiny, tmp_path)
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")
    with pytest.raises(CheckpointError, match="only from model.safetensors"):
        load_checkpoint(folder)


def test_corrupt_weights_name_the_file(tiny, tmp_path):
    folder = _saved(tiny, tmp_path)
    (folder / "model.safetensors").write_bytes(b"\x00garbage" * 10)
    with pytest.raises(CheckpointError, match="model.safetensors"):
        load_checkpoint(folder)


def test_bad_config_field_is_named(tiny, tmp_path):
    folder = _saved(tiny, tmp_path)
    cfg = json.loads((folder / "config.json").read_text())
    cfg["n_layers"] = "six"
    (folder / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError, match=r"config.json: field 'n_layers'"):
        load_checkpoint(folder)


def test_mismatched_shapes_are_named(tiny, tmp_path):
    folder = _saved(tiny, tmp_path)
    cfg = json.loads((folder / "config.json").read_text())
    cfg["ffn_dim"] = 96
    (folder / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CheckpointError, match=r"tensor 'layers.0.ffn_in.weight' has shape"):
        load_checkpoint(folder)


def test_missing_pieces_are_named(tiny, tmp_path):
    folder = _saved(tiny, tmp_path)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(CheckpointError, match="tokenizer.json: missing"):
        load_checkpoint(folder)
    with pytest.raises(CheckpointError, match="not a checkpoint folder"):
        load_checkpoint(tmp_path / "nowhere")


def test_bad_calibration_is_named(tiny, tmp_path):
    folder = _saved(tiny, tmp_path)
    (folder / "calibration.json").write_text(json.dumps({"temperature": -1}))
    with pytest.raises(CheckpointError, match="calibration.json: field 'temperature'"):
        load_checkpoint(folder)


def test_shipped_checkpoint_is_small_and_complete():
    from decider.engine.checkpoint import DEFAULT_CHECKPOINT
    names = {p.name for p in DEFAULT_CHECKPOINT.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "calibration.json", "MODEL_CARD.md"} <= names
    size = sum(p.stat().st_size for p in DEFAULT_CHECKPOINT.iterdir())
    assert size <= 50 * 2**20
