"""The option reader (engine/reader.py): a frozen sentence encoder whose scores of categorical
options the engine adds to the model's logits, at a weight fitted with the temperature."""

import json

import pytest
import torch

from decider.engine.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from decider.engine.core import build_engine
from decider.engine.reader import READER_FILE, ROW, pack, reader_from_pretrained, sentences
from decider.engine.request import Question, as_request
from decider.engine.training.calibration import fit_reader_weight
from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.training.evaluate import calibrate

CONTEXT = ("The supplier shall deliver within 30 days of the order. Either party may end the agreement on 90 days' "
           "notice; the discharge temperature reads 131.5 °C. Disputes go to the courts of Oslo!")
WHERE = Question("q1", "Which courts hear disputes?", "categorical", ("Oslo", "Bergen", "London"))
NOTICE = Question("q2", "Is notice needed?", "boolean")


@pytest.fixture()
def encoder(tiny_bert):
    """A tiny random BERT in Hugging Face's layout, as the pretrained encoder would come."""
    return tiny_bert(1)


@pytest.fixture()
def with_reader(tiny, encoder):
    """The tiny model warm-started from the encoder's word table (as decider-small was, and kept
    it), with the encoder as its reader."""
    tiny.reader = reader_from_pretrained(tiny.model.cfg, encoder.state_dict())
    with torch.no_grad():
        tiny.model.word_embeddings.weight.copy_(tiny.reader.word_embeddings.weight)
    return tiny


def test_sentences_cut_at_ends_not_at_decimal_points():
    assert sentences(CONTEXT) == ["The supplier shall deliver within 30 days of the order.",
                                  "Either party may end the agreement on 90 days' notice;",
                                  "the discharge temperature reads 131.5 °C.", "Disputes go to the courts of Oslo!"]
    assert sentences("  ") == []


def test_pack_keeps_strings_whole_with_their_own_positions():
    strings = [[1] * 100, [2] * 50, [3] * 28, [4] * ROW, [5] * 3]
    ids, positions, segment = pack(strings, 0, "cpu")
    assert ids.shape == (3, ROW)  # 100 + 28 share a row; 50 + 3 the next; 128 alone
    for i, s in enumerate(strings):
        where = segment == i
        assert where.sum() == len(s) and (ids[where] == s[0]).all()
        assert sorted(positions[where].tolist()) == list(range(len(s)))
        assert where.any(1).sum() == 1  # one row
    assert (ids[segment < 0] == 0).all()


def test_reader_is_the_encoders_mean_pooled_sentence_embedding(with_reader, encoder):
    tok = with_reader.tokenizer
    texts = sentences(CONTEXT) + ["Which courts hear disputes? Oslo"]
    strings = [[tok.cls, *e.ids, tok.sep] for e in tok.tok.encode_batch(texts, add_special_tokens=False)]
    ours = with_reader.reader.encode(*pack(strings, tok.pad, "cpu"))
    for s, e in zip(strings, ours):  # each string alone, no padding, through transformers
        with torch.no_grad():
            h = encoder(torch.tensor([s])).last_hidden_state[0]
        torch.testing.assert_close(e, torch.nn.functional.normalize(h.mean(0), dim=-1), atol=2e-5, rtol=1e-4)


def test_option_scores_are_the_best_matching_sentence(with_reader):
    tok, reader = with_reader.tokenizer, with_reader.reader
    scores = reader.option_scores(tok, CONTEXT, [NOTICE, WHERE])
    assert scores[0] == [] and len(scores[1]) == 3
    said = [[tok.cls, *e.ids, tok.sep] for e in tok.tok.encode_batch(sentences(CONTEXT), add_special_tokens=False)]
    asked = [[tok.cls, *e.ids, tok.sep] for e in tok.tok.encode_batch(
        [f"{WHERE.text} {o}" for o in WHERE.options], add_special_tokens=False)]
    e = reader.encode(*pack(said + asked, tok.pad, "cpu"))
    expect = (e[len(said):] @ e[:len(said)].T).max(1).values
    torch.testing.assert_close(torch.tensor(scores[1]), expect)
    assert reader.option_scores(tok, CONTEXT, [NOTICE]) == [[]]  # nothing to score: nothing runs


def test_saved_reader_shares_the_models_word_table_and_loads_back(with_reader, tmp_path):
    with_reader.reader_weight = 3.5
    save_checkpoint(with_reader, tmp_path)
    assert json.loads((tmp_path / "calibration.json").read_text())["option_reader"] == 3.5
    from safetensors import safe_open
    with safe_open(str(tmp_path / READER_FILE), "pt") as f:
        assert "word_embeddings.weight" not in list(f.keys())  # the model's own (the reader started from it)
    back = load_checkpoint(tmp_path)
    assert back.reader_weight == 3.5 and back.reader.word_embeddings is back.model.word_embeddings
    assert back.reader.option_scores(back.tokenizer, CONTEXT, [WHERE]) == \
        with_reader.reader.option_scores(with_reader.tokenizer, CONTEXT, [WHERE])


def test_a_reader_whose_words_differ_keeps_its_own(with_reader, tmp_path):
    with torch.no_grad():
        with_reader.reader.word_embeddings.weight[5] += 1
    save_checkpoint(with_reader, tmp_path)
    back = load_checkpoint(tmp_path)
    assert back.reader.word_embeddings is not back.model.word_embeddings
    torch.testing.assert_close(back.reader.word_embeddings.weight, with_reader.reader.word_embeddings.weight)


