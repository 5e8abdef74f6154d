"""A fake model with scripted logits, for testing the engine's loop without weights."""

import torch
from torch import nn

from decider.engine.checkpoint import Checkpoint
from decider.engine.model import ModelConfig, PrefixKV
from decider.engine.tokenizer import DecisionTokenizer


class ScriptedLogits(nn.Module):
    """Slot s of every request gets logits[s] (S, C). `pull` adds, per committed slot, to the
    yes-logit of the others, so later steps see earlier commits. `script(answers) -> (B, S, C)`
    overrides both. Counts block passes."""

    def __init__(self, logits: torch.Tensor | None = None, pull: float = 0.0, script=None):
        super().__init__()
        self.cfg = ModelConfig(n_answers=18)
        self.logits, self.pull, self.script = logits, pull, script
        self.w = nn.Parameter(torch.zeros(1))
        self.calls = 0

    @property
    def mask_token(self) -> int:
        return self.cfg.n_answers

    def prefix_forward(self, ids, valid, segments, numbers=None, links=None):
        return PrefixKV([], [], valid)

    def answer_vectors(self, option_ids, option_len, option_start=None, prefix=None):
        B, S, K, _ = option_ids.shape
        return torch.zeros(B, S, K + 2, 1)

    def block_forward(self, answers, positions, slot_valid, prefix, choices):
        self.calls += 1
        if self.script is not None:
            return self.script(answers)
        B, S = answers.shape
        out = self.logits[:S].expand(B, S, -1).clone()
        committed = (answers != self.mask_token).sum(-1, keepdim=True).float()  # (B, 1)
        out[..., 0] += self.pull * committed
        return out


def scripted(tokenizer_path, **kw) -> Checkpoint:
    return Checkpoint(ScriptedLogits(**kw), DecisionTokenizer(tokenizer_path), name="scripted")


def yes_logits(p_yes: list[float]) -> torch.Tensor:
    """Per slot: P(yes) among {yes, no} as given; every other class far below."""
    rows = torch.full((max(len(p_yes), 8), 18), -20.0)
    for s, p in enumerate(p_yes):
        rows[s, 0] = torch.logit(torch.tensor(p))
        rows[s, 1] = 0.0
    return rows
