"""The autoregressive twin of decider-small, for the side-by-side benchmark against the
usual way of answering related questions (write them out one token at a time).

It differs from decider-small only in being autoregressive: the same pretrained start
(all-MiniLM-L6-v2, loaded into transformers' `BertLMHeadModel` with `is_decoder=True`, so
every token attends causally), the same tokenizer, the same corpus and schedule, and it
reads the same prefix as decider. After the prefix it writes the answers as JSON,

    {"q1": "yes", "q2": "b"}          (categorical answers by their option label)

trained with next-token loss on the answer tokens only.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import torch
from safetensors.torch import load_file, save_model

from decider.engine.training.corpus import DecisionSet
from decider.engine.device import autocast_for, resolve_device
from decider.engine.tokenizer import OPTION_LABELS, DecisionTokenizer
from decider.engine.training.train import TrainConfig, lr_at, set_at

IGNORE = -100  # label of tokens the loss skips (the prompt, the padding)


def answer_label(question, answer: int) -> str:
    """What the twin writes for an answer: yes/no, or the option's label letter."""
    return question.choices[answer] if question.kind == "boolean" else OPTION_LABELS[answer]


def answer_text(s: DecisionSet) -> str:
    return json.dumps({q.id: answer_label(q, a) for q, a in zip(s.questions, s.answers)})


def encode_example(tok: DecisionTokenizer, s: DecisionSet) -> tuple[list[int], int]:
    """(token ids, prompt length): decider's own prefix, then the answer JSON and [SEP]."""
    prompt = tok.encode(s.context, s.questions).prefix_ids
    answer = tok.tok.encode(answer_text(s), add_special_tokens=False).ids + [tok.sep]
    return prompt + answer, len(prompt)


def collate(examples: list[tuple[list[int], int]], pad_id: int):
    """-> input_ids, attention_mask, labels (B, T); labels ignore the prompt and padding."""
    T = max(len(ids) for ids, _ in examples)
    ids = torch.full((len(examples), T), pad_id, dtype=torch.long)
    mask = torch.zeros(len(examples), T, dtype=torch.long)
    labels = torch.full((len(examples), T), IGNORE, dtype=torch.long)
    for b, (seq, n_prompt) in enumerate(examples):
        ids[b, :len(seq)] = torch.tensor(seq)
        mask[b, :len(seq)] = 1
        labels[b, n_prompt:len(seq)] = torch.tensor(seq[n_prompt:])
    return ids, mask, labels


def twin_config(encoder_dir: Path | None = None):
    """The encoder's own config (or, without it, decider's ModelConfig: the same
    architecture), made causal and without dropout (decider-small trains without it)."""
    from transformers import BertConfig

    if encoder_dir is not None:
        cfg = BertConfig.from_pretrained(str(encoder_dir))
    else:
        from decider.engine.model import ModelConfig
        m = ModelConfig()
        cfg = BertConfig(vocab_size=m.vocab_size, hidden_size=m.dim, num_hidden_layers=m.n_layers,
                         num_attention_heads=m.n_heads, intermediate_size=m.ffn_dim,
                         max_position_embeddings=m.max_position, type_vocab_size=m.type_vocab, layer_norm_eps=m.norm_eps)
    cfg.is_decoder, cfg.add_cross_attention, cfg.tie_word_embeddings = True, False, True
    cfg.hidden_dropout_prob = cfg.attention_probs_dropout_prob = 0.0
    return cfg


def build_twin(encoder_dir: Path | None = None, config=None):
    """BertLMHeadModel (causal) warm-started from all-MiniLM-L6-v2. The encoder ships no
    language-model head: its transform is new, its decoder is tied to the word embeddings."""
    from transformers import BertLMHeadModel

    if config is not None:
        return BertLMHeadModel(config)
    from decider.engine.checkpoint import pretrained_encoder_dir
    encoder_dir = encoder_dir or pretrained_encoder_dir()
    model = BertLMHeadModel(twin_config(encoder_dir))
    tensors = {k: v for k, v in load_file(str(encoder_dir / "model.safetensors")).items()
               if not k.startswith("pooler.") and k != "embeddings.position_ids"}
    missing, unexpected = model.bert.load_state_dict(tensors, strict=False)
    if unexpected or [k for k in missing if "position_ids" not in k]:
        raise ValueError(f"MiniLM weights do not fit the twin: missing {missing[:3]}, unexpected {unexpected[:3]}")
    model.tie_weights()
    return model


def answer_loss(model, ids, mask, labels) -> torch.Tensor:
    """Next-token cross-entropy on the answer tokens. The same as the model's own loss, but
    the 30,522-way head runs only where there is a label (a few dozen tokens, not all)."""
    hidden = model.bert(input_ids=ids, attention_mask=mask).last_hidden_state  # (B, T, dim)
    target = labels[:, 1:]                                                     # token t + 1 from t
    keep = target != IGNORE
    logits = model.cls(hidden[:, :-1][keep])                                   # (n, vocab)
    return torch.nn.functional.cross_entropy(logits.float(), target[keep])


def examples_at(cfg: TrainConfig, tok: DecisionTokenizer, first: int, count: int) -> list[tuple[list[int], int]]:
    """The schedule's sets first .. first + count - 1 (the same sets decider trains on)."""
    out = []
    for i in range(first, first + count):
        try:
            out.append(encode_example(tok, set_at(cfg, [], i)))
        except ValueError:  # over the window: decider's trainer skips these too
            continue
    return out


