import torch

from decider.engine.decode import Batch


def _batch(ckpt, requests):
    return Batch.collate([ckpt.tokenizer.encode(c, q) for c, q in requests], ckpt.tokenizer.pad,
                         ckpt.model.cfg.n_answers)


def _requests():
    from decider.engine.training.corpus import CorpusSpec, make_sets
    sets = make_sets(CorpusSpec(split="test"), 3)
    return [(s.context, s.questions) for s in sets]


def _answers(ckpt, b, seed=0):
    g = torch.Generator().manual_seed(seed)
    B, S = b.positions.shape
    a = torch.randint(0, 2, (B, S), generator=g)
    a[:, ::2] = ckpt.model.mask_token
    return a


def test_prefix_kv_reuse_equals_full_forward(tiny):
    b = _batch(tiny, _requests())
    answers = _answers(tiny, b)
    with torch.no_grad():
        two_pass = tiny.model.block_forward(answers, b.positions, b.slot_valid, b.prefix_forward(tiny.model), b.answer_vectors(tiny.model))
        full = tiny.model.full_forward(b.ids, b.valid, b.segments, answers, b.positions, b.slot_valid, b.answer_vectors(tiny.model))
    m = b.slot_valid
    torch.testing.assert_close(two_pass[m], full[m], rtol=1e-4, atol=1e-5)


def test_prefix_never_sees_the_block(tiny):
    b = _batch(tiny, _requests())
    with torch.no_grad():
        kv = b.prefix_forward(tiny.model)
        # through the full-forward path too: prefix hidden states cannot depend on answers
        full_a = tiny.model.full_forward(b.ids, b.valid, b.segments, _answers(tiny, b, 1), b.positions, b.slot_valid, b.answer_vectors(tiny.model))
        full_b = tiny.model.full_forward(b.ids, b.valid, b.segments, _answers(tiny, b, 2), b.positions, b.slot_valid, b.answer_vectors(tiny.model))
    assert len(kv.k) == tiny.model.cfg.n_layers
    assert not torch.allclose(full_a, full_b)  # the block does read the slots


def test_block_sees_prefix_and_other_slots(tiny):
    reqs = _requests()[:1]
    b = _batch(tiny, reqs)
    answers = torch.full_like(b.positions, tiny.model.mask_token)
    with torch.no_grad():
        kv = b.prefix_forward(tiny.model)
        base = tiny.model.block_forward(answers, b.positions, b.slot_valid, kv, b.answer_vectors(tiny.model))
        revealed = answers.clone()
        revealed[0, 0] = 0
        other = tiny.model.block_forward(revealed, b.positions, b.slot_valid, kv, b.answer_vectors(tiny.model))
        ids = b.ids.clone()
        ids[0, 3] = 2000
        changed_prefix = tiny.model.block_forward(answers, b.positions, b.slot_valid, tiny.model.prefix_forward(ids, b.valid, b.segments), b.answer_vectors(tiny.model))
    assert not torch.allclose(base[0, 1], other[0, 1])           # slot 1 sees slot 0
    assert not torch.allclose(base[0, 0], changed_prefix[0, 0])  # slots see the context


def test_padding_does_not_change_a_request(tiny):
    reqs = _requests()
    alone = _batch(tiny, reqs[:1])
    batched = _batch(tiny, reqs)
    with torch.no_grad():
        la = tiny.model.block_forward(torch.full_like(alone.positions, tiny.model.mask_token), alone.positions,
                                      alone.slot_valid, alone.prefix_forward(tiny.model), alone.answer_vectors(tiny.model))
        lb = tiny.model.block_forward(torch.full_like(batched.positions, tiny.model.mask_token), batched.positions,
                                      batched.slot_valid, batched.prefix_forward(tiny.model),
                                      batched.answer_vectors(tiny.model))
    n = alone.slot_valid.sum()
    torch.testing.assert_close(la[0, :n], lb[0, :n], rtol=1e-4, atol=1e-5)


def test_slot_position_is_right_after_its_question(tiny):
    from decider.engine.request import Question
    enc = tiny.tokenizer.encode("Pump 3 is running.", [Question("a", "Is pump 3 running?", "boolean"),
                                                      Question("b", "Mode?", "categorical", ("x", "y"))])
    ids = enc.prefix_ids
    # slot 0 sits where [Q2] is, slot 1 where the final [SEP] is
    assert ids[enc.slot_positions[0]] == tiny.tokenizer.markers[1]
    assert ids[enc.slot_positions[1]] == tiny.tokenizer.sep
    assert enc.allowed == [[0, 1], [2, 3]]
