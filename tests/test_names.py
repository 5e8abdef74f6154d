"""Name links: which words are names, the sentences that share them, the tokens that carry
them, and the model's link bias (zeros when added, exact across the two passes)."""

import re

import pytest
import torch
from decider.engine.checkpoint import load_checkpoint, save_checkpoint
from decider.engine.decode import Batch
from decider.engine.names import names_of, sentence_spans, token_links
from decider.engine.prefix_cache import prefix_key
from decider.engine.request import Question


def test_names_are_tags_and_capitalised_words_not_sentence_openings():
    text = ("TT-421 reads 130.2 °C. The 3rd pump P-7B feeds tank HX-3; Northwind Ltd (the Supplier) pays.\n"
            "Discharge pressure is high. If a pump stops, Line 4 goes to MANUAL.")
    assert names_of([text]) == {"tt-421", "p-7b", "hx-3", "ltd", "supplier", "line", "manual"}
    assert "bob" not in names_of(["Bob is big."])  # a sentence's first word may be any word
    assert "bob" in names_of(["Bob is big.", "Is Bob red?"])  # ... unless it is a name elsewhere


def test_sentences_end_at_stops_and_line_breaks_not_at_decimals():
    text = "TT-1 reads 131.5 °C. Trip at 128; alarm at 125!\nClause 9.2 applies"
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "TT-1 reads 131.5 °C.", "Trip at 128;", "alarm at 125!", "Clause 9.2 applies"]


def test_tokens_carry_the_names_of_their_sentence_in_every_text_of_a_request():
    texts = ["TT-1 reads 131 °C. TT-2 reads 99 °C. The trip for TT-1 is 128 °C. Nothing here.", "Is TT-1 tripped?"]
    offsets = [[(m, m + 1) for m in range(len(t))] for t in texts]  # one token per character
    links = token_links(texts, offsets)
    context, question = links
    first, second, third, fourth = (context[texts[0].index(s)] for s in ("TT-1 r", "TT-2", "The trip", "Nothing"))
    assert first == third == question[texts[1].index("TT-1")] != 0
    assert second != 0 and second & first == 0 and fourth == 0


def test_the_tokenizer_gives_every_prefix_token_its_links(tiny):
    tok = tiny.tokenizer
    enc = tok.encode("TT-1 reads 131 °C. TT-2 reads 99 °C.", [Question("q", "Is TT-2 hot?", "boolean"),
                                                             Question("m", "Mode?", "categorical", ["AUTO", "MANUAL"])])
    assert len(enc.links) == len(enc.prefix_ids)
    words = [tok.tok.id_to_token(i) for i in enc.prefix_ids]
    by_word = {}
    for w, link in zip(words, enc.links):
        by_word.setdefault(w, set()).add(link)
    assert by_word["[CLS]"] == by_word["[SEP]"] == {0}
    assert len(by_word["reads"]) == 2 and 0 not in by_word["reads"]  # two sentences, two tags
    q2 = enc.links[words.index("hot")]
    assert q2 in by_word["reads"]
    assert prefix_key([1, 2], [0, 0], [0, 0], [1, 2]) != prefix_key([1, 2], [0, 0], [0, 0], [1, 1])


