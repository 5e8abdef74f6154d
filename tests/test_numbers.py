"""Number ranks: which strings are numbers, their dense ranks, the tokens that carry them, and
the model's rank embeddings (zeros when added, so a fine-tune starts where the model was)."""

from decimal import Decimal

import torch

from decider.engine.checkpoint import load_checkpoint, save_checkpoint
from decider.engine.decode import Batch
from decider.engine.numbers import dense_ranks, number_spans
from decider.engine.prefix_cache import prefix_key
from decider.engine.request import Question


def _numbers(text):
    return [(text[s:e], v) for s, e, v in number_spans(text)]


def test_numbers_are_readings_not_names():
    assert _numbers("TT-1104 (K-101 discharge) reads 131.5 °C; trip at 4,850.0 rpm; 92% full") == [
        ("131.5", Decimal("131.5")), ("4,850.0", Decimal("4850.0")), ("92", Decimal(92))]
    assert _numbers("P-7B, FT-204, v2, the 3rd pump, HX-3") == []
    assert _numbers("06:14 P-101A tripped") == [("06:14", Decimal(6 * 60 + 14))]
    assert _numbers("between -5 and −3.5 °C") == [("-5", Decimal(-5)), ("−3.5", Decimal("-3.5"))]
    assert _numbers("twelve (12) months") == [("12", Decimal(12))]


def test_a_share_of_a_number_written_after_it_is_the_limit_it_means():
    assert _numbers("trips at 120% of rated (505 A); reads 606 A") == [
        ("120", Decimal(606)), ("505", Decimal(505)), ("606", Decimal(606))]
    assert _numbers("at least 110 percent of its 40 A rating") == [("110", Decimal(44)), ("40", Decimal(40))]
    # the base is elsewhere, or not a number: the share stays as written
    assert _numbers("80 percent of rated current. Rated: 287.0 A") == [("80", Decimal(80)), ("287.0", Decimal("287.0"))]
    assert _numbers("15% of the annual Charges") == [("15", Decimal(15))]
    assert dense_ranks([v for _, v in _numbers("trips at 120% of rated (505 A); reads 606 A")], cap=64) == [2, 1, 2]


def test_dense_ranks_share_equal_values_and_cap():
    assert dense_ranks([Decimal("128"), Decimal("131.5"), Decimal("128.0"), Decimal("2")], cap=255) == [2, 3, 2, 1]
    assert dense_ranks([Decimal(i) for i in range(5)], cap=3) == [1, 2, 3, 3, 3]


def test_every_piece_of_a_number_carries_its_rank_across_context_questions_and_options(shipped):
    tok = shipped.tokenizer
    enc = tok.encode("TT-1 reads 131.5 °C. The trip is set at 128 °C.",
                     [Question("q1", "Is TT-1 above 130 °C?", "boolean"),
                      Question("q2", "Which band?", "categorical", ("below 2", "above 140"))])
    assert len(enc.numbers) == len(enc.prefix_ids)
    by_rank = {}
    for i, r in zip(enc.prefix_ids, enc.numbers):
        if r:
            by_rank.setdefault(r, []).append(tok.tok.id_to_token(i))
    # the shipped model's reading notes write "131.5 °C (above 128 °C; above 130 °C)": ranked alike
    assert shipped.tokenizer.reading_notes
    assert by_rank == {1: ["2"], 2: ["128", "128"], 3: ["130", "130"], 4: ["131", ".", "5"], 5: ["140"]}
    # truncation cuts the ranks with the tokens
    cut = tok.encode("pressure 5.5 bar " * 400, [Question("q1", "Above 6 bar?", "boolean")], truncate=True)
    assert len(cut.numbers) == len(cut.prefix_ids)


