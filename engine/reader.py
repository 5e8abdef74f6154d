"""The option reader: a frozen sentence encoder that scores the options of categorical questions.

decider-small reads the corpus generator's language far better than the language people
write (NOTES.md): fine-tuned on generated sets, it lost much of what its starting point,
all-MiniLM-L6-v2, learned from a billion pairs of people's sentences. That encoder, frozen,
still matches a paraphrase with what it paraphrases. The reader is that encoder, kept as it
was pretrained, beside the model.

For a categorical question q with options o_1..o_K, in a context of sentences s_1..s_J, the
reader embeds "q o_k" and every s_j (the mean of the last layer's token states, at unit
length) and scores option k by max_j cos(e(q o_k), e(s_j)): how well the sentence that best
matches the answer says it. The engine adds `weight * score` to the option's logit at every
block pass, before the temperature (a product of the two experts), so the most certain answers
are still committed first and the rest read them. The weight is fitted with the temperature
on the validation split (`decider eval --fit-temperature`). Yes/no questions get nothing: a
statement and its negation are equally similar to a sentence.

The strings of one request are packed into rows of `ROW` tokens, each string whole and
seeing only itself (positions restart, attention is masked per string), so a request costs
about its token count whatever the strings' lengths, the few row counts keep the CPU's
kernels warm, and its scores depend on the request alone (never on its batch).
"""

from __future__ import annotations

import re
from copy import deepcopy
from itertools import accumulate
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file
from torch import nn

from decider.engine.model import Layer, ModelConfig
from decider.engine.request import Question

READER_FILE = "reader.safetensors"
ROW = 128          # tokens per packed row; also the most a string keeps (all-MiniLM-L6-v2 trained at 128)
SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


def sentences(context: str) -> list[str]:
    """The context cut after ., !, ? or ; followed by a space (a decimal point is not)."""
    return [s for s in SENTENCE_END.split(context.strip()) if s]


class SentenceReader(nn.Module):
    """A BERT encoder with mean pooling, in decider's layers (engine.model.Layer), frozen."""

    def __init__(self, cfg: ModelConfig, n_layers: int, word_embeddings: nn.Embedding | None = None):
        super().__init__()
        plain = cfg.model_copy(update={"n_layers": n_layers})
        self.word_embeddings = word_embeddings or nn.Embedding(cfg.vocab_size, cfg.dim)
        self.position_embeddings = nn.Embedding(cfg.max_position, cfg.dim)
        self.token_type_embeddings = nn.Embedding(cfg.type_vocab, cfg.dim)
        self.embed_norm = nn.LayerNorm(cfg.dim, eps=cfg.norm_eps)
        self.layers = nn.ModuleList(Layer(plain) for _ in range(n_layers))
        self.requires_grad_(False)

    @torch.no_grad()
    def encode(self, ids: torch.Tensor, positions: torch.Tensor, segment: torch.Tensor) -> torch.Tensor:
        """Packed rows: ids, positions (R, T) and segment (R, T), the string each token belongs
        to (-1: padding) -> (N, dim) fp32, one unit vector per string, N = segment.max() + 1."""
        x = self.word_embeddings(ids) + self.position_embeddings(positions) + self.token_type_embeddings.weight[0]
        x = self.embed_norm(x)
        own = segment >= 0
        mask = (segment[:, :, None] == segment[:, None, :]) & own[:, None, :]  # (R, T, T): a string sees itself
        mask |= ~own[:, :, None]  # padding rows see everything (their output is never read): no empty softmax
        for layer in self.layers:
            x, _ = layer(x, mask[:, None])
        n = int(segment.max()) + 1
        flat = segment.flatten()
        rows = x.float().flatten(0, 1)[flat >= 0]
        sums = torch.zeros(n, x.shape[-1], device=x.device).index_add_(0, flat[flat >= 0], rows)
        counts = torch.bincount(flat[flat >= 0], minlength=n).clamp_min(1)[:, None]
        return F.normalize(sums / counts, dim=-1)

    @torch.no_grad()
    def states(self, ids: torch.Tensor, valid: torch.Tensor) -> list[torch.Tensor]:
        """Plain padded rows: ids, valid (B, L) -> the states every layer but the last hands on,
        each (B, L, dim), the whole row read as one text (training's anchor: what the model's
        prefix pass made of the same tokens is held near these)."""
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.embed_norm(self.word_embeddings(ids) + self.position_embeddings(pos)
                            + self.token_type_embeddings.weight[0])
        out = []
        for layer in self.layers[:-1]:
            x, _ = layer(x, valid[:, None, None, :])
            out.append(x)
        return out

    def option_scores(self, tok, context: str, questions: list[Question]) -> list[list[float]]:
        """Per question, the score of each option (empty for yes/no questions). `tok` is the
        checkpoint's DecisionTokenizer (its WordPiece vocabulary is the encoder's)."""
        cats = [q for q in questions if q.kind == "categorical"]
        if not cats:
            return [[] for _ in questions]
        said = token_rows(tok, sentences(context))
        budget = tok.max_length  # as much context as the model's window holds (what a truncated request reads)
        said = said[:sum(total <= budget for total in accumulate(map(len, said)))]
        if not said:
            return [[0.0] * len(q.options) if q.kind == "categorical" else [] for q in questions]
        answers = token_rows(tok, [f"{q.text} {o}" for q in cats for o in q.options])
        e = self.encode(*pack(said + answers, tok.pad, self.embed_norm.weight.device))
        said_e, answers = e[:len(said)], e[len(said):]
        best = (answers @ said_e.T).max(1).values.tolist()
        out, at = [], 0
        for q in questions:
            if q.kind == "categorical":
                out.append(best[at:at + len(q.options)])
                at += len(q.options)
            else:
                out.append([])
        return out


