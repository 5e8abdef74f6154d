"""Constrained commit: the Triton kernel against the torch reference, and the rule itself."""

import pytest
import torch

from decider.kernels.commit.naive import commit as reference
from decider.kernels.commit.triton import commit

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def case(B, S, C=18, seed=0):
    g = torch.Generator().manual_seed(seed)
    logits = (torch.randn(B, S, C, generator=g) * 4).to(DEVICE)
    allowed = torch.zeros(B, S, dtype=torch.int32)
    for b in range(B):
        for s in range(S):
            k = int(torch.randint(2, 9, (1,), generator=g))
            classes = [0, 1] if (b + s) % 3 == 0 else list(range(2, 2 + k))
            allowed[b, s] = sum(1 << c for c in classes)
    open_ = torch.rand(B, S, generator=g) < 0.7
    open_[:, 0] = True
    threshold = torch.tensor([0.5, 0.9, 2.0, 0.9999] * B)[:B]  # 2.0: sequential, one commit per request
    return logits, allowed.to(DEVICE), open_.to(DEVICE), threshold.to(DEVICE)


@pytest.mark.parametrize("B, S", [(1, 1), (3, 5), (7, 8)])
@pytest.mark.parametrize("temperature", [0.7, 1.3])
@pytest.mark.parametrize("rest_all", [False, True])
def test_matches_the_reference(B, S, temperature, rest_all):
    args = case(B, S, seed=B * 10 + S)
    p, choice, conf, flags = commit(*args, temperature, rest_all)
    rp, rchoice, rconf, rflags = reference(*args, temperature, rest_all)
    assert (p - rp).abs().max() < 1e-6 and (conf - rconf).abs().max() < 1e-6
    assert torch.equal(choice, rchoice) and torch.equal(flags, rflags)


@pytest.mark.parametrize("rest_all", [False, True])
def test_the_rule(rest_all):
    logits, allowed, open_, threshold = case(6, 8)
    probs, choice, conf, flags = commit(logits, allowed, open_, threshold, 1.0, rest_all)
    for b in range(6):
        for s in range(8):
            classes = [c for c in range(18) if int(allowed[b, s]) >> c & 1]
            assert abs(float(probs[b, s, classes].sum()) - 1) < 1e-5 and float(probs[b, s].sum()) == pytest.approx(1)
            assert int(choice[b, s]) in classes  # never outside the slot's answers
        commits = flags[b].nonzero().flatten().tolist()
        assert commits and all(open_[b, s] for s in commits)  # at least one, only open slots
        sure = [s for s in range(8) if open_[b, s] and conf[b, s] >= threshold[b]]
        if threshold[b] > 1:
            assert len(commits) == 1
        elif sure:
            assert commits == sure
        elif rest_all:  # none sure: every open slot
            assert commits == open_[b].nonzero().flatten().tolist()
        else:  # none sure: the most confident
            assert len(commits) == 1 and float(conf[b, commits[0]]) == float(conf[b][open_[b]].max())


def test_bad_arguments_are_named():
    logits, allowed, open_, threshold = case(2, 3)
    with pytest.raises(ValueError, match="allowed must be int32"):
        commit(logits, allowed.long(), open_, threshold, 1.0)
    with pytest.raises(ValueError, match="temperature must be positive"):
        commit(logits, allowed, open_, threshold, 0.0)