def test_the_linked_comparison_reads_only_the_numbers_of_sentences_that_share_a_name():
    """A number compares itself with the other numbers of its names' sentences, averaged;
    numbers about other tags, and tokens that are not numbers, leave it alone."""
    from decider.engine.model import PRESETS, linked_comparison

    cfg = PRESETS["tiny"].model_copy(update={"number_ranks": 64, "number_spread": True, "name_links": 2})
    numbers = torch.tensor([[1, 3, 2, 4, 0]])  # codes 0, 2/3, 1/3, 1
    links = torch.tensor([[1, 1, 2, 2, 1]])     # tokens 0, 1 (and a word) about tag 1; 2, 3 about tag 2
    f = linked_comparison(numbers, links, cfg)[0]  # (L, K)
    k = torch.tensor([1.0, 2.0]) * torch.pi / 2
    d = torch.tensor(2 / 3)
    assert torch.allclose(f[0], torch.sin(d * k), atol=1e-6)   # its partner is larger
    assert torch.allclose(f[1], torch.sin(-d * k), atol=1e-6)  # ... smaller: the opposite sign
    assert torch.allclose(f[2], torch.sin((1 - 1 / 3) * k), atol=1e-6)  # its partner, not tag 1's numbers
    assert torch.equal(f[4], torch.zeros(2))  # not a number
    two = linked_comparison(torch.tensor([[2, 1, 0]]), torch.tensor([[1, 1, 1]]), cfg)[0]  # the largest, the smallest
    assert two[0, 0] == -1 and two[1, 0] == 1  # half frequencies: the ends of 0..1 still tell apart
    same = linked_comparison(torch.tensor([[2, 2, 1, 1]]), torch.tensor([[1, 1, 2, 2]]), cfg)[0]
    assert torch.allclose(same, torch.zeros_like(same), atol=1e-6)  # equal to its partner: nothing to say
    alone = linked_comparison(numbers, torch.tensor([[1, 2, 4, 8, 0]]), cfg)[0]
    assert torch.equal(alone, torch.zeros_like(alone))  # no number shares a name with another


def test_the_linked_comparison_starts_at_zero_keeps_the_two_passes_exact_and_saves(tiny, tmp_path):
    tok = tiny.tokenizer
    enc = tok.encode("TT-1 reads 131.5 °C. TT-2 reads 7 °C. The trip for TT-1 is set at 128 °C.",
                     [Question("q1", "Is TT-1 above its trip?", "boolean"), Question("q2", "Tripped?", "boolean")])
    b = Batch.collate([enc], tok.pad, tiny.model.cfg.n_answers)
    model = tiny.model
    answers = torch.full_like(b.positions, model.mask_token)
    with torch.no_grad():
        model.add_number_ranks(16, spread=True)
        before = b.prefix_forward(model).k[0].clone()
        model.add_name_links(4)
        assert torch.equal(b.prefix_forward(model).k[0], before)  # zeros: nothing changes
        model.link_proj.weight.normal_()
        assert model.layers[-1].link_bias is None  # its prefix outputs feed nothing
        for layer in model.layers[:-1]:
            layer.link_bias.normal_(std=3.0)
        two_passes = model.block_forward(answers, b.positions, b.slot_valid, b.prefix_forward(model),
                                         b.answer_vectors(model))
        full = model.full_forward(b.ids, b.valid, b.segments, answers, b.positions, b.slot_valid,
                                  b.answer_vectors(model), b.numbers, b.links)
        assert torch.allclose(two_passes, full, atol=1e-5)
        assert not torch.equal(b.prefix_forward(model).k[0], before)
        unlinked = model.prefix_forward(b.ids, b.valid, b.segments, b.numbers, torch.zeros_like(b.links))
        assert torch.equal(unlinked.k[0], before)  # the links, not the projection alone
        assert not torch.allclose(unlinked.k[1], b.prefix_forward(model).k[1], atol=1e-4)
    save_checkpoint(tiny, tmp_path / "ck")
    loaded = load_checkpoint(tmp_path / "ck")
    assert loaded.model.cfg.name_links == 4
    assert torch.equal(loaded.model.link_proj.weight, model.link_proj.weight)
    assert torch.equal(loaded.model.layers[0].link_bias, model.layers[0].link_bias)