def test_rank_features_are_ordered_and_zero_off_numbers():
    from decider.engine.model import rank_features

    f = rank_features(torch.tensor([[0, 1, 2, 5, 70]]), 64)[0]
    assert torch.equal(f[0], torch.zeros_like(f[0]))
    assert f[1, 0] == f[2, 0] == 1 and f[1, 1] < f[2, 1] < f[3, 1] and f[4, 1] == 1.0  # capped at 64


def test_spread_rank_codes_span_each_requests_own_numbers():
    """Spread: the smallest number of a row codes 0 and its largest 1, however few it has, so a
    request's dozen numbers are as far apart as 0..1 allows (by the cap they are 1/64 apart)."""
    from decider.engine.model import rank_features

    f = rank_features(torch.tensor([[0, 1, 2, 3, 0], [2, 1, 0, 0, 0], [1, 1, 0, 0, 0]]), 64, spread=True)
    assert f[0, :, 1].tolist() == [0.0, 0.0, 0.5, 1.0, 0.0] and f[1, :2, 1].tolist() == [1.0, 0.0]
    assert f[2, :2, 0].tolist() == [1.0, 1.0] and f[2, :2, 1].tolist() == [0.0, 0.0]  # one value: a number, r = 0
    assert torch.equal(f[0, 0], torch.zeros_like(f[0, 0])) and torch.equal(f[0, 4], f[0, 0])
    assert (f[0, 3, 1] - f[0, 1, 1]) / (rank_features(torch.tensor([[1, 3]]), 64)[0, 1, 1]) > 20


def test_rank_embeddings_start_at_zero_then_read_the_ranks(tiny, tmp_path):
    tok = tiny.tokenizer
    enc = tok.encode("TT-1 reads 131.5 °C. The trip is set at 128 °C.", [Question("q1", "Tripped?", "boolean")])
    b = Batch.collate([enc], tok.pad, tiny.model.cfg.n_answers)
    with torch.no_grad():
        before = b.prefix_forward(tiny.model).k[0].clone()
        tiny.model.add_number_ranks(16)
        assert torch.equal(b.prefix_forward(tiny.model).k[0], before)  # zeros: nothing changes
        tiny.model.number_proj.weight.normal_()
        after = b.prefix_forward(tiny.model).k[0]
        assert not torch.equal(after, before)
        swapped = tiny.model.prefix_forward(
            b.ids, b.valid, b.segments, torch.where(b.numbers > 0, 3 - b.numbers.clamp(max=2), 0))
        assert not torch.equal(swapped.k[0], after)  # the ranks, not only "a number here", matter
    save_checkpoint(tiny, tmp_path / "ck")
    loaded = load_checkpoint(tmp_path / "ck")
    assert loaded.model.cfg.number_ranks == 16
    assert torch.equal(loaded.model.number_proj.weight, tiny.model.number_proj.weight)
    with torch.no_grad():
        loaded.model.add_number_ranks(16, spread=True)  # another code: a fresh projection
        assert loaded.model.number_proj.weight.abs().sum() == 0
        assert torch.equal(b.prefix_forward(loaded.model).k[0], before)
    save_checkpoint(loaded, tmp_path / "spread")
    assert load_checkpoint(tmp_path / "spread").model.cfg.number_spread


def test_prefix_cache_key_tells_numbers_apart():
    assert prefix_key([1, 2], [0, 0], [0, 1]) != prefix_key([1, 2], [0, 0], [0, 2])


