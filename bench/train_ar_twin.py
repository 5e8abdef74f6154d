"""Train the autoregressive twin of decider-small (bench/ar_twin.py) on decider's schedule.

    python bench/train_ar_twin.py --config engine/configs/decider-small.yaml --out runs/ar-twin \
        [--examples N] [--time-limit-min M]

Same curriculum config as `decider train`: the same sets in the same order, the same batch
size and learning-rate schedule; CUDA when present (bf16 autocast), else the CPU.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from ar_twin import train_twin
from decider.engine.checkpoint import pretrained_encoder_dir
from decider.engine.tokenizer import DecisionTokenizer
from decider.engine.training.train import TrainConfig


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--examples", type=int, help="stop after this many sets (the schedule is kept)")
    p.add_argument("--time-limit-min", type=float)
    args = p.parse_args()
    raw = yaml.safe_load(Path(args.config).read_text())
    raw.update(out=args.out, stop_after=args.examples or raw.get("stop_after"),
               time_limit_min=args.time_limit_min or raw.get("time_limit_min"))
    cfg = TrainConfig(**{k: v for k, v in raw.items() if k in TrainConfig.model_fields})
    train_twin(cfg, DecisionTokenizer(pretrained_encoder_dir() / "tokenizer.json"))
    print(f"twin saved to {cfg.out}")


if __name__ == "__main__":
    main()
