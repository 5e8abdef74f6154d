"""The decode loop with a fake model whose logits are fixed: no weights needed."""

import torch
from torch import nn

from decider.engine.decode import decode
from decider.engine.model import ModelConfig, PrefixKV
from decider.engine.tokenizer import EncodedRequest


class FixedLogits(nn.Module):
    """Slot s of every request gets logits[s]; a committed slot shifts the others by `pull`
    (so later steps see earlier commits). Counts block passes."""

    def __init__(self, logits: torch.Tensor, pull: float = 0.0):
        super().__init__()
        self.cfg = ModelConfig(n_answers=18)
        self.logits = logits
        self.pull = pull
        self.w = nn.Parameter(torch.zeros(1))
        self.calls = 0

    @property
    def mask_token(self):
        return self.cfg.n_answers

    def prefix_forward(self, ids, valid, segments):
        return PrefixKV([], [], valid)

    def answer_vectors(self, option_ids, option_len):
        B, S, K, _ = option_ids.shape
        return torch.zeros(B, S, K + 2, 1)

    def block_forward(self, answers, positions, slot_valid, prefix, choices):
        self.calls += 1
        B, S = answers.shape
        out = self.logits[:S].expand(B, S, -1).clone()
        committed = (answers != self.mask_token).sum(-1, keepdim=True).float()  # (B, 1)
        out[..., 0] += self.pull * committed
        return out


def _req(n, categorical=0):
    allowed = [[0, 1]] * (n - categorical) + [[2, 3, 4]] * categorical
    return EncodedRequest([101, 102], [0, 0], list(range(2, 2 + n)), allowed)


def _logits(conf_yes: list[float]):
    """Per slot: P(yes) among {yes, no} as given."""
    rows = torch.full((len(conf_yes), 18), -5.0)
    for s, p in enumerate(conf_yes):
        rows[s, 0] = torch.logit(torch.tensor(p))
        rows[s, 1] = 0.0
    return rows


def test_parallel_commits_everything_above_threshold_in_one_pass():
    model = FixedLogits(_logits([0.99, 0.98, 0.97, 0.995]))
    (r,) = decode(model, [_req(4)], policy="parallel", threshold=0.9, bf16=False)
    assert r.forward_passes == 1 and all(s.step == 1 for s in r.slots)
    assert all(s.answer_class == 0 for s in r.slots)


def test_parallel_commits_at_least_the_most_confident_slot():
    model = FixedLogits(_logits([0.6, 0.7, 0.55]))
    (r,) = decode(model, [_req(3)], policy="parallel", threshold=0.99, bf16=False)
    assert [s.step for s in r.slots] == [2, 1, 3]  # most confident first, one per pass
    assert r.forward_passes == 3


def test_commits_feed_later_steps():
    # each commit raises P(yes) of the others: the rest cross the threshold at step 2
    model = FixedLogits(_logits([0.8, 0.6, 0.6]), pull=3.0)
    (r,) = decode(model, [_req(3)], policy="parallel", threshold=0.9, bf16=False)
    assert r.slots[0].step == 1 and {s.step for s in r.slots[1:]} == {2}


def test_sequential_takes_one_slot_per_pass():
    model = FixedLogits(_logits([0.99] * 5))
    (r,) = decode(model, [_req(5)], policy="sequential", bf16=False)
    assert sorted(s.step for s in r.slots) == [1, 2, 3, 4, 5] and r.forward_passes == 5


def test_answers_stay_inside_each_questions_options():
    logits = torch.zeros(3, 18)
    logits[:, 10] = 50.0  # a class no question allows
    logits[2, 4] = 2.0
    model = FixedLogits(logits)
    (r,) = decode(model, [_req(3, categorical=1)], bf16=False)
    assert r.slots[0].answer_class in (0, 1) and r.slots[2].answer_class == 4
    assert abs(sum(r.slots[2].distribution) - 1) < 1e-5 and len(r.slots[2].distribution) == 3


def test_ragged_batch_and_bounded_passes():
    model = FixedLogits(_logits([0.5] * 8))
    out = decode(model, [_req(8), _req(1), _req(3)], policy="parallel", threshold=1.0, bf16=False)
    assert [r.forward_passes for r in out] == [8, 1, 3]
    assert model.calls == 8  # never more passes than the largest block


def test_temperature_changes_confidence_not_choice():
    model = FixedLogits(_logits([0.8]))
    (hot,) = decode(model, [_req(1)], temperature=2.0, bf16=False)
    (cold,) = decode(model, [_req(1)], temperature=0.5, bf16=False)
    assert hot.slots[0].answer_class == cold.slots[0].answer_class == 0
    assert hot.slots[0].confidence < 0.8 < cold.slots[0].confidence