def train_twin(cfg: TrainConfig, tok: DecisionTokenizer, model=None, progress: bool = True, log=print):
    """Next-token training on the answer JSON, over decider's curriculum. Saves
    `cfg.out/model.safetensors` and `config.json` at the end (or at the time limit)."""
    from tqdm import tqdm

    torch.manual_seed(cfg.seed)
    device = resolve_device(cfg.device)
    model = (model or build_twin()).to(device).train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=cfg.lr, betas=(0.9, 0.98), weight_decay=cfg.weight_decay)
    total = cfg.stop_after or sum(s.examples for s in cfg.stages)
    total_steps = math.ceil(sum(s.examples for s in cfg.stages) / cfg.batch_size)
    started, seen, step = time.time(), 0, 0
    bar = tqdm(total=total, disable=not progress, unit="set")
    while seen < total:
        batch = examples_at(cfg, tok, seen, min(cfg.batch_size, total - seen))
        ids, mask, labels = (t.to(device) for t in collate(batch, tok.pad))
        for g in opt.param_groups:
            g["lr"] = lr_at(cfg, step, total_steps, time.time() - started)
        with autocast_for(device, cfg.bf16):
            loss = answer_loss(model, ids, mask, labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        step += 1
        seen += cfg.batch_size
        bar.update(cfg.batch_size)
        if step % 10 == 0:
            bar.set_postfix(loss=f"{loss.item():.3f}")
        if cfg.time_limit_min is not None and time.time() - started > cfg.time_limit_min * 60:
            log(f"time limit: stopped at {seen} sets")
            break
    bar.close()
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    save_model(model, str(out / "model.safetensors"))  # drops the tied copies
    model.config.to_json_file(str(out / "config.json"))
    (out / "trained.json").write_text(json.dumps({"examples": seen, "steps": step, "seed": cfg.seed,
                                                  "seconds": round(time.time() - started)}, indent=2) + "\n")
    model.eval()
    return model


# -- decoding with outlines: the three ways the benchmark compares ----------------------

def choices_of(question) -> list[str]:
    return list(question.choices) if question.kind == "boolean" else list(OPTION_LABELS[:len(question.options)])


def answer_schema(questions) -> str:
    """JSON schema of a whole answer set: every question, in order, one of its labels."""
    return json.dumps({"type": "object", "additionalProperties": False, "required": [q.id for q in questions],
                       "properties": {q.id: {"enum": choices_of(q)} for q in questions}})


class TwinDecoder:
    """Greedy constrained decoding of the twin (KV cache on). `forward_passes` counts the
    model's forward calls, prefills included.

    json:        the whole answer object under its JSON schema (outlines)
    answers:     the JSON's keys are written for the model; each value is one constrained
                 choice (outlines regex), question after question
    independent: each question in a prompt of its own, its one-key object under a schema
    """

    MODES = ("json", "answers", "independent")

    def __init__(self, model, tok: DecisionTokenizer):
        import outlines
        from outlines.backends.outlines_core import OutlinesCoreBackend
        from transformers import PreTrainedTokenizerFast

        self.model, self.tok = model.eval(), tok
        self.hf_tok = PreTrainedTokenizerFast(tokenizer_file=str(tok.path), pad_token="[PAD]", sep_token="[SEP]",
                                              eos_token="[SEP]",
                                              cls_token="[CLS]", unk_token="[UNK]", mask_token="[MASK]")
        self.outlines_model = outlines.from_transformers(model, self.hf_tok)
        self.backend = OutlinesCoreBackend(self.outlines_model)  # builds the token index once
        self.forward_passes = 0
        model.register_forward_hook(self._count)

    def _count(self, *_):
        self.forward_passes += 1

    def _generate(self, ids: list[int], processor, max_new_tokens: int) -> list[int]:
        from transformers import LogitsProcessorList
        device = next(self.model.parameters()).device
        x = torch.tensor([ids], device=device)
        out = self.model.generate(input_ids=x, attention_mask=torch.ones_like(x),
                                  logits_processor=LogitsProcessorList([processor]), max_new_tokens=max_new_tokens,
                                  do_sample=False, use_cache=True, eos_token_id=self.tok.sep, pad_token_id=self.tok.pad)
        return out[0, len(ids):].tolist()

    def _text(self, ids: list[int]) -> str:
        return self.tok.tok.decode([i for i in ids if i != self.tok.sep]).replace(" ", "")

    def _json_processor(self, questions):
        return self.backend.get_json_schema_logits_processor(answer_schema(questions))

    def _choice_processor(self, question):
        import re
        return self.backend.get_regex_logits_processor("(" + "|".join(re.escape(c) for c in choices_of(question)) + ")")

    @torch.no_grad()
    def decide(self, context: str, questions, mode: str = "json") -> list[str | None]:
        """One label per question (None where the output does not parse)."""
        if mode == "json":
            prompt = self.tok.encode(context, questions).prefix_ids
            text = self._text(self._generate(prompt, self._json_processor(questions), 16 * len(questions) + 8))
            return _parse(text, questions)
        if mode == "independent":
            out = []
            for q in questions:
                prompt = self.tok.encode(context, [q]).prefix_ids
                out += _parse(self._text(self._generate(prompt, self._json_processor([q]), 24)), [q])
            return out
        if mode == "answers":
            ids = list(self.tok.encode(context, questions).prefix_ids)
            labels = []
            for k, q in enumerate(questions):
                scaffold = ("{" if k == 0 else ", ") + json.dumps(q.id) + ': "'
                ids += self.tok.tok.encode(scaffold, add_special_tokens=False).ids
                new = self._generate(ids, self._choice_processor(q), 8)
                label = self._text(new)
                labels.append(label if label in choices_of(q) else None)
                ids += self.tok.tok.encode(label + '"', add_special_tokens=False).ids
            return labels
        raise ValueError(f"mode must be one of {self.MODES}, got {mode!r}")


def _parse(text: str, questions) -> list[str | None]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return [None] * len(questions)
    return [data.get(q.id) if isinstance(data, dict) else None for q in questions]