def test_a_questions_tokens_read_only_the_sentences_of_its_names_when_the_bias_is_large():
    """Bias 30: what the sentences of other tags say no longer reaches a question token that
    names TT-1, and its attention row is what a softmax over the linked keys alone gives."""
    from decider.engine.model import PRESETS, BlockDiffusionModel, QuestionLinks

    model = BlockDiffusionModel(PRESETS["tiny"].model_copy(update={"number_ranks": 16, "name_links": 2}))
    model.init_weights()
    links = torch.tensor([[1, 1, 2, 2, 1, 1, 0, 1, 1]])     # tag 1, tag 2, tag 1, a plain token, a question
    segments = torch.tensor([[0, 0, 0, 0, 0, 0, 0, 1, 1]])  # ... whose two tokens name tag 1
    questions = QuestionLinks.of(links, segments)
    assert questions.rows.tolist() == [[7, 8]] and questions.linked[0, 0, 0].tolist() == [
        True, True, False, False, True, True, False, True, True]
    assert QuestionLinks.of(links, torch.zeros_like(segments)) is None  # no question, nothing to recompute
    layer, mask = model.layers[0], torch.ones(1, 1, 1, 9, dtype=torch.bool)
    x = torch.randn(1, 9, PRESETS["tiny"].dim)
    other = x.clone()
    other[0, 2:4] = torch.randn(2, PRESETS["tiny"].dim)  # tag 2's sentence says something else
    with torch.no_grad():
        layer.link_bias.fill_(30.0)
        out, _ = layer(x, mask, None, questions)
        out_other, _ = layer(other, mask, None, questions)
        plain, _ = layer(x, mask)
        plain_other, _ = layer(other, mask)
    assert torch.allclose(out[0, 7:], out_other[0, 7:], atol=1e-5)
    assert not torch.allclose(plain[0, 7], plain_other[0, 7], atol=1e-4)  # without links it reads them all
    assert torch.equal(out[0, :7], plain[0, :7])  # other rows are untouched


def test_padding_rows_of_question_links_pass_no_gradient():
    """Rows padded to the batch's longest list of named question tokens must not write into a
    real position: each copy would send that position's gradient back once more (the first
    version sent the [CLS] token's as many times as there were padding rows, and a fine-tune
    fell to chance)."""
    from decider.engine.model import QuestionLinks

    links = torch.tensor([[1, 1, 2, 1, 1, 0, 0], [1, 2, 2, 1, 1, 1, 1]])
    segments = torch.tensor([[0, 0, 0, 1, 1, 0, 0], [0, 0, 0, 1, 1, 1, 1]])
    questions = QuestionLinks.of(links, segments)
    assert questions.row_valid.tolist() == [[True, True, False, False], [True, True, True, True]]
    q, k, v, a = (torch.randn(2, 2, 7, 4, requires_grad=True) for _ in range(4))
    out, compared = questions.attend(a, q, k, v, torch.ones(2, 1, 1, 7, dtype=torch.bool), torch.zeros(2))
    assert compared is None  # no question comparison asked for
    out.sum().backward()
    assert torch.equal(a.grad[0, :, [0, 1, 2, 5, 6]], torch.ones(2, 5, 4))  # untouched rows: their own gradient
    assert torch.equal(a.grad[0, :, [3, 4]], torch.zeros(2, 2, 4))         # recomputed rows: none through `a`
    plain = torch.softmax(q @ k.transpose(-1, -2) / 2, -1) @ v
    assert torch.allclose(out[0, :, 3], plain[0, :, 3], atol=1e-6)  # bias zero: the same attention


