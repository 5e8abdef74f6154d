"""Options read in context (ModelConfig.option_context): an option's vector also carries the
prefix pass's states of the option's own words."""

import pytest
import torch
from decider.engine.checkpoint import load_checkpoint, random_init, save_checkpoint
from decider.engine.core import build_engine
from decider.engine.decode import Batch
from decider.engine.model import ModelConfig
from decider.engine.request import Question, as_request
from decider.engine.training.train import Stage, TrainConfig, batch_loss, batches

CONTEXT = "Clause 9: either party may end this agreement on 60 days' written notice. Fees are due in 30 days."
QUESTIONS = [
    Question("q1", "How much notice must a party give to end the agreement?", "categorical",
             ("30 days", "60 days", "no notice")),
    Question("q2", "Can either party end the agreement?", "boolean"),
    Question("q3", "When are fees due?", "categorical", ("within 30 days", "within 60 days")),
]


def _model(tokenizer_path, seed=0, proj_std=0.5):
    """A tiny random model that reads options in context, its projection made non-zero."""
    torch.manual_seed(seed)
    ckpt = random_init(ModelConfig(dim=32, n_layers=2, n_heads=4, ffn_dim=64), tokenizer_path)
    ckpt.model.add_option_context()
    if proj_std:
        torch.nn.init.normal_(ckpt.model.option_proj.weight, std=proj_std)
    ckpt.model.eval()
    return ckpt


def _batch(ckpt, requests):
    return Batch.collate([ckpt.tokenizer.encode(c, q) for c, q in requests], ckpt.tokenizer.pad,
                         ckpt.model.cfg.n_answers)


def test_option_starts_point_at_each_options_words(tiny):
    enc = tiny.tokenizer.encode(CONTEXT, QUESTIONS)
    assert len(enc.option_starts) == len(QUESTIONS)
    for starts, options in zip(enc.option_starts, enc.option_ids):
        assert len(starts) == len(options)
        for start, words in zip(starts, options):
            assert enc.prefix_ids[start:start + len(words)] == words
            assert enc.prefix_ids[start - 1] == tiny.tokenizer.tok.token_to_id(")")  # "(a) 30 days"


def test_a_model_given_option_context_starts_as_it_was(tiny):
    b = _batch(tiny, [(CONTEXT, QUESTIONS)])
    answers = torch.full(b.positions.shape, tiny.model.mask_token)
    with torch.no_grad():
        before = tiny.model.block_forward(answers, b.positions, b.slot_valid, b.prefix_forward(tiny.model),
                                          b.answer_vectors(tiny.model))
        tiny.model.add_option_context()
        prefix = b.prefix_forward(tiny.model)
        after = tiny.model.block_forward(answers, b.positions, b.slot_valid, prefix, b.answer_vectors(tiny.model, prefix))
    assert torch.equal(before, after)
    with pytest.raises(ValueError, match="already"):
        tiny.model.add_option_context()


def test_option_vectors_read_the_context(tokenizer_path):
    ckpt = _model(tokenizer_path)
    other = CONTEXT.replace("60 days'", "30 days'")
    with torch.no_grad():
        vectors = []
        for context in (CONTEXT, other):
            b = _batch(ckpt, [(context, QUESTIONS)])
            vectors.append(b.answer_vectors(ckpt.model, b.prefix_forward(ckpt.model)))
        b = _batch(ckpt, [(CONTEXT, QUESTIONS)])
        with pytest.raises(ValueError, match="prefix pass"):
            b.answer_vectors(ckpt.model)
    # the same option words, another context: other vectors; yes and no stay word embeddings
    assert not torch.allclose(vectors[0][0, 0, 2:5], vectors[1][0, 0, 2:5])
    assert torch.equal(vectors[0][..., :2, :], vectors[1][..., :2, :])


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_engine_answers_alike_alone_batched_and_from_the_prefix_cache(tokenizer_path, precision):
    """The states ride with the prefix K/V: a request decides the same alone, among others of other
    lengths, and again from the prefix cache (the bf16 CPU engine: to the bit)."""
    ckpt = _model(tokenizer_path)
    engine = build_engine(ckpt, precision=precision, runtime="torch", max_running=8, block_pass="per_request")
    request = as_request(CONTEXT, QUESTIONS)
    others = [as_request("Pump P-7 trips above 44 A. It reads 46 A. " * k, QUESTIONS) for k in (1, 3, 5)]
    alone = build_engine(ckpt, precision=precision, runtime="torch", block_pass="per_request").decide([request])[0]
    batched = engine.decide([*others, request])[-1]
    cached = engine.decide([request])[0]
    assert cached.prefix_cached
    bound = 0.0 if precision == "bf16" else 1e-5
    for r in (batched, cached):
        assert [a.answer for a in r.answers] == [a.answer for a in alone.answers]
        assert [a.confidence for a in r.answers] == pytest.approx([a.confidence for a in alone.answers], abs=bound)