def token_rows(tok, strings: list[str]) -> list[list[int]]:
    """Each string as the reader reads it: [CLS], its first ROW - 2 word pieces, [SEP] (`tok`: a
    DecisionTokenizer)."""
    return [[tok.cls, *e.ids[:ROW - 2], tok.sep] for e in tok.tok.encode_batch(strings, add_special_tokens=False)]


def pack(strings: list[list[int]], pad: int, device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Token id lists (each at most ROW long) into rows of ROW tokens, first fit in order ->
    ids, positions, segment (R, ROW); segment -1 marks padding."""
    rows: list[list[int]] = []  # string indices per row
    room: list[int] = []
    for i, s in enumerate(strings):
        r = next((r for r, left in enumerate(room) if left >= len(s)), None)
        if r is None:
            rows.append([])
            room.append(ROW)
            r = len(rows) - 1
        rows[r].append(i)
        room[r] -= len(s)
    ids = torch.full((len(rows), ROW), pad, dtype=torch.long)
    positions = torch.zeros(len(rows), ROW, dtype=torch.long)
    segment = torch.full((len(rows), ROW), -1, dtype=torch.long)
    for r, members in enumerate(rows):
        at = 0
        for i in members:
            n = len(strings[i])
            ids[r, at:at + n] = torch.tensor(strings[i])
            positions[r, at:at + n] = torch.arange(n)
            segment[r, at:at + n] = i
            at += n
    return ids.to(device), positions.to(device), segment.to(device)


def cast_reader(reader: SentenceReader, dtype: torch.dtype, words: nn.Embedding | None) -> SentenceReader:
    """A copy of `reader` in `dtype` that reads the word table `words` (a model's, already in
    `dtype`), or a cast copy of its own where `words` is None."""
    own, reader.word_embeddings = reader.word_embeddings, None
    try:
        copy = deepcopy(reader).to(dtype)
    finally:
        reader.word_embeddings = own
    copy.word_embeddings = words if words is not None else deepcopy(own).to(dtype)
    return copy


def reader_from_pretrained(cfg: ModelConfig, tensors: dict[str, torch.Tensor]) -> SentenceReader:
    """The reader from a Hugging Face BertModel state dict (all-MiniLM-L6-v2's)."""
    from decider.engine.model import hf_bert_state_dict

    n_layers = 1 + max(int(k.split(".")[2]) for k in tensors if k.startswith("encoder.layer."))
    reader = SentenceReader(cfg, n_layers)
    reader.load_state_dict(hf_bert_state_dict(tensors, n_layers))
    return reader


def save_reader(reader: SentenceReader, folder: Path, model_words: nn.Embedding, dtype: torch.dtype) -> Path:
    """Write the reader into a checkpoint folder in `dtype`, leaving out its word embeddings
    where they equal the model's (stored in `dtype`): then the two share one table."""
    state = {k: v.detach().to("cpu", dtype).contiguous() for k, v in reader.state_dict().items()}
    if torch.equal(state["word_embeddings.weight"], model_words.weight.detach().to("cpu", dtype)):
        del state["word_embeddings.weight"]
    path = Path(folder) / READER_FILE
    save_file(state, str(path), metadata={"n_layers": str(len(reader.layers))})
    return path


def load_reader(path: Path, cfg: ModelConfig, model_words: nn.Embedding, device, dtype) -> SentenceReader:
    """A checkpoint's reader; without word embeddings of its own it reads the model's."""
    from decider.engine.checkpoint import CheckpointError, load_weights

    try:
        with safe_open(str(path), "pt") as f:
            n_layers = int((f.metadata() or {}).get("n_layers", "0"))
            tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 (safe_open is not a dict)
    except (SafetensorError, OSError, ValueError) as e:
        raise CheckpointError(f"{path}: cannot read safetensors ({e})") from None
    if n_layers < 1:
        raise CheckpointError(f"{path}: metadata 'n_layers' missing (write the reader with `decider export --reader`)")
    shared = "word_embeddings.weight" not in tensors
    with torch.device("meta"):
        reader = SentenceReader(cfg, n_layers, None if not shared else nn.Embedding(1, 1))
    if shared:
        del reader.word_embeddings
    load_weights(reader, tensors, path, device, dtype)
    if shared:
        reader.word_embeddings = model_words
    return reader.requires_grad_(False).eval()