@pytest.mark.parametrize("compare,number_links", [(0, False), (3, False), (0, True)])
def test_dense_rows_give_the_same_prefix_as_the_selected_rows(tiny, compare, number_links):
    """prefix_forward(dense_rows=True) recomputes every row's attention (what an exporter can
    take) where the usual pass recomputes only the number tokens' and the (named) question
    tokens': the same K/V, in a padded batch whose rows have different counts of both, with and
    without the question comparison and the number tokens' link bias."""
    tok, model = tiny.tokenizer, tiny.model
    requests = [("TT-1 reads 131.5 °C. TT-2 reads 7 °C. The trip for TT-1 is set at 128 °C.",
                 [Question("q1", "Is TT-1 above its trip?", "boolean"), Question("q2", "Is TT-2 tripped?", "boolean")]),
                ("The pump runs.", [Question("q1", "Tripped?", "boolean")])]
    b = Batch.collate([tok.encode(c, qs) for c, qs in requests], tok.pad, model.cfg.n_answers)
    with torch.no_grad():
        model.add_number_ranks(16, spread=True)
        model.add_number_relative(4)
        model.add_name_links(4)
        if compare:
            model.add_question_compare(compare)
        if number_links:
            model.add_number_links()
        for name, p in model.named_parameters():
            if name.startswith("link_proj.") or ".rank_out." in name or name.endswith("link_bias") \
                    or ".compare_out." in name:
                p.normal_(std=0.5)
        sparse = model.prefix_forward(b.ids, b.valid, b.segments, b.numbers, b.links)
        dense = model.prefix_forward(b.ids, b.valid, b.segments, b.numbers, b.links, dense_rows=True)
        unlinked = model.prefix_forward(b.ids, b.valid, b.segments, torch.zeros_like(b.numbers),
                                        torch.zeros_like(b.links), dense_rows=True)
    keep = b.valid[:, None, :, None]
    for x, y, z in zip((*sparse.k, *sparse.v), (*dense.k, *dense.v), (*unlinked.k, *unlinked.v)):
        torch.testing.assert_close(x * keep, y * keep, atol=1e-5, rtol=1e-5)
    assert not torch.allclose(sparse.k[-1] * keep, unlinked.k[-1] * keep, atol=1e-3)  # both parts are at work


def test_the_question_comparison_says_which_of_two_heads_numbers_is_larger():
    """A question token whose head 0 attends to a reading and head 1 to its trip reads
    sin(pi k (r_trip - r_reading) / 2): the sign says which is larger, whatever else the
    context holds; heads that attend to no number read zero, and so do other tokens."""
    from decider.engine.model import PRESETS, QuestionLinks

    cfg = PRESETS["tiny"].model_copy(update={"number_ranks": 16, "number_spread": True, "name_links": 2,
                                             "question_compare": 2})
    numbers = torch.tensor([[3, 1, 2, 0, 0, 0]])  # codes 1, 0, 1/2; then a word and two question tokens
    links = torch.tensor([[1, 1, 2, 0, 1, 0]])
    segments = torch.tensor([[0, 0, 0, 0, 1, 1]])
    questions = QuestionLinks.of(links, segments, numbers=numbers, cfg=cfg)
    assert questions.rows.tolist() == [[4, 5]]  # every question token, named or not
    probs = torch.zeros(1, 4, 2, 6)  # (B, H, rows, L)
    probs[0, 0, :, 0] = 0.1    # head 0: the reading (code 1), a small share ...
    probs[0, 0, :, 3] = 0.9    # ... the rest on a word
    probs[0, 1, :, 1] = 1.0    # head 1: the trip (code 0)
    probs[0, 2:, :, 3] = 1.0   # heads 2, 3: no number
    f = questions.compare(probs)  # (B, L, 6 pairs * 2)
    assert f.shape == (1, 6, 12)
    k = torch.tensor([1.0, 2.0]) * torch.pi / 2
    torch.testing.assert_close(f[0, 4, :2], torch.sin((0 - 1) * k), atol=2e-2, rtol=0)  # head 1's is smaller
    assert f[0, 4, 0] < -0.95
    assert torch.equal(f[0, :4], torch.zeros(4, 12))  # not question tokens
    assert torch.equal(f[0, 4, 2:], torch.zeros(10))  # pairs with a head that reads no number
    added = QuestionLinks.of(links, segments, numbers=numbers, cfg=cfg.model_copy(update={"question_compare": 0}))
    assert added.rows.tolist() == [[4]] and added.codes is None  # without it: the named token alone