def test_onnxruntime_reads_options_in_context_as_torch_does(tokenizer_path):
    ckpt = _model(tokenizer_path)
    torch_engine = build_engine(ckpt, precision="fp32", runtime="torch")
    onnx_engine = build_engine(ckpt, precision="fp32", runtime="onnxruntime")
    requests = [as_request(CONTEXT, QUESTIONS), as_request("Fees are due in 60 days.", QUESTIONS[2:])]
    for a, b in zip(torch_engine.decide(requests), onnx_engine.decide(requests)):
        assert [x.answer for x in a.answers] == [x.answer for x in b.answers]
        assert [x.confidence for x in a.answers] == pytest.approx([x.confidence for x in b.answers], abs=1e-4)


def test_checkpoint_keeps_option_context(tokenizer_path, tmp_path):
    ckpt = _model(tokenizer_path)
    save_checkpoint(ckpt, tmp_path / "ckpt")
    loaded = load_checkpoint(tmp_path / "ckpt")
    assert loaded.model.cfg.option_context
    assert torch.equal(loaded.model.option_proj.weight, ckpt.model.option_proj.weight)


def test_training_reaches_the_option_projection(tokenizer_path):
    """The loss's gradient reaches the projection (it starts at zeros, so through the slots' outputs)
    and the prefix layers through the option states."""
    ckpt = _model(tokenizer_path, proj_std=0.0)
    cfg = TrainConfig(batch_size=8, seed=3, stages=[Stage(max_links=1, examples=8, max_questions=4,
                                                          mix={"contracts": 0.5, "reports": 0.5})])
    batch = next(batches(cfg, ckpt.tokenizer, ckpt.model.cfg.n_answers))
    assert (batch.batch.option_len > 0).any()
    model = ckpt.model.train()
    loss, _, _ = batch_loss(model, batch, bf16=False)
    loss.backward()
    assert model.option_proj.weight.grad.abs().sum() > 0


def test_a_fine_tune_can_train_the_option_projection_alone(tokenizer_path, tmp_path):
    """`train_only`: the projection learns, every other weight keeps its bits (so a yes/no
    question's path is exactly the init's); a prefix naming nothing is an error that lists names."""
    from decider.engine.training.train import train

    init = save_checkpoint(_model(tokenizer_path, proj_std=0.0), tmp_path / "init")
    stage = Stage(max_links=1, examples=8, max_questions=4, mix={"contracts": 0.5, "reports": 0.5})
    cfg = TrainConfig(out=tmp_path / "run", init=str(init), batch_size=4, warmup_steps=1, save_every=10,
                      option_context=True, train_only=["option_proj."], stages=[stage])
    logs = []
    trained = train(cfg, progress=False, log=logs.append).model.float()
    before = load_checkpoint(init).model
    assert any("training only option_proj." in m for m in logs)
    assert trained.option_proj.weight.abs().sum() > 0
    other = {n: p for n, p in before.state_dict().items() if not n.startswith("option_proj.")}
    for n, p in trained.state_dict().items():
        if n in other:
            assert torch.equal(p, other[n]), n
    with pytest.raises(ValueError, match="names no parameter.*option_proj"):
        train(cfg.model_copy(update={"out": tmp_path / "bad", "train_only": ["no_such."]}), progress=False,
              log=logs.append)
