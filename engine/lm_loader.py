"""A team's diffusion LM from a local Hugging Face folder, as a decider Checkpoint.

    folder/config.json                      model_type and sizes (read, never executed)
    folder/model.safetensors                or shards listed in model.safetensors.index.json
    folder/tokenizer.json                   the tokenizer (tokenizers' format)
    folder/decider-calibration.json         written by `decider calibrate` (optional)

No remote code, no pickle, no network. Architectures by `model_type`:

    qwen3, sdar            -> qwen3-block-diffusion (SDAR: block-causal prompt in its block_size)
    qwen2, Fast_dLLM_Qwen  -> qwen2-block-diffusion (Fast-dLLM v2: bd_size blocks, shifted logits)
    llama, llada           -> llama-masked-diffusion (LLaDA: its own tensor names, mapped here)

The prompt is the checkpoint's own chat template (tokenizer_config.json, rendered in jinja2's
sandbox), else the family's chat format (ChatML for Qwen, Llama 3 headers for LLaMA), with a
system instruction, the context, and the numbered questions with lettered options; the answer
block is "1: <answer>\\n2: <answer>...", one token per answer (" yes", " no", " A".." P").
"""

from __future__ import annotations

import json
import string
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file
from tokenizers import Tokenizer

from decider.engine.checkpoint import Checkpoint, CheckpointError, UNSAFE_SUFFIXES, load_weights
from decider.engine.lm import LMBlockDiffusion, LMConfig
from decider.engine.request import MAX_OPTIONS, MAX_QUESTIONS, N_ANSWER_CLASSES, DecisionInputError, Question, answer_classes
from decider.engine.tokenizer import EncodedRequest

LETTERS = string.ascii_uppercase[:MAX_OPTIONS]
MASK_TOKENS = ("<|MASK|>", "<MASK>", "|<MASK>|", "<|mdm_mask|>", "[MASK]")
CALIBRATION = "decider-calibration.json"
SYSTEM = ("You answer questions about the context below. Answer every question with one token: "
          "yes or no, or the letter of one option.")

# model_type -> (family, flags, where the prefix block size is in config.json)
MODEL_TYPES = {
    "qwen3": ("qwen3-block-diffusion", {"qk_norm": True}, None),
    "sdar": ("qwen3-block-diffusion", {"qk_norm": True}, "block_size"),
    "qwen2": ("qwen2-block-diffusion", {"qkv_bias": True}, None),
    "Fast_dLLM_Qwen": ("qwen2-block-diffusion", {"qkv_bias": True, "logits_shift": True}, "bd_size"),
    "llama": ("llama-masked-diffusion", {"causal_prefix": False}, None),
    "llada": ("llama-masked-diffusion", {"causal_prefix": False}, None),
}

# LLaDA's tensor names -> Hugging Face Llama's
LLADA_NAMES = {"att_norm": "input_layernorm", "attn_norm": "input_layernorm", "ff_norm": "post_attention_layernorm",
               "q_proj": "self_attn.q_proj", "k_proj": "self_attn.k_proj", "v_proj": "self_attn.v_proj",
               "attn_out": "self_attn.o_proj", "ff_proj": "mlp.gate_proj", "up_proj": "mlp.up_proj",
               "ff_out": "mlp.down_proj"}


def is_hf_folder(folder: Path) -> bool:
    try:
        return "model_type" in json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return False


def chat_template(folder: Path):
    """The checkpoint's own chat template (tokenizer_config.json's `chat_template`), compiled in
    jinja2's sandbox (a template is data: it cannot reach Python), or None."""
    path = folder / "tokenizer_config.json"
    if not path.is_file():
        return None
    try:
        raw = json.loads(path.read_text())
    except ValueError as e:
        raise CheckpointError(f"{path}: not JSON ({e})") from None
    template = raw.get("chat_template")
    if isinstance(template, list):  # [{"name": "default", "template": ...}, ...]
        template = next((t.get("template") for t in template if t.get("name") == "default"), None)
    if not isinstance(template, str):
        return None
    from jinja2 import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    try:
        compiled = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True).from_string(template)
    except TemplateError as e:
        raise CheckpointError(f"{path}: field 'chat_template' does not compile ({e})") from None
    specials = {k: v if isinstance(v, str) else (v or {}).get("content", "")
                for k, v in raw.items() if k in ("bos_token", "eos_token")}

    def render(messages: list[dict]) -> str:
        return compiled.render(messages=messages, add_generation_prompt=True, enable_thinking=False, **specials)
    return render


