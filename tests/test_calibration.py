import random

import torch

from decider.engine.training.calibration import expected_calibration_error, fit_temperature, rescale


def test_fit_recovers_a_known_temperature():
    rng = random.Random(0)
    dists, labels = [], []
    for _ in range(4000):
        logits = torch.tensor([rng.gauss(0, 3) for _ in range(3)])
        true_p = torch.softmax(logits / 2.0, 0)  # the truth is twice as flat as the logits say
        labels.append(int(torch.multinomial(true_p, 1, generator=torch.Generator().manual_seed(rng.randrange(10**9)))))
        dists.append(torch.softmax(logits, 0).tolist())
    assert 1.8 < fit_temperature(dists, labels) < 2.2


def test_ece_is_zero_when_calibrated_and_large_when_not():
    rng = random.Random(1)
    conf = [rng.uniform(0.5, 1.0) for _ in range(20000)]
    correct = [rng.random() < c for c in conf]
    assert expected_calibration_error(conf, correct) < 0.02
    assert expected_calibration_error([0.99] * 100, [True] * 50 + [False] * 50) > 0.45


def test_rescale_keeps_the_argmax():
    d = [0.7, 0.2, 0.1]
    assert rescale(d, 3.0).index(max(rescale(d, 3.0))) == 0
    assert abs(sum(rescale(d, 0.3)) - 1) < 1e-9