def test_the_comparison_term_reads_how_attended_numbers_compare_with_the_reader():
    from decider.engine.model import PRESETS, RelativeRanks

    cfg = PRESETS["tiny"].model_copy(update={"number_ranks": 64, "number_spread": True, "number_relative": 4})
    ranks = torch.tensor([[0, 1, 3, 0, 2, 0], [2, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0]])
    valid = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 0, 0]], dtype=torch.bool)
    rel = RelativeRanks.of(ranks, cfg)
    torch.manual_seed(0)
    q, k = torch.randn(3, 2, 6, 8), torch.randn(3, 2, 6, 8)
    got = rel.read(q, k, valid[:, None, None, :]).view(3, 6, 2, 8)
    # the definition, token by token: sum_j a_ij sin / cos (pi f (r_j - r_i)) over the numbers j
    a = torch.softmax((q @ k.transpose(-1, -2) / 8 ** 0.5).masked_fill(~valid[:, None, None, :], float("-inf")), -1)
    f = torch.arange(1, 5) * torch.pi
    for b in range(3):
        r = torch.where(ranks[b] > 0, (ranks[b] - 1) / max(int(ranks[b].max()) - 1, 1), 0.0)
        for i in range(6):
            for h in range(2):
                if ranks[b, i] == 0:
                    assert torch.equal(got[b, i, h], torch.zeros(8))  # not a number: no term
                    continue
                nums = ranks[b] > 0
                d = (r[nums] - r[i])[:, None] * f  # (numbers, 4)
                want_s = (a[b, h, i, nums][:, None] * torch.sin(d)).sum(0)
                want_c = (a[b, h, i, nums][:, None] * torch.cos(d)).sum(0)
                assert torch.allclose(got[b, i, h], torch.cat([want_s, want_c]), atol=1e-5)
    assert RelativeRanks.of(torch.zeros(2, 5, dtype=torch.long), cfg) is None  # no number: nothing to read


def test_the_comparison_term_starts_at_zero_and_keeps_the_two_passes_exact(tiny, tmp_path):
    tok = tiny.tokenizer
    enc = tok.encode("TT-1 reads 131.5 °C. The trip is set at 128 °C. TT-2 reads 7 °C.",
                     [Question("q1", "Is TT-1 above its trip?", "boolean"), Question("q2", "Tripped?", "boolean")])
    b = Batch.collate([enc], tok.pad, tiny.model.cfg.n_answers)
    model = tiny.model
    answers = torch.full_like(b.positions, model.mask_token)
    with torch.no_grad():
        model.add_number_ranks(16, spread=True)
        model.number_proj.weight.normal_()
        before = model.block_forward(answers, b.positions, b.slot_valid, b.prefix_forward(model), b.answer_vectors(model))
        model.add_number_relative(4)
        after = model.block_forward(answers, b.positions, b.slot_valid, b.prefix_forward(model), b.answer_vectors(model))
        assert torch.allclose(after, before, atol=1e-6)  # zeros: nothing changes
        assert model.layers[-1].rank_out is None  # its prefix outputs feed nothing
        for layer in model.layers[:-1]:
            layer.rank_out.weight.normal_()
        two_passes = model.block_forward(answers, b.positions, b.slot_valid, b.prefix_forward(model),
                                         b.answer_vectors(model))
        full = model.full_forward(b.ids, b.valid, b.segments, answers, b.positions, b.slot_valid,
                                  b.answer_vectors(model), b.numbers)
        assert torch.allclose(two_passes, full, atol=1e-5)
        assert not torch.allclose(two_passes, before, rtol=1e-3, atol=0)
        swapped = model.prefix_forward(b.ids, b.valid, b.segments, torch.where(b.numbers > 0, 4 - b.numbers, 0))
        plain = torch.where(b.numbers > 0, 1, 0)  # every number equal: no comparison to read
        assert not torch.equal(swapped.k[1], b.prefix_forward(model).k[1])
        assert not torch.equal(model.prefix_forward(b.ids, b.valid, b.segments, plain).k[1], swapped.k[1])
    save_checkpoint(tiny, tmp_path / "rel")
    loaded = load_checkpoint(tmp_path / "rel")
    assert loaded.model.cfg.number_relative == 4
    assert all(torch.equal(a.rank_out.weight, c.rank_out.weight) for a, c in zip(loaded.model.layers[:-1], model.layers))
    try:
        loaded.model.add_number_relative(4)
    except ValueError as e:
        assert "already" in str(e)
    else:
        raise AssertionError("adding the term twice must be refused")