def test_a_number_token_with_its_link_bias_compares_with_its_own_instruments_numbers():
    """With number_links, a number row's attention leans (Layer.number_link_bias) towards the
    sentences that share its names: with a large bias, what the comparison term reads is the
    comparison with those numbers alone, however many other instruments' numbers the context
    holds; rows whose sentences name nothing read as before, and so does every row at bias 0."""
    from decider.engine.model import PRESETS, RelativeRanks

    cfg = PRESETS["tiny"].model_copy(update={"number_ranks": 16, "number_spread": True, "number_relative": 2,
                                             "name_links": 2, "number_links": True})
    numbers = torch.tensor([[1, 0, 3, 2, 0, 4]])  # codes 0, 2/3, 1/3, 1 at positions 0, 2, 3, 5
    links = torch.tensor([[1, 1, 2, 2, 0, 1]])    # positions 0, 1, 5 name TT-1; 2, 3 name TT-2; 4 nothing
    rel = RelativeRanks.of(numbers, cfg, links=links)
    assert rel.rows.tolist() == [[0, 2, 3, 5]]
    assert rel.linked[0, 0].tolist() == [[True, True, False, False, False, True],
                                         [False, False, True, True, False, False],
                                         [False, False, True, True, False, False],
                                         [True, True, False, False, False, True]]
    q, k = torch.zeros(1, 4, 6, 8), torch.zeros(1, 4, 6, 8)  # uniform attention without the bias
    mask = torch.ones(1, 1, 1, 6, dtype=torch.bool)
    plain, leaning = rel.read(q, k, mask), rel.read(q, k, mask, torch.full((4,), 50.0))
    torch.testing.assert_close(rel.read(q, k, mask, torch.zeros(4)), plain)
    alone = RelativeRanks.of(torch.tensor([[1, 0, 4]]), cfg)  # TT-1's sentences (positions 0, 1, 5) alone
    only = alone.read(q[..., :3, :], k[..., :3, :], mask[..., :3])
    # position 5 (TT-1's code 1) reads its one other TT-1 number (code 0) and the word beside it
    torch.testing.assert_close(leaning[0, 5], only[0, 2], atol=1e-5, rtol=0)
    assert not torch.allclose(leaning[0, 5], plain[0, 5], atol=1e-2)


def test_with_nouns_a_word_after_the_in_two_sentences_is_a_name():
    """noun_names: "the dog" in a fact and in a question links them, as "TT-101" or "Bob" would;
    a word that follows "the" once, or a word such as "same", names nothing."""
    texts = ["The bear chases the dog. The dog is red. The cat eats the bear. It is the same as before. "
             "The same holds for the mouse.", "Is the dog red?"]
    assert names_of(texts) == set()
    assert names_of(texts, nouns=True) == {"bear", "dog"}  # the cat and the mouse once each; "same" never
    offsets = [[(m.start(), m.end()) for m in re.finditer(r"\S+", t)] for t in texts]
    plain, linked = token_links(texts, offsets), token_links(texts, offsets, nouns=True)
    assert all(mask == 0 for row in plain for mask in row)
    dog = linked[1][2]  # "dog" in the question
    assert dog and linked[0][5] == dog and linked[0][0] & dog  # "The dog is red." and "... chases the dog."
    assert linked[0][9] & dog == 0  # "The cat eats the bear." names the bear, not the dog


def test_a_tokenizer_and_a_trained_model_carry_noun_names(tiny, tmp_path):
    """The model config's noun_names reaches the tokenizer of a loaded checkpoint, needs
    name_links, and training turns it on for a model without it."""
    from decider.engine.model import ModelConfig
    from decider.engine.training.train import Stage, TrainConfig, train

    with pytest.raises(ValueError, match="needs name_links"):
        ModelConfig.model_validate({**tiny.model.cfg.model_dump(), "noun_names": True})
    init = save_checkpoint(tiny, tmp_path / "init")
    assert not load_checkpoint(init).tokenizer.noun_names
    cfg = TrainConfig(out=tmp_path / "run", init=str(init), batch_size=4, warmup_steps=1, save_every=2,
                      number_ranks=16, name_links=4, noun_names=True,
                      stages=[Stage(max_links=1, examples=8, max_questions=3, mix={"quantified": 1.0})])
    logs = []
    train(cfg, progress=False, log=logs.append)
    assert any('follow "the"' in m for m in logs)
    got = load_checkpoint(tmp_path / "run")
    assert got.model.cfg.noun_names and got.tokenizer.noun_names
    enc = got.tokenizer.encode("The dog is red. The cat is big.", [Question("q1", "Is the dog red?", "boolean")])
    assert any(enc.links)
