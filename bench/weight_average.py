"""Average the weights of checkpoints of one model (a "model soup"), for a probe.

    python bench/weight_average.py --out DIR CHECKPOINT CHECKPOINT [...]

Checkpoints fine-tuned from a shared start can sometimes be averaged weight by weight into one
that is as good as the best of them and more robust away from the training data (Wortsman et
al., "Model soups", 2022). This writes the plain average, in bf16 as shipped, with the first
checkpoint's config, tokenizer and name; its temperature is the first checkpoint's until
`decider calibrate` fits one. The checkpoints must share one model config (the fields that
shape the model); a mismatch is an error that names the field.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from decider.engine.checkpoint import Checkpoint, load_checkpoint, save_checkpoint


def averaged(ckpts: list[Checkpoint]) -> Checkpoint:
    """The first checkpoint with every weight the mean of all of theirs (in fp32)."""
    first = ckpts[0]
    cfg = first.model.cfg.model_dump()
    for c in ckpts[1:]:
        other = c.model.cfg.model_dump()
        if diff := sorted(k for k in cfg if cfg[k] != other.get(k)):
            raise ValueError(f"checkpoint {c.name} {c.version} differs from {first.name} {first.version} in "
                             f"model config field(s) {', '.join(diff)}: only checkpoints of one model average")
    states = [c.model.state_dict() for c in ckpts]
    first.model.load_state_dict({k: torch.stack([s[k].float() for s in states]).mean(0) for k in states[0]})
    return first


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoints", nargs="+", help="checkpoint folders, two or more")
    p.add_argument("--out", required=True, help="folder for the averaged checkpoint")
    args = p.parse_args()
    if len(args.checkpoints) < 2:
        p.error("name two or more checkpoints to average")
    folder = save_checkpoint(averaged([load_checkpoint(c) for c in args.checkpoints]), Path(args.out),
                             dtype=torch.bfloat16)
    print(f"{folder}: the average of {len(args.checkpoints)} checkpoints; fit its temperature with decider calibrate")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
