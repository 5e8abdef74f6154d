"""The autoregressive twin: same prompt as decider, JSON answers, a causal BERT that learns."""

import json

import torch
from transformers import BertConfig

from ar_twin import IGNORE, answer_loss, answer_text, build_twin, collate, encode_example, examples_at, train_twin
from decider.engine.training.corpus import CorpusSpec, make_sets
from decider.engine.model import BlockDiffusionModel, ModelConfig
from decider.engine.training.train import Stage, TrainConfig


def tiny_config(vocab: int) -> BertConfig:
    return BertConfig(vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=64, max_position_embeddings=512, is_decoder=True, tie_word_embeddings=True)


def test_prompt_is_deciders_prefix_and_answers_are_json(tiny):
    tok = tiny.tokenizer
    s = make_sets(CorpusSpec(split="test"), 5)[4]
    ids, n_prompt = encode_example(tok, s)
    assert ids[:n_prompt] == tok.encode(s.context, s.questions).prefix_ids
    assert ids[-1] == tok.sep
    written = json.loads(answer_text(s))
    assert list(written) == [q.id for q in s.questions]
    decoded = tok.tok.decode(ids[n_prompt:-1]).replace(" ", "")
    assert decoded == answer_text(s).lower().replace(" ", "")  # uncased WordPiece
    _, _, labels = collate([(ids, n_prompt)], tok.pad)
    assert (labels[0, :n_prompt] == IGNORE).all() and (labels[0, n_prompt:] != IGNORE).all()


def test_the_twin_has_deciders_size_within_ten_percent():
    from ar_twin import twin_config
    with torch.device("meta"):
        twin = build_twin(config=twin_config())
        ours = BlockDiffusionModel(ModelConfig())
    n_twin = sum(p.numel() for p in twin.parameters())
    n_ours = sum(p.numel() for p in ours.parameters())
    assert abs(n_twin - n_ours) / n_ours < 0.10, (n_twin, n_ours)


def test_a_tiny_twin_learns_the_answers(tiny, tmp_path):
    tok = tiny.tokenizer
    torch.manual_seed(0)
    model = build_twin(config=tiny_config(tok.vocab_size))
    cfg = TrainConfig(out=tmp_path / "twin", batch_size=8, lr=3e-3, warmup_steps=1, bf16=False,
                      stages=[Stage(max_links=1, examples=32, max_questions=3, max_extra=0)])
    fixed = [collate(examples_at(cfg, tok, 8 * k, 8), tok.pad) for k in range(4)]
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    for step in range(60):
        loss = answer_loss(model, *fixed[step % 4])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert sum(losses[-4:]) / 4 < 0.5 * sum(losses[:4]) / 4
    ids, mask, labels = fixed[0]  # the fast loss is the model's own (compared without dropout)
    model.eval()
    full = model(input_ids=ids, attention_mask=mask, labels=labels).loss
    assert abs(answer_loss(model, ids, mask, labels).item() - full.item()) < 1e-4
    train_twin(cfg, tok, model=build_twin(config=tiny_config(tok.vocab_size)), progress=False, log=lambda m: None)
    assert {p.name for p in (tmp_path / "twin").iterdir()} == {"model.safetensors", "config.json", "trained.json"}
    assert json.loads((tmp_path / "twin" / "trained.json").read_text())["examples"] == 32


def test_constrained_decoding_always_gives_valid_answers(tiny):
    """Even an untrained twin writes only valid answers under outlines' constraints."""
    from ar_twin import TwinDecoder, choices_of
    tok = tiny.tokenizer
    torch.manual_seed(0)
    decoder = TwinDecoder(build_twin(config=tiny_config(tok.vocab_size)), tok)
    for s in make_sets(CorpusSpec(split="test"), 3):
        for mode in TwinDecoder.MODES:
            before = decoder.forward_passes
            labels = decoder.decide(s.context, s.questions, mode)
            assert [l in choices_of(q) for q, l in zip(s.questions, labels)] == [True] * len(s.questions), (mode, labels)
            assert decoder.forward_passes > before