class PromptTokenizer:
    """(context, questions) -> the prompt's token ids and each answer slot's position. The prompt
    is the checkpoint's own chat template when it has one, else the family's chat format."""

    def __init__(self, path: Path, family: str, max_length: int, block_layout, template=None):
        self.path, self.family, self.max_length, self.template = path, family, max_length, template
        self.tok = Tokenizer.from_file(str(path))
        self.tok.no_padding()
        self.tok.no_truncation()
        self.block_layout = block_layout
        self.vocab_size = self.tok.get_vocab_size()
        self.pad = 0

    def one_token(self, text: str) -> int:
        ids = self.tok.encode(text, add_special_tokens=False).ids
        if len(ids) != 1:
            raise CheckpointError(f"{self.path}: {text!r} is {len(ids)} tokens; the answer template needs it as one")
        return ids[0]

    def ids(self, text: str) -> list[int]:
        return self.tok.encode(text, add_special_tokens=False).ids

    def prompt(self, context: str, questions: list[Question]) -> str:
        lines = [f"Context: {context}", "", "Questions:"]
        for i, q in enumerate(questions):
            if q.kind == "boolean":
                lines.append(f"{i + 1}. {q.text} (yes or no)")
            else:
                lines.append(f"{i + 1}. {q.text} " + " ".join(f"({LETTERS[k]}) {o}" for k, o in enumerate(q.options)))
        user = "\n".join(lines)
        if self.template is not None:
            return self.template([{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}])
        if self.family == "llama-masked-diffusion":
            return (f"<|start_header_id|>system<|end_header_id|>\n\n{SYSTEM}<|eot_id|>"
                    f"<|start_header_id|>user<|end_header_id|>\n\n{user}<|eot_id|>"
                    "<|start_header_id|>assistant<|end_header_id|>\n\n")
        return (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
                "<|im_start|>assistant\n")

    def encode(self, context: str, questions: list[Question], truncate: bool = False) -> EncodedRequest:
        ids = self.ids(self.prompt(context, questions))
        block, slots = self.block_layout(len(questions))
        if len(ids) + len(block) > self.max_length:
            raise DecisionInputError(f"the prompt is {len(ids)} tokens and the answers {len(block)}; the model's "
                                     f"window is {self.max_length}: shorten the context", field="context")
        return EncodedRequest(ids, [0] * len(ids), [len(ids) + s for s in slots],
                              [answer_classes(q) for q in questions], [[[0] for _ in q.options] for q in questions],
                              [0] * len(ids))

    def encode_batch(self, requests, truncate: bool = False) -> list[EncodedRequest]:
        return [self.encode(c, qs, truncate) for c, qs in requests]


def _shards(folder: Path) -> list[Path]:
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        try:
            files = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        except (ValueError, KeyError, AttributeError) as e:
            raise CheckpointError(f"{index}: not a safetensors index ({e})") from None
        missing = [f for f in files if not (folder / f).is_file()]
        if missing:
            raise CheckpointError(f"{index}: lists {missing[:3]} but the folder has no such shard")
        return [folder / f for f in files]
    single = folder / "model.safetensors"
    if single.is_file():
        return [single]
    unsafe = [p.name for p in folder.iterdir() if p.suffix in UNSAFE_SUFFIXES]
    if unsafe:
        raise CheckpointError(f"{folder}: found {unsafe[:3]} but decider loads only safetensors (pickle files can "
                              "run code when loaded); convert them with safetensors")
    raise CheckpointError(f"{folder}: no model.safetensors nor model.safetensors.index.json")


