"""Decisions per second of a real-sized diffusion LM family behind the engine (random weights).

    python bench/real_model_speed.py --shape qwen3-1.7b --device cuda [--json out.json]
    python bench/real_model_speed.py --shape tiny            # a smoke run on a CPU

A random model of the shape (Qwen3-1.7B: 28 layers, 2048 wide, 16 heads over 8 K/V heads) is
built with engine/lm.py in bf16 on the device, with a word-level tokenizer made here; 8-question
requests with prompts of about 300 tokens go through EngineCore at batch 1, 32 and 256 (each
batch decided to the end, repeated for --seconds). Reported: decisions/s and ms per batch, and
the share of the time spent in block attention (CUDA events around kernels.dispatch). Random
weights decide nothing meaningful; the passes per decision are what a real model's would be
only roughly (commits follow confidence).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import torch
from tokenizers import Tokenizer, models, pre_tokenizers

from decider.engine import lm as lm_module
from decider.engine.checkpoint import Checkpoint
from decider.engine.core import EngineCore, EngineConfig
from decider.engine.lm import LMBlockDiffusion, LMConfig
from decider.engine.lm_loader import LETTERS, PromptTokenizer
from decider.kernels import dispatch

SHAPES = {
    "qwen3-1.7b": dict(dim=2048, n_layers=28, n_heads=16, n_kv_heads=8, head_dim=128, ffn_dim=6144, vocab_size=151936),
    "tiny": dict(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, head_dim=16, ffn_dim=96, vocab_size=2048),
}
WORDS = [f"w{i}" for i in range(1500)]


def build(shape: str, device: torch.device, dtype: torch.dtype) -> Checkpoint:
    specials = ["[UNK]", "<|MASK|>", "yes", "no", ":", "(", ")", *LETTERS, *(str(i) for i in range(1, 9))]
    vocab = {w: i for i, w in enumerate(specials + WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    path = Path(tempfile.mkdtemp()) / "tokenizer.json"
    tok.save(str(path))
    cfg = LMConfig(family="qwen3-block-diffusion", rope_theta=1e6, norm_eps=1e-6, max_position=4096, qk_norm=True,
                   mask_token_id=vocab["<|MASK|>"], **SHAPES[shape])
    prompt_tok = PromptTokenizer(path, cfg.family, cfg.max_position, None)
    template = [prompt_tok.ids(f"{j + 1}:") for j in range(8)]
    classes = [prompt_tok.one_token(" yes"), prompt_tok.one_token(" no")] + [prompt_tok.one_token(" " + x) for x in LETTERS]
    torch.manual_seed(0)
    with torch.device(device):
        model = LMBlockDiffusion(cfg, template, prompt_tok.ids("\n"), classes)
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.02) if p.ndim > 1 else torch.nn.init.ones_(p)
    model = model.to(dtype).eval()
    prompt_tok.block_layout = model.block_layout
    return Checkpoint(model, prompt_tok, "random-" + shape, "bench")


def requests(n: int, rng: random.Random) -> list[dict]:
    out = []
    for _ in range(n):
        qs = [{"id": f"q{j}", "text": " ".join(rng.choices(WORDS, k=6)), "type": "boolean"} for j in range(5)]
        qs += [{"id": f"c{j}", "text": " ".join(rng.choices(WORDS, k=6)), "type": "categorical",
                "options": rng.sample(WORDS, 3)} for j in range(3)]
        out.append({"context": " ".join(rng.choices(WORDS, k=130)), "questions": qs})
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shape", default="qwen3-1.7b", choices=sorted(SHAPES))
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--batches", default="1,32,256")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    device = torch.device(args.device)
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    ckpt = build(args.shape, device, dtype)
    rng = random.Random(0)
    attention = [0.0]
    inner = dispatch.block_attention

    def timed(*a, **kw):  # CUDA events around every block-attention call
        if device.type != "cuda":
            t0 = time.perf_counter()
            out = inner(*a, **kw)
            attention[0] += time.perf_counter() - t0
            return out
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        out = inner(*a, **kw)
        end.record()
        end.synchronize()
        attention[0] += start.elapsed_time(end) / 1e3
        return out

    lm_module.dispatch.block_attention = timed
    report = {"shape": args.shape, "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
              "dtype": str(dtype), "parameters": sum(p.numel() for p in ckpt.model.parameters()), "rows": []}
    for batch in (int(b) for b in args.batches.split(",")):
        engine = EngineCore(ckpt, EngineConfig(max_running=batch, prefix_cache_bytes=0, max_prefix_tokens=1 << 20))
        prompt_tokens = len(engine.tok.encode(**_as_args(requests(1, rng)[0])).prefix_ids)
        engine.decide(requests(min(batch, 4), rng))  # warm-up
        done, passes, attention[0] = 0, 0, 0.0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.seconds:
            for r in engine.decide(requests(batch, rng)):
                done += 1
                passes += r.forward_passes
        if device.type == "cuda":
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        row = {"batch": batch, "prompt_tokens": prompt_tokens, "decisions_per_s": round(done / elapsed, 2),
               "ms_per_batch": round(1e3 * elapsed * batch / done, 1), "passes_mean": round(passes / done, 2),
               "block_attention_share": round(attention[0] / elapsed, 3)}
        report["rows"].append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


def _as_args(request: dict) -> dict:
    from decider.engine.request import DecisionRequest

    r = DecisionRequest.parse(request)
    return {"context": r.context, "questions": r.to_questions()}


if __name__ == "__main__":
    raise SystemExit(main())