def test_bad_reader_files_and_weights_are_refused(with_reader, tmp_path):
    save_checkpoint(with_reader, tmp_path)
    cal = tmp_path / "calibration.json"
    cal.write_text(json.dumps({"temperature": 1.0, "option_reader": -2}))
    with pytest.raises(CheckpointError, match="calibration.json: field 'option_reader'"):
        load_checkpoint(tmp_path)
    cal.write_text(json.dumps({"temperature": 1.0}))
    (tmp_path / READER_FILE).write_bytes(b"not safetensors")
    with pytest.raises(CheckpointError, match=f"{READER_FILE}: cannot read safetensors"):
        load_checkpoint(tmp_path)


def test_engine_adds_the_weighted_scores_to_categorical_logits(with_reader):
    request = as_request(CONTEXT, [NOTICE, WHERE], threshold=0.0)  # both settled at the first pass, from masks
    request.options.return_distributions = True
    scores = with_reader.reader.option_scores(with_reader.tokenizer, CONTEXT, [WHERE])[0]
    plain = build_engine(with_reader, precision="fp32", runtime="torch").decide([request])[0]  # weight 0: no reader
    with_reader.reader_weight = 50.0
    core = build_engine(with_reader, precision="fp32", runtime="torch")
    (read,) = core.decide([request])
    off = build_engine(with_reader, precision="fp32", runtime="torch", option_reader=False).decide([request])[0]
    assert off.answers == plain.answers
    # the categorical slot's logits moved by 50 * score (a softmax over its options, at the temperature)
    before = torch.tensor(plain.answers[1].distribution).log()
    after = torch.tensor(read.answers[1].distribution).log()
    moved = (after - before) * core.temperature - 50.0 * torch.tensor(scores)
    torch.testing.assert_close(moved - moved[0], torch.zeros(3), atol=1e-3, rtol=0)
    assert read.answers[0].distribution == pytest.approx(plain.answers[0].distribution)  # yes/no: untouched
    again, _ = core.decide([request, as_request("The pump is running.", [WHERE])])
    assert again.answers == read.answers  # from the reader's cache, in a batch: the same
    assert len(core.reader_scores) == 2
    core.warm_up()  # start-up's requests leave the reader's cache as it was
    assert set(core.reader_scores) == {(CONTEXT, (NOTICE.text, ()), (WHERE.text, WHERE.options)),
                                       ("The pump is running.", (WHERE.text, WHERE.options))}


def test_bf16_engine_reads_with_the_models_bf16_word_table(with_reader, tmp_path):
    with_reader.reader_weight = 50.0
    save_checkpoint(with_reader, tmp_path)  # loaded, the two share one table
    core = build_engine(load_checkpoint(tmp_path), precision="bf16", runtime="torch")
    assert core.reader.word_embeddings is core.model.word_embeddings
    assert core.reader.embed_norm.weight.dtype == torch.bfloat16
    (result,) = core.decide([as_request(CONTEXT, [WHERE])])
    scores = with_reader.reader.option_scores(with_reader.tokenizer, CONTEXT, [WHERE])[0]
    assert result.answers[0].answer == WHERE.options[max(range(3), key=scores.__getitem__)]


def test_fit_reader_weight_follows_what_the_scores_tell():
    torch.manual_seed(0)
    n = 400
    labels = torch.randint(0, 3, (n,)).tolist()
    flat = [[1 / 3] * 3 for _ in range(n)]  # a model that knows nothing
    telling = [[0.6 + 0.1 * (k == y) + 0.05 * torch.rand(()).item() for k in range(3)] for y in labels]
    assert fit_reader_weight(flat, telling, labels) > 0
    sure = [[0.98 if k == y else 0.01 for k in range(3)] for y in labels]  # a model that knows everything
    noise = [torch.rand(3).tolist() for _ in range(n)]
    assert fit_reader_weight(sure, noise, labels) < 5  # still right at w = 0 and small w
    with pytest.raises(ValueError, match="at least one categorical item"):
        fit_reader_weight([], [], [])


def test_calibrate_fits_the_weight_then_the_temperature(with_reader):
    sets = make_sets(CorpusSpec(split="validation"), 12)
    t = calibrate(with_reader, sets, batch_size=8)
    assert 0.05 <= t <= 20 and 0 <= with_reader.reader_weight <= 50


@pytest.mark.parametrize("on", [True, False])
def test_the_server_reads_options_with_the_reader_as_its_setting_says(with_reader, tmp_path, on):
    from decider_client import DeciderClient, build_request, pb
    from server_util import ServerThread

    with_reader.reader_weight = 50.0
    save_checkpoint(with_reader, tmp_path)
    ckpt = load_checkpoint(tmp_path)
    request = as_request(CONTEXT, [NOTICE, WHERE], threshold=0.0)
    request.options.return_distributions = True
    local = {flag: build_engine(ckpt, option_reader=flag).decide([request])[0] for flag in (True, False)}
    questions = [pb.Question(id=NOTICE.id, text=NOTICE.text, type=pb.Question.BOOLEAN),
                 pb.Question(id=WHERE.id, text=WHERE.text, type=pb.Question.CATEGORICAL, options=WHERE.options)]
    # a random tiny model cannot pass the self-test on stated facts
    with ServerThread(checkpoint=str(tmp_path), self_test=False, option_reader=on) as s, \
            DeciderClient(s.target, timeout=30) as c:
        response = c.decide_request(build_request(CONTEXT, questions, threshold=0.0))
    served = list(response.answers[1].distribution)
    assert served == pytest.approx(local[on].answers[1].distribution, abs=1e-5)
    assert served != pytest.approx(local[not on].answers[1].distribution, abs=1e-3)