def _config(folder: Path, raw: dict, tensors: dict) -> LMConfig:
    model_type = raw.get("model_type")
    if model_type not in MODEL_TYPES:
        raise CheckpointError(f"{folder / 'config.json'}: field 'model_type' is {model_type!r}; decider serves "
                              f"{sorted(MODEL_TYPES)}")
    family, flags, block_key = MODEL_TYPES[model_type]
    get = lambda *keys, default=None: next((raw[k] for k in keys if raw.get(k) is not None), default)  # noqa: E731
    dim = get("hidden_size", "d_model")
    n_heads = get("num_attention_heads", "n_heads")
    rope_theta = get("rope_theta", default=(raw.get("rope_parameters") or {}).get("rope_theta", 10000.0))
    gate = next((t for k, t in tensors.items() if k.endswith("mlp.gate_proj.weight")), None)
    try:
        return LMConfig(
            family=family, vocab_size=get("vocab_size", "embedding_size"), dim=dim,
            n_layers=get("num_hidden_layers", "n_layers"), n_heads=n_heads,
            n_kv_heads=get("num_key_value_heads", "n_kv_heads", default=n_heads),
            head_dim=get("head_dim", default=dim // n_heads if dim and n_heads else None),
            ffn_dim=int(gate.shape[0]) if gate is not None else get("intermediate_size", "mlp_hidden_size"),
            rope_theta=rope_theta, norm_eps=get("rms_norm_eps", default=1e-6),
            max_position=get("max_position_embeddings", "max_sequence_length", default=4096),
            tie_word_embeddings=bool(get("tie_word_embeddings", "weight_tying", default=False)),
            mask_token_id=raw["mask_token_id"], n_answers=N_ANSWER_CLASSES,
            prefix_block=int(raw.get(block_key) or 1) if block_key else 1, **flags)
    except (TypeError, ValueError) as e:
        raise CheckpointError(f"{folder / 'config.json'}: cannot read the model's sizes ({e})") from None


def _hf_names(model_type: str, tensors: dict) -> dict:
    if model_type != "llada":
        return tensors
    out = {}
    for k, t in tensors.items():
        k = k.removeprefix("model.transformer.")
        if k == "wte.weight":
            out["model.embed_tokens.weight"] = t
        elif k == "ln_f.weight":
            out["model.norm.weight"] = t
        elif k == "ff_out.weight":
            out["lm_head.weight"] = t
        elif k.startswith("blocks."):
            _, n, name, leaf = k.split(".", 3)
            out[f"model.layers.{n}.{LLADA_NAMES.get(name, name)}.{leaf}"] = t
        else:
            out[k] = t
    return out


def load_lm(folder: str | Path, device: str | torch.device = "cpu", dtype: torch.dtype | None = None) -> Checkpoint:
    folder = Path(folder)
    raw = json.loads((folder / "config.json").read_text())
    tok_path = folder / "tokenizer.json"
    if not tok_path.is_file():
        raise CheckpointError(f"{tok_path}: missing (decider reads the tokenizers format, tokenizer.json)")
    tensors = {}
    for shard in _shards(folder):
        try:
            tensors.update(load_file(str(shard)))
        except (SafetensorError, OSError) as e:
            raise CheckpointError(f"{shard}: cannot read safetensors ({e})") from None
    floats = {t.dtype for t in tensors.values() if t.is_floating_point()}
    if not floats <= {torch.float32, torch.bfloat16, torch.float16}:
        raise CheckpointError(f"{folder}: weights in {sorted(map(str, floats))}; decider loads float32, bfloat16 "
                              "or float16")
    tensors = _hf_names(raw.get("model_type"), tensors)
    probe = Tokenizer.from_file(str(tok_path))
    if raw.get("mask_token_id") is None:
        found = next((probe.token_to_id(t) for t in MASK_TOKENS if probe.token_to_id(t) is not None), None)
        if found is None:
            raise CheckpointError(f"{folder}: no mask token: config.json has no 'mask_token_id' and tokenizer.json "
                                  f"has none of {list(MASK_TOKENS)}")
        raw = {**raw, "mask_token_id": found}
    cfg = _config(folder, raw, tensors)
    tokenizer = PromptTokenizer(tok_path, cfg.family, cfg.max_position, None, chat_template(folder))
    if tokenizer.vocab_size > cfg.vocab_size:
        raise CheckpointError(f"{tok_path}: vocabulary has {tokenizer.vocab_size} tokens, more than the "
                              f"{cfg.vocab_size} embeddings of config.json")
    template = [tokenizer.ids(f"{j + 1}:") for j in range(MAX_QUESTIONS)]
    classes = [tokenizer.one_token(" yes"), tokenizer.one_token(" no")] + [tokenizer.one_token(" " + x) for x in LETTERS]
    with torch.device("meta"):
        model = LMBlockDiffusion(cfg, template, tokenizer.ids("\n"), classes)
    load_weights(model, tensors, folder, device, dtype,
                 frozenset({"lm_head.weight"}) if cfg.tie_word_embeddings else frozenset())
    model.class_tokens = torch.tensor(classes, device=device)
    model.eval()
    tokenizer.block_layout = model.block_layout
    meta, temperature = {"family": cfg.family}, 1.0
    if (folder / CALIBRATION).is_file():
        cal = json.loads((folder / CALIBRATION).read_text())
        temperature, meta["calibrated_on"] = float(cal["temperature"]), str(cal.get("fitted_on", "unknown"))
    return Checkpoint(model, tokenizer, raw.get("_name_or_path") or folder.name, "hf", temperature, meta)
