"""Block-diffusion denoiser: a bidirectional BERT-style encoder split into two passes.

- `prefix_forward` reads the prefix (context + questions) once, bidirectionally, and
  returns the K/V of every layer (`PrefixKV`). Prefix tokens never see the block.
- `block_forward` runs only the answer slots (at most 8 per request): each slot attends
  to the cached prefix K/V and to all slots, both directions, and yields answer logits.

Answers are scored by content: every answer class has a vector (the word embedding of
"yes"/"no", or the mean word embedding of an option's words), the logit of a class is
the slot's output projected onto that vector, and a revealed slot's input is the vector
of its answer. So "maintenance" means the same thing as option (c) of one question and as
option (a) of another, and unseen option words still get a sensible score. With
`option_context`, an option's vector also carries what the prefix pass made of the option's
own tokens (they sit in the prefix, after their question, and have read the context).

Running the two passes is exactly a full forward pass with the mask "prefix rows see the
prefix, block rows see everything" (`full_forward`, used by tests to prove it). The
last layer's prefix outputs feed nothing, so `prefix_forward` computes only that
layer's K/V.

Attention runs in fp32 even under bf16 autocast (the reductions over a long prefix keep their
precision); the bf16 CPU engine may run the prefix pass's in bf16, which is faster there
(`Layer.attention_dtype`, EngineConfig.prefix_attention; docs/BENCHMARKS.md).
This module knows nothing of questions, text or decoding policies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from pydantic import BaseModel, ConfigDict, Field, model_validator
from torch import nn

from decider.engine.notes import LATEST_RULES
from decider.kernels import dispatch

class ModelConfig(BaseModel):
    """Hyper-parameters. Defaults are all-MiniLM-L6-v2's, the warm start of decider-small."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: str = Field("bert-block-diffusion", description="model family behind the interface")
    vocab_size: int = Field(30522, gt=0)
    dim: int = Field(384, gt=0)
    n_layers: int = Field(6, gt=0)
    n_heads: int = Field(12, gt=0)
    ffn_dim: int = Field(1536, gt=0)
    max_position: int = Field(512, gt=0, description="context window in tokens, slots included")
    type_vocab: int = Field(2, ge=2, description="0 = prefix token, 1 = answer slot")
    n_answers: int = Field(18, description="answer classes: yes, no, option a..p")
    yes_token: int = Field(2748, description="vocabulary id of 'yes' (its embedding is the yes vector)")
    no_token: int = Field(2053, description="vocabulary id of 'no'")
    max_questions: int = Field(8, description="slots per block; question i's tokens and slot i share a learned embedding")
    number_ranks: int = Field(0, ge=0, description="the numbers of a prefix enter by rank (engine/numbers.py): "
                              "ranks 1..number_ranks (higher ones share the last) through rank_features; 0 = none")
    number_spread: bool = Field(False, description="rank codes span 0..1 over the request's own numbers "
                                "(rank - 1) / (count - 1); False = rank / number_ranks, where a request's "
                                "dozen numbers differ by 1/64 and the model could not tell them apart")
    number_relative: int = Field(0, ge=0, description="with number_ranks: in the prefix pass, a number token also "
                                 "reads how the numbers it attends to compare with its own, through this many "
                                 "frequencies of their code difference (RelativeRanks); 0 = none")
    name_links: int = Field(0, ge=0, description="with number_ranks: a number token also gets how it compares "
                            "with the numbers of the sentences that share a name with its own (engine/names.py), "
                            "through this many frequencies of their code difference (linked_comparison), and a "
                            "question's tokens attend with a learned per-head bias to the sentences that share its "
                            "names (QuestionLinks); 0 = none")
    question_compare: int = Field(0, ge=0, description="with name_links: every question token also reads, for each "
                                  "pair of heads, how the numbers one head attends to compare with those the other "
                                  "attends to, through this many frequencies (QuestionLinks.compare); 0 = none")
    number_links: bool = Field(False, description="with number_relative and name_links: the number tokens, whose "
                               "comparison term reads their own attention, attend in every head with a learned "
                               "bias of their own to the sentences that share a name with theirs "
                               "(RelativeRanks.linked): a set point finds its instrument's reading, and a "
                               "question's number the asked instrument's, among a dozen instruments' numbers")
    noun_names: bool = Field(False, description="with name_links: a word that follows \"the\" in two sentences or "
                             "more of a request is a name too (\"the dog\"), so common-noun entities link their "
                             "sentences as tags and proper names do (engine/names.py); the tokenizer reads it")
    reading_notes: bool | int = Field(False, description="the tokenizer writes after each reading of the context how "
                                      "it compares with its limits (\"131.5 °C (above 128 °C)\", engine/notes.py), "
                                      "so that the model reads a comparison as words instead of working it out from "
                                      "digits; the value is the pairing rules it reads (true: 1, as decider-small "
                                      "39 was trained; 2: rules and words, engine/notes.RULES; 3: times and dates "
                                      "too)", ge=0, le=LATEST_RULES)
    number_head: bool = Field(False, description="a head that reads, from the prefix pass's states of a number's "
                              "tokens, how its instrument's reading compares with it (below / equal / above): "
                              "trained on the generator's number targets (TrainConfig.number_targets), unused "
                              "when deciding")
    option_context: bool = Field(False, description="an option's vector also reads what the prefix made of the "
                                 "option's own words: the mean of their states entering the last layer (they "
                                 "have read the context and the question), through a projection that starts at "
                                 "zeros, added to the mean word embedding; \"30 days\" is then the notice period "
                                 "the contract gives, not just the words")
    norm_eps: float = 1e-12

    @model_validator(mode="after")
    def _heads(self):
        if self.dim % self.n_heads:
            raise ValueError(f"dim {self.dim} is not a multiple of n_heads {self.n_heads}")
        if self.question_compare and not (self.number_ranks and self.name_links):
            raise ValueError("question_compare reads rank codes through the question links: it needs number_ranks "
                             "and name_links")
        if self.noun_names and not self.name_links:
            raise ValueError("noun_names adds names for the name links to read: it needs name_links")
        if self.number_links and not (self.number_relative and self.name_links):
            raise ValueError("number_links biases the attention the number comparison term reads towards named "
                             "sentences: it needs number_relative and name_links")
        for name in ("yes_token", "no_token"):
            if not 0 <= getattr(self, name) < self.vocab_size:
                raise ValueError(f"{name} {getattr(self, name)} is outside the vocabulary (0..{self.vocab_size - 1})")
        return self

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads


PRESETS = {
    "minilm-l6": ModelConfig(),
    # for tests: random weights, trains in seconds
    "tiny": ModelConfig(dim=64, n_layers=2, n_heads=4, ffn_dim=128),
}


RANK_FEATURES = 10


def rank_place(ranks: torch.Tensor, n: int, spread: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, L) ranks (0 = not a number) -> (is_number, r), each (B, L, 1) fp32: r is a number's
    place in 0..1. `spread`: r = (rank - 1) / (count - 1) over the row's distinct numbers (the
    smallest 0, the largest 1); else r = rank / n."""
    is_number = (ranks > 0).float()[..., None]
    ranks = ranks.clamp(max=n).float()
    if spread:
        count = ranks.amax(-1, keepdim=True)  # dense ranks: the largest is the count
        r = ((ranks - 1).clamp_min(0) / (count - 1).clamp_min(1))[..., None] * is_number
    else:
        r = ranks[..., None] / n
    return is_number, r


def rank_features(ranks: torch.Tensor, n: int, spread: bool = False) -> torch.Tensor:
    """(B, L) ranks -> (B, L, RANK_FEATURES): "a number", its place r in 0..1 as a magnitude,
    and sin/cos of it at four frequencies; all zero for other tokens. An ordered code: a
    learned projection of it gives every number a direction whose size grows with its rank, so
    comparing two numbers is comparing two projections (a free table per rank would have to
    discover the order pair by pair)."""
    is_number, r = rank_place(ranks, n, spread)
    k = torch.arange(1, 5, device=ranks.device, dtype=torch.float32) * math.pi
    return torch.cat([is_number, r, torch.sin(r * k), torch.cos(r * k) * is_number], -1)


def linked_comparison(numbers: torch.Tensor, links: torch.Tensor, cfg: ModelConfig) -> torch.Tensor:
    """(B, L) ranks and name masks -> (B, L, K) fp32: for a number token i, the mean over the
    other numbers j whose sentences share a name with i's of sin(pi k (r_j - r_i) / 2), k = 1..K
    (half frequencies: r spans 0..1, and sin(pi k) would say nothing of the request's smallest
    against its largest number); zeros for other tokens, for numbers equal to all of theirs and
    for numbers without any. Sines only: odd in the difference, they say "larger" or "smaller"
    and nothing else.

    "TT-421 reads 130.2 °C." and "The trip setting for TT-421 is 128 °C.": the reading learns
    that the one other number about TT-421 is smaller, however many other instruments the
    context lists, with nothing to learn about which number belongs to which; attention need only
    carry the answer from the reading to the question."""
    is_number, r = rank_place(numbers, cfg.number_ranks, cfg.number_spread)  # (B, L, 1) each
    n = is_number[..., 0]
    linked = ((links[:, :, None] & links[:, None, :]) != 0).float() * n[:, :, None] * n[:, None, :]
    linked = linked * (1 - torch.eye(numbers.shape[1], device=numbers.device))  # (B, L, L): others only
    count = linked.sum(-1, keepdim=True)
    mean = linked / count.clamp_min(1)
    k = torch.arange(1, cfg.name_links + 1, device=numbers.device, dtype=torch.float32) * (math.pi / 2)
    sin, cos = torch.sin(r * k), torch.cos(r * k)  # (B, L, K)
    s, c = mean @ sin, mean @ cos  # means of sin(pi k r_j), cos(pi k r_j) over i's linked numbers
    return cos * s - sin * c  # sin(a - b) = sin a cos b - cos a sin b


def selected_rows(select: torch.Tensor, dense: bool = False) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(B, L) bool -> (rows, row_valid), each (B, N): the positions where `select` holds, first
    to last, padded with 0 to the row with the most (row_valid False there); None when none
    holds. The few rows whose attention RelativeRanks and QuestionLinks recompute.
    `dense`: every position is a row (N = L, row_valid = select): the same result for more work,
    with no shape that depends on the data (what an exporter needs; engine/onnx_passes.py)."""
    if dense:
        B, L = select.shape
        return torch.arange(L, device=select.device).expand(B, L), select
    count = select.sum(1)
    N = int(count.max()) if select.numel() else 0
    if N == 0:
        return None
    order = torch.argsort(select.to(torch.int8), dim=1, descending=True, stable=True)[:, :N]  # (B, N)
    row_valid = torch.arange(N, device=select.device) < count[:, None]
    return order * row_valid, row_valid


@dataclass
class RelativeRanks:
    """How the numbers a number token attends to compare with its own (ModelConfig.number_relative).

    Every number of a prefix has a code r in 0..1 (`rank_place`). A number token i reads, per
    head and for k = 1..K, the sums over keys j of a_ij sin(pi k (r_j - r_i)) and
    a_ij cos(pi k (r_j - r_i)) (a_ij: that head's attention; other tokens have no code): a
    Fourier series of "larger than me" / "smaller than me" / "equal to me" over what it
    attends to. A set point that attends to its reading then knows which is larger without a
    second hop. Only number tokens read it, so only their rows' attention is recomputed; the
    sums come from sin(a - b) = sin a cos b - cos a sin b, rotated by the reader's own code."""

    values: torch.Tensor  # (B, 1, L, 2K) sin | cos of every token's code, 0 for other tokens
    rows: torch.Tensor    # (B, N) positions of the number tokens of each row (padded with 0)
    own: torch.Tensor     # (B, 1, N, 2K) sin | cos of those tokens' codes
    row_valid: torch.Tensor  # (B, 1, N, 1) 1 for a real number token, 0 for padding
    dense: bool = False      # rows are every position (selected_rows)
    # ModelConfig.number_links: the row's sentence and the key's share a name (B, 1, N, L) bool
    linked: torch.Tensor | None = None

    @staticmethod
    def of(ranks: torch.Tensor, cfg: ModelConfig, dense: bool = False,
           links: torch.Tensor | None = None) -> RelativeRanks | None:
        """None when no row has a number (`dense`: see selected_rows). `links` (B, L), the name
        masks (engine/names.py), with cfg.number_links: which keys each row's bias reaches."""
        selected = selected_rows(ranks > 0, dense)
        if selected is None:
            return None
        rows, row_valid = selected
        is_number, r = rank_place(ranks, cfg.number_ranks, cfg.number_spread)
        k = torch.arange(1, cfg.number_relative + 1, device=ranks.device, dtype=torch.float32) * math.pi
        values = torch.cat([torch.sin(r * k), torch.cos(r * k)], -1) * is_number  # (B, L, 2K)
        own = values.gather(1, rows[..., None].expand(-1, -1, values.shape[-1]))
        linked = None
        if cfg.number_links and links is not None:
            linked = ((links.gather(1, rows)[:, :, None] & links[:, None, :]) != 0) & row_valid[..., None]
            linked = linked[:, None]  # (B, 1, N, L)
        return RelativeRanks(values[:, None], rows, own[:, None], row_valid.float()[:, None, :, None], dense, linked)

    def biased(self, scores: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
        """scores (B, H, N, L) fp32 of the rows, plus `bias` (H,) where a row's names reach."""
        if bias is None or self.linked is None:
            return scores
        return scores + bias.float()[:, None, None] * self.linked

    def read(self, q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
        """q, k (B, H, L, D) of a layer, mask (B, 1, 1 or L, L) bool -> (B, L, H * 2K), fp32,
        zero on rows that are not numbers. `bias` (H,): Layer.number_link_bias (number_links)."""
        B, H, L, D = q.shape
        N = self.rows.shape[1]
        q_rows = q.float().gather(2, self.rows[:, None, :, None].expand(B, H, N, D))
        scores = self.biased(q_rows @ k.float().transpose(-1, -2) / math.sqrt(D), bias)  # (B, H, N, L)
        allowed = mask.expand(B, 1, L, L).gather(2, self.rows[:, None, :, None].expand(B, 1, N, L)) \
            if mask.shape[2] > 1 else mask
        return self.from_attention(torch.softmax(scores.masked_fill(~allowed, float("-inf")), -1))

    def from_attention(self, probs: torch.Tensor) -> torch.Tensor:
        """probs (B, H, N, L): the attention of the rows (fp32) -> (B, L, H * 2K), as `read`."""
        B, H, N, L = probs.shape
        read = probs @ self.values  # (B, H, N, 2K)
        K = read.shape[-1] // 2
        s, c = read[..., :K], read[..., K:]
        own_s, own_c = self.own[..., :K], self.own[..., K:]
        rel = torch.cat([own_c * s - own_s * c, own_c * c + own_s * s], -1) * self.row_valid  # (B, H, N, 2K)
        rel = rel.transpose(1, 2).reshape(B, N, H * 2 * K)
        if self.dense:  # row i is position i
            return rel
        out = torch.zeros(B, L, H * 2 * K, device=probs.device, dtype=rel.dtype)
        return out.scatter_add(1, self.rows[..., None].expand(B, N, H * 2 * K), rel)


@dataclass
class QuestionLinks:
    """Which sentences a question's tokens speak of (ModelConfig.name_links): the tokens of a
    question that carry names attend, in every head, with a learned bias (`Layer.link_bias`) to
    the tokens of the sentences that share one of those names: "Is TT-421 above its trip
    setting?" reads TT-421's two sentences among a dozen instruments' without learning to match
    look-alike tags. Only those rows' attention is recomputed.

    With `ModelConfig.question_compare` every question token is a row, and from that same
    attention it reads how the numbers two heads attend to compare (`compare`): one head finding
    TT-421's reading and another its high-temperature trip, the question token knows which is
    larger, in one layer, whichever of the sentence's numbers the question asks about."""

    rows: torch.Tensor       # (B, N) positions of the question tokens that carry names (padded with 0)
    row_valid: torch.Tensor  # (B, N) bool
    linked: torch.Tensor     # (B, 1, N, L) bool: the row's names and the key's share one
    dense: bool = False      # rows are every position (selected_rows; Layer._dense_attention)
    # question_compare: sin | cos of every number's code at K half frequencies, then "a number";
    # zeros for other tokens
    codes: torch.Tensor | None = None  # (B, 1, L, 2K + 1)

    @staticmethod
    def of(links: torch.Tensor, segments: torch.Tensor, dense: bool = False,
           numbers: torch.Tensor | None = None, cfg: ModelConfig | None = None) -> QuestionLinks | None:
        """links, segments (B, L); None when no question token carries a name (`dense`: see
        selected_rows). With `numbers` (ranks, (B, L)) and cfg.question_compare: every question
        token is a row, and the rows read `compare`."""
        compare = numbers is not None and cfg is not None and cfg.question_compare > 0
        selected = selected_rows((segments > 0) & ((links != 0) | compare), dense)
        if selected is None:
            return None
        rows, row_valid = selected
        linked = (links.gather(1, rows)[:, :, None] & links[:, None, :]) != 0  # (B, N, L)
        codes = None
        if compare:
            is_number, r = rank_place(numbers, cfg.number_ranks, cfg.number_spread)
            k = torch.arange(1, cfg.question_compare + 1, device=numbers.device, dtype=torch.float32) * (math.pi / 2)
            codes = torch.cat([torch.sin(r * k) * is_number, torch.cos(r * k) * is_number, is_number], -1)[:, None]
        return QuestionLinks(rows, row_valid, (linked & row_valid[..., None])[:, None], dense, codes)

    def compare(self, probs: torch.Tensor) -> torch.Tensor:
        """probs (B, H, N, L): the rows' attention (fp32) -> (B, L, H (H - 1) / 2 * K) fp32: for
        every pair of heads g < h and k = 1..K, sin(pi k (r_h - r_g) / 2), where r_h is the mean
        code of the numbers head h attends to (their attention renormalised over numbers: the
        share a question token gives numbers at all is small and says nothing of which is larger);
        zero on rows that are not question tokens and where a head attends to no number. Half
        frequencies, as in linked_comparison: k = 1 is monotone over the request's codes."""
        B, H, N, L = probs.shape
        read = probs @ self.codes  # (B, H, N, 2K + 1)
        K = read.shape[-1] // 2
        unit = read[..., :2 * K] / (read[..., 2 * K:] + 1e-3)  # the numbers' mean phasor, per head
        s, c = unit[..., :K], unit[..., K:]
        g, h = torch.triu_indices(H, H, 1, device=probs.device)
        pairs = s[:, h] * c[:, g] - c[:, h] * s[:, g]  # (B, P, N, K): sin(a_h - a_g)
        pairs = (pairs * self.row_valid[:, None, :, None]).transpose(1, 2).reshape(B, N, -1)
        if self.dense:  # row i is position i
            return pairs
        out = torch.zeros(B, L + 1, pairs.shape[-1], device=probs.device, dtype=pairs.dtype)
        return out.scatter(1, self._targets(L)[..., None].expand_as(pairs), pairs)[:, :L]

    def _targets(self, L: int) -> torch.Tensor:
        """(B, N): each row's position, L for padding rows. Padding rows write to a spare
        position, cut off after: were they to write to a real position, as many copies of its
        gradient would flow back into it as there are padding rows."""
        return torch.where(self.row_valid, self.rows, L)

    def attend(self, a: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor,
               bias: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """a (B, H, L, D): attention output; its rows of linked question tokens recomputed with
        `bias` (H,) added where linked. q, k, v (B, H, L, D), mask (B, 1, 1 or L, L) bool.
        Returns the new output and, with `codes`, `compare` of the rows' attention."""
        B, H, L, D = q.shape
        N = self.rows.shape[1]
        index = self.rows[:, None, :, None]
        scores = q.float().gather(2, index.expand(B, H, N, D)) @ k.float().transpose(-1, -2) / math.sqrt(D)
        allowed = mask.gather(2, index.expand(B, 1, N, L)) if mask.shape[2] > 1 else mask
        scores = (scores + bias.float()[:, None, None] * self.linked).masked_fill(~allowed, float("-inf"))
        probs = torch.softmax(scores, -1)
        out = probs @ v.float()  # (B, H, N, D)
        target = self._targets(L)[:, None, :, None].expand(B, H, N, D)
        a = F.pad(a, (0, 0, 0, 1)).scatter(2, target, out.to(a.dtype))[:, :, :L]
        return a, None if self.codes is None else self.compare(probs)


@dataclass
class PrefixKV:
    """Per-layer keys/values of a batch of prefixes; `valid` marks real (unpadded) tokens.
    `exact`: block attention runs request by request over its own length (no padded
    reductions), so that a request's bits never depend on its batch (the CPU bf16 path)."""

    k: list[torch.Tensor]  # n_layers x (B, H, L, D)
    v: list[torch.Tensor]  # n_layers x (B, H, L, D)
    valid: torch.Tensor    # (B, L) bool
    exact: bool = False
    repeats: int = 1       # blocks per prefix: block row r * B + b reads prefix b (`shared`)
    states: torch.Tensor | None = None  # (B, L, dim) fp32: the last layer's input through option_proj
    # batch 1, exact: k and v run on past the prefix's `valid` length into rows the block pass may
    # use: it writes the block's own keys and values there and attends over both in one call,
    # where it would otherwise copy the whole prefix to join them (every layer, every pass)
    tail: bool = False

    def select(self, index: torch.Tensor) -> PrefixKV:
        """Rows `index` of the batch (repeats allowed): one prefix serving many blocks."""
        return PrefixKV([k.index_select(0, index) for k in self.k],
                        [v.index_select(0, index) for v in self.v],
                        self.valid.index_select(0, index), self.exact,
                        states=None if self.states is None else self.states.index_select(0, index))

    def shared(self, repeats: int) -> PrefixKV:
        """These prefixes serving `repeats` blocks each, block row r * B + b on prefix b (training's
        reveal patterns), read in place: what select(arange(B).repeat(repeats)) gives, without the
        copies, which cost a training step more than its prefix pass did."""
        if self.exact:
            raise ValueError("exact (request by request) block attention cannot share prefixes")
        return PrefixKV(self.k, self.v, self.valid, self.exact, repeats, self.states)

    def nbytes(self) -> int:
        states = () if self.states is None else (self.states,)
        return sum(t.numel() * t.element_size() for t in (*self.k, *self.v, *states))


@dataclass
class PackedPrefixKV:
    """Per-layer prefix keys/values of a batch, packed without padding (the layout of the
    Triton block-attention kernel): request b owns rows cu_seqlens[b]:cu_seqlens[b + 1]."""

    k: list[torch.Tensor]    # n_layers x (N, H, D)
    v: list[torch.Tensor]    # n_layers x (N, H, D)
    cu_seqlens: torch.Tensor  # (B + 1,) int32
    max_len: int

    @staticmethod
    def pack(prefixes: list[PrefixKV]) -> PackedPrefixKV:
        """From per-request (1, H, L_i, D) K/V."""
        n = len(prefixes[0].k)
        k = [torch.cat([p.k[i][0].transpose(0, 1) for p in prefixes]).contiguous() for i in range(n)]  # (N, H, D)
        v = [torch.cat([p.v[i][0].transpose(0, 1) for p in prefixes]).contiguous() for i in range(n)]
        lengths = torch.tensor([0] + [p.k[0].shape[2] for p in prefixes])
        cu = lengths.cumsum(0).to(device=k[0].device, dtype=torch.int32)
        return PackedPrefixKV(k, v, cu, int(lengths.max()))


def _all_valid(mask: torch.Tensor) -> bool:
    """No key is masked (a request at its own length): SDPA then needs no mask, and is faster
    on a CPU with the same bits. Never while a graph is traced (exporters: that would fix the
    answer) nor on a GPU (asking would wait for the device)."""
    return (mask.device.type == "cpu" and not (torch.compiler.is_compiling() or torch.jit.is_tracing())
            and bool(mask.all()))


class Layer(nn.Module):
    # what the self-attention of `forward` runs in (the prefix pass's): fp32, or bf16 where the
    # engine asks for it (EngineConfig.prefix_attention; q, k and v are bf16 there already)
    attention_dtype = torch.float32

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.n_heads, self.head_dim = cfg.n_heads, cfg.head_dim
        self.query = nn.Linear(cfg.dim, cfg.dim)
        self.key = nn.Linear(cfg.dim, cfg.dim)
        self.value = nn.Linear(cfg.dim, cfg.dim)
        self.attn_out = nn.Linear(cfg.dim, cfg.dim)
        self.attn_norm = nn.LayerNorm(cfg.dim, eps=cfg.norm_eps)
        self.ffn_in = nn.Linear(cfg.dim, cfg.ffn_dim)
        self.ffn_out = nn.Linear(cfg.ffn_dim, cfg.dim)
        self.ffn_norm = nn.LayerNorm(cfg.dim, eps=cfg.norm_eps)
        self.qkv: nn.Module | None = None  # query, key and value in one call where fused (engine/packed.py)
        # how the numbers a number token attends to compare with it, into the residual (RelativeRanks;
        # BlockDiffusionModel._add_rank_outs)
        self.rank_out: nn.Linear | None = None
        # per head: added where a question token and a key share a name (QuestionLinks)
        self.link_bias: nn.Parameter | None = None
        # per head: added where a number token and a key share a name (ModelConfig.number_links)
        self.number_link_bias: nn.Parameter | None = None
        # how the numbers two heads of a question token attend to compare, into the residual
        # (QuestionLinks.compare; BlockDiffusionModel._add_compare_outs)
        self.compare_out: nn.Linear | None = None

    def _project(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(query, key, value) of x (B, S, dim), each (B, S, dim)."""
        if self.qkv is not None:
            return self.qkv(x).split(self.query.out_features, -1)
        return self.query(x), self.key(x), self.value(x)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        B, S, _ = x.shape
        return x.view(B, S, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, S, D)

    def kv(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self._heads(self.key(x)), self._heads(self.value(x))

    def forward(self, x, mask, relative: RelativeRanks | None = None, questions: QuestionLinks | None = None):
        """Self-attention over x (B, S, dim); mask (B, 1, 1 or S, S) bool, True = may attend.
        `relative`: the rank codes of the S tokens, for the number comparison term; `questions`:
        the question tokens that attend to their names' sentences with `link_bias`.
        Returns the new hidden states and this layer's own (k, v)."""
        q, k, v = (self._heads(t) for t in self._project(x))
        with torch.autocast(x.device.type, enabled=False):
            # an additive mask (what SDPA makes of a boolean one anyway): exported, it is one Add
            # instead of a Where and a NaN guard over every score (engine/onnx_passes.py)
            def bias():
                return torch.zeros(mask.shape, device=mask.device).masked_fill(~mask, float("-inf"))
            links = questions is not None and self.link_bias is not None
            ranks = self.rank_out is not None and relative is not None
            if (links and questions.dense) or (ranks and relative.dense):
                a, ranked, compared = self._dense_attention(q, k, v, bias(), relative if ranks else None,
                                                            questions if links else None)
            else:
                qf, kf, vf = q.float(), k.float(), v.float()  # once: the recomputed rows read them in fp32
                dt = self.attention_dtype
                qa, ka, va = (qf, kf, vf) if dt == torch.float32 else (t.to(dt) for t in (q, k, v))
                a = F.scaled_dot_product_attention(qa, ka, va, attn_mask=None if _all_valid(mask) else bias().to(dt))
                a, compared = questions.attend(a, qf, kf, vf, mask, self.link_bias) if links else (a, None)
                ranked = relative.read(qf, kf, mask, self.number_link_bias) if ranks else None
        extra = None if ranked is None else self.rank_out(ranked.to(x.dtype))
        if compared is not None and self.compare_out is not None:
            compared = self.compare_out(compared.to(x.dtype))
            extra = compared if extra is None else extra + compared
        B, H, S, D = a.shape
        return self._rest(x, a.transpose(1, 2).reshape(B, S, H * D), extra), (k, v)

    def _dense_attention(self, q, k, v, bias, relative: RelativeRanks | None, questions: QuestionLinks | None):
        """forward's attention where the recomputed rows are every row (dense_rows): the scores
        once, for the plain softmax (what the number comparison term reads) and the one with
        the link bias (zero on rows without linked names, so there it is the plain one), which
        the question comparison reads. Returns the output, the number and question comparisons."""
        scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(q.shape[-1]) + bias  # (B, H, L, L)
        plain = torch.softmax(scores, -1)
        linked = plain if questions is None else torch.softmax(
            scores + self.link_bias.float()[:, None, None] * questions.linked, -1)
        ranked = None
        if relative is not None:  # with number_links, the rows' own link bias (else the plain softmax)
            leaning = relative.linked is not None and self.number_link_bias is not None
            ranked = relative.from_attention(
                torch.softmax(relative.biased(scores, self.number_link_bias), -1) if leaning else plain)
        compared = None if questions is None or questions.codes is None else questions.compare(linked)
        return linked @ v.float(), ranked, compared

    def block(self, x, prefix_k, prefix_v, slot_valid, prefix_valid=None, cu_seqlens=None, max_len=None,
              lengths=None, repeats: int = 1, tail: bool = False):
        """Block slots x (B, S, dim) attend to their cached prefix and to each other, through
        kernels.dispatch: prefix K/V padded (B / repeats, H, L, D) with prefix_valid on the torch
        path (request by request at `lengths` when given; `repeats`: PrefixKV.shared; `tail`:
        PrefixKV.tail), packed (N, H, D) with cu_seqlens (B + 1,) on the Triton path."""
        B, S, _ = x.shape
        q, k, v = (t.view(B, S, self.n_heads, self.head_dim) for t in self._project(x))  # (B, S, H, D)
        if cu_seqlens is None:  # torch: fp32 attention even under autocast (see the module docstring)
            with torch.autocast(x.device.type, enabled=False):
                a = dispatch.block_attention(q, k, v, slot_valid, prefix_k, prefix_v, prefix_valid=prefix_valid,
                                             lengths=lengths, repeats=repeats, tail=tail)
        else:
            dt = q.dtype
            a = dispatch.block_attention(q, k.to(dt), v.to(dt), slot_valid, prefix_k.to(dt), prefix_v.to(dt),
                                         cu_seqlens=cu_seqlens, max_prefix_len=max_len, backend="triton")
        return self._rest(x, a.reshape(B, S, -1))

    def _rest(self, x, a, extra=None):
        """a (B, S, dim): attention output (plus `extra`, the number comparison term) -> residual,
        norm, MLP."""
        a = self.attn_out(a.to(x.dtype))
        x = self.attn_norm(x + (a if extra is None else a + extra))
        return self.ffn_norm(x + self.ffn_out(F.gelu(self.ffn_in(x))))


class BlockDiffusionModel(nn.Module):
    """Config, prefix forward, block forward: the interface every model family provides."""

    prefix_tail = True  # its block pass can attend in room after the prefix's K/V (PrefixKV.tail)

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.word_embeddings = nn.Embedding(cfg.vocab_size, cfg.dim)
        self.position_embeddings = nn.Embedding(cfg.max_position, cfg.dim)
        self.token_type_embeddings = nn.Embedding(cfg.type_vocab, cfg.dim)
        self.answer_embeddings = nn.Embedding(2, cfg.dim)  # 0 = revealed (added to the answer's vector), 1 = [MASK]
        self.question_embeddings = nn.Embedding(cfg.max_questions + 1, cfg.dim)  # 0 = context
        if cfg.number_ranks:
            self.number_proj = nn.Linear(RANK_FEATURES, cfg.dim, bias=False)
        self.embed_norm = nn.LayerNorm(cfg.dim, eps=cfg.norm_eps)
        self.layers = nn.ModuleList(Layer(cfg) for _ in range(cfg.n_layers))
        if cfg.number_relative:
            self._add_rank_outs()
        if cfg.name_links:
            self.link_proj = nn.Linear(cfg.name_links, cfg.dim, bias=False)
            self._add_link_biases()
        if cfg.question_compare:
            self._add_compare_outs()
        if cfg.number_links:
            self._add_number_link_biases()
        self.head_dense = nn.Linear(cfg.dim, cfg.dim)
        self.head_norm = nn.LayerNorm(cfg.dim, eps=cfg.norm_eps)
        self.head_out = nn.Linear(cfg.dim, cfg.dim)  # into the word-embedding space of answers
        self.head_bias = nn.Parameter(torch.zeros(2))  # yes/no prior; options have none
        if cfg.option_context:
            self.option_proj = nn.Linear(cfg.dim, cfg.dim, bias=False)  # prefix states of an option's words
        if cfg.number_head:
            self.number_head = nn.Linear(cfg.dim, 3)  # training only (ModelConfig.number_head)

    @property
    def mask_token(self) -> int:
        return self.cfg.n_answers

    def init_weights(self, std: float = 0.02) -> None:
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=std)
                if isinstance(m, nn.Linear) and m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.LayerNorm):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        nn.init.zeros_(self.question_embeddings.weight)  # starts as the plain encoder
        if self.cfg.number_ranks:
            nn.init.zeros_(self.number_proj.weight)
        for layer in self.layers:
            if layer.rank_out is not None:
                nn.init.zeros_(layer.rank_out.weight)
        if self.cfg.name_links:
            nn.init.zeros_(self.link_proj.weight)
            for layer in self.layers[:-1]:
                nn.init.zeros_(layer.link_bias)
                if layer.compare_out is not None:
                    nn.init.zeros_(layer.compare_out.weight)
                if layer.number_link_bias is not None:
                    nn.init.zeros_(layer.number_link_bias)
        nn.init.zeros_(self.answer_embeddings.weight[0])
        nn.init.zeros_(self.head_bias)
        if self.cfg.option_context:
            nn.init.zeros_(self.option_proj.weight)

    def add_number_ranks(self, n: int, spread: bool = False) -> None:
        """Give the model a projection of number ranks starting at zeros (it starts as it was
        without them); a model that has one with another code gets a fresh one."""
        if self.cfg.number_ranks == n and self.cfg.number_spread == spread:
            raise ValueError(f"the model has these number ranks already ({n}, spread={spread})")
        self.cfg = self.cfg.model_copy(update={"number_ranks": n, "number_spread": spread})
        w = self.word_embeddings.weight
        self.number_proj = nn.Linear(RANK_FEATURES, self.cfg.dim, bias=False, device=w.device, dtype=w.dtype)
        nn.init.zeros_(self.number_proj.weight)

    def add_number_relative(self, k: int) -> None:
        """Give every layer the number comparison term (`RelativeRanks`, k frequencies) starting
        at zeros: the model starts as it was without it."""
        if not self.cfg.number_ranks:
            raise ValueError("the number comparison term reads rank codes: give the model number ranks first")
        if self.cfg.number_relative == k:
            raise ValueError(f"the model has the number comparison term already ({k} frequencies)")
        self.cfg = self.cfg.model_copy(update={"number_relative": k})
        self._add_rank_outs()

    def _add_rank_outs(self) -> None:
        """The comparison term's projection into the residual, zeros, in every layer but the last
        (whose prefix outputs feed nothing)."""
        w = self.word_embeddings.weight
        for layer in self.layers[:-1]:
            layer.rank_out = nn.Linear(self.cfg.n_heads * 2 * self.cfg.number_relative, self.cfg.dim, bias=False,
                                       device=w.device, dtype=w.dtype)
            nn.init.zeros_(layer.rank_out.weight)

    def add_name_links(self, k: int) -> None:
        """Give the model the linked comparison (ModelConfig.name_links, k frequencies) through a
        projection starting at zeros: the model starts as it was without it."""
        if not self.cfg.number_ranks:
            raise ValueError("the linked comparison reads rank codes: give the model number ranks first")
        if self.cfg.name_links == k:
            raise ValueError(f"the model has the linked comparison already ({k} frequencies)")
        self.cfg = self.cfg.model_copy(update={"name_links": k})
        w = self.word_embeddings.weight
        self.link_proj = nn.Linear(k, self.cfg.dim, bias=False, device=w.device, dtype=w.dtype)
        nn.init.zeros_(self.link_proj.weight)
        if self.layers[0].link_bias is None:
            self._add_link_biases()

    def _add_link_biases(self) -> None:
        """The question tokens' link bias, zeros, in every layer but the last (whose prefix
        outputs feed nothing)."""
        w = self.word_embeddings.weight
        for layer in self.layers[:-1]:
            layer.link_bias = nn.Parameter(torch.zeros(self.cfg.n_heads, device=w.device, dtype=w.dtype))

    def add_question_compare(self, k: int) -> None:
        """Give the model the question comparison (ModelConfig.question_compare, k frequencies)
        through projections starting at zeros: the model starts as it was without it."""
        if self.cfg.question_compare == k:
            raise ValueError(f"the model has the question comparison already ({k} frequencies)")
        cfg = self.cfg.model_copy(update={"question_compare": k})
        self.cfg = ModelConfig.model_validate(cfg.model_dump())  # it needs number ranks and name links
        self._add_compare_outs()

    def _add_compare_outs(self) -> None:
        """The question comparison's projection into the residual, zeros, in every layer but the
        last (whose prefix outputs feed nothing)."""
        w = self.word_embeddings.weight
        pairs = self.cfg.n_heads * (self.cfg.n_heads - 1) // 2
        for layer in self.layers[:-1]:
            layer.compare_out = nn.Linear(pairs * self.cfg.question_compare, self.cfg.dim, bias=False,
                                          device=w.device, dtype=w.dtype)
            nn.init.zeros_(layer.compare_out.weight)

    def add_number_links(self) -> None:
        """Give the number tokens' attention its link bias (ModelConfig.number_links), zeros in
        every layer: the model starts as it was without it."""
        if self.cfg.number_links:
            raise ValueError("the model has number links already")
        cfg = self.cfg.model_copy(update={"number_links": True})
        self.cfg = ModelConfig.model_validate(cfg.model_dump())  # it needs the comparison term and name links
        self._add_number_link_biases()

    def _add_number_link_biases(self) -> None:
        """The number tokens' link bias, zeros, in every layer but the last (whose prefix outputs
        feed nothing)."""
        w = self.word_embeddings.weight
        for layer in self.layers[:-1]:
            layer.number_link_bias = nn.Parameter(torch.zeros(self.cfg.n_heads, device=w.device, dtype=w.dtype))

    def add_number_head(self) -> None:
        """Give the model its number head (ModelConfig.number_head), torch's default init: a
        training aid that nothing reads when deciding, so the model decides as it did."""
        if self.cfg.number_head:
            raise ValueError("the model has a number head already")
        self.cfg = ModelConfig.model_validate({**self.cfg.model_dump(), "number_head": True})
        w = self.word_embeddings.weight
        self.number_head = nn.Linear(self.cfg.dim, 3, device=w.device, dtype=w.dtype)

    def add_option_context(self) -> None:
        """Give options' vectors the prefix's states of their words (ModelConfig.option_context)
        through a projection starting at zeros: the model starts as it was without it."""
        if self.cfg.option_context:
            raise ValueError("the model reads its options in context already")
        self.cfg = self.cfg.model_copy(update={"option_context": True})
        w = self.word_embeddings.weight
        self.option_proj = nn.Linear(self.cfg.dim, self.cfg.dim, bias=False, device=w.device, dtype=w.dtype)
        nn.init.zeros_(self.option_proj.weight)

    def keep_layers(self, keep: list[int]) -> None:
        """Keep only these layers, in this order (a smaller student that starts from its
        teacher's own layers); everything else (embeddings, head) stays."""
        if not keep or len(set(keep)) != len(keep) or not all(0 <= i < len(self.layers) for i in keep):
            raise ValueError(f"keep_layers must name distinct layers of 0..{len(self.layers) - 1}, got {keep}")
        self.layers = nn.ModuleList(self.layers[i] for i in keep)
        # the last layer's prefix outputs feed nothing
        last = self.layers[-1]
        last.rank_out = last.link_bias = last.compare_out = last.number_link_bias = None
        self.cfg = self.cfg.model_copy(update={"n_layers": len(keep)})

    def _questions(self, links: torch.Tensor | None, segments: torch.Tensor, numbers: torch.Tensor | None,
                   dense: bool = False) -> QuestionLinks | None:
        if not self.cfg.name_links or links is None:
            return None
        # None when no question names anything (or, with question_compare, when there is no question)
        return QuestionLinks.of(links, segments, dense, numbers, self.cfg)

    def _relative(self, numbers: torch.Tensor | None, dense: bool = False,
                  links: torch.Tensor | None = None) -> RelativeRanks | None:
        if not self.cfg.number_relative or numbers is None:
            return None
        return RelativeRanks.of(numbers, self.cfg, dense, links)  # None when there is no number

    # -- embeddings
    def _embed_prefix(self, ids: torch.Tensor, segments: torch.Tensor, numbers: torch.Tensor | None,
                      links: torch.Tensor | None = None) -> torch.Tensor:
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = (self.word_embeddings(ids) + self.position_embeddings(pos) + self.token_type_embeddings.weight[0]
             + self.question_embeddings(segments))
        if self.cfg.number_ranks and numbers is not None:
            code = rank_features(numbers, self.cfg.number_ranks, self.cfg.number_spread)
            x = x + self.number_proj(code.to(x.dtype))
            if self.cfg.name_links and links is not None:
                x = x + self.link_proj(linked_comparison(numbers, links, self.cfg).to(x.dtype))
        return self.embed_norm(x)  # (B, L, dim)

    def answer_vectors(self, option_ids: torch.Tensor, option_len: torch.Tensor,
                       option_start: torch.Tensor | None = None, prefix: PrefixKV | None = None) -> torch.Tensor:
        """option_ids (B, S, K, T) token ids of each option, option_len (B, S, K) ->
        (B, S, 2 + K, dim): the content vector of every answer class of every slot. With
        option_context, `option_start` (B, S, K), where each option's words begin in the prefix,
        and the prefix pass's output `prefix` add what the prefix made of those words (their
        projected states, averaged: per token and request in the prefix pass, so an option's
        vector never depends on its batch)."""
        B, S, K, T = option_ids.shape
        words = self.word_embeddings(option_ids)  # (B, S, K, T, dim)
        keep = (torch.arange(T, device=option_ids.device) < option_len[..., None])[..., None]  # (B, S, K, T, 1)
        n = option_len.clamp_min(1)[..., None]
        options = (words * keep).sum(3) / n  # (B, S, K, dim)
        if self.cfg.option_context:
            if prefix is None or prefix.states is None or option_start is None:
                raise ValueError("this model reads options in context: answer_vectors needs the prefix pass's "
                                 "output and where each option starts in the prefix")
            states = prefix.states  # (B, L, dim)
            at = (option_start[..., None] + torch.arange(T, device=states.device)).clamp(max=states.shape[1] - 1)
            read = states.gather(1, at.view(B, -1, 1).expand(-1, -1, states.shape[-1])).view(B, S, K, T, -1)
            options = options + ((read * keep).sum(3) / n).to(options.dtype)
        yes_no = self.word_embeddings.weight[[self.cfg.yes_token, self.cfg.no_token]]  # (2, dim)
        return torch.cat([yes_no.expand(B, S, 2, -1), options], 2)

    def _embed_block(self, answers: torch.Tensor, positions: torch.Tensor, choices: torch.Tensor) -> torch.Tensor:
        B, S = answers.shape
        slot = torch.arange(1, S + 1, device=answers.device)  # slot i <-> question i
        revealed = answers != self.mask_token
        index = answers.clamp(max=choices.shape[2] - 1)[..., None, None].expand(B, S, 1, choices.shape[-1])
        content = choices.gather(2, index).squeeze(2) + self.answer_embeddings.weight[0]  # (B, S, dim)
        x = torch.where(revealed[..., None], content, self.answer_embeddings.weight[1])
        x = x + self.position_embeddings(positions) + self.token_type_embeddings.weight[1] + self.question_embeddings(slot)
        return self.embed_norm(x)  # (B, S, dim)

    def _head(self, x: torch.Tensor, choices: torch.Tensor) -> torch.Tensor:
        h = self.head_out(self.head_norm(F.gelu(self.head_dense(x)))).float()  # (B, S, dim)
        logits = torch.einsum("bsd,bscd->bsc", h, choices.float())  # (B, S, C)
        return logits + F.pad(self.head_bias.float(), (0, logits.shape[-1] - 2))

    # -- the two passes
    def prefix_forward(self, ids: torch.Tensor, valid: torch.Tensor, segments: torch.Tensor,
                       numbers: torch.Tensor | None = None, links: torch.Tensor | None = None,
                       dense_rows: bool = False, hidden: list | None = None) -> PrefixKV:
        """ids, valid, segments, numbers (rank of each token's number, 0 = none), links (the names
        of each token's sentence, a bit mask; engine/names.py): (B, L). Returns the K/V of every
        layer for the prefix. `dense_rows`: the number comparison term and the question links
        recompute every row's attention, not just their own rows' (the same K/V, more work, no
        shape that depends on the data: for exporters). `hidden`: a list that receives the
        states every layer but the last hands on (what the next layer's K/V are made of;
        training's anchor to the pretrained encoder reads them)."""
        x = self._embed_prefix(ids, segments, numbers, links)
        mask = valid[:, None, None, :]  # (B, 1, 1, L)
        relative = self._relative(numbers, dense_rows, links)
        questions = self._questions(links, segments, numbers, dense_rows)
        ks, vs = [], []
        for layer in self.layers[:-1]:
            x, (k, v) = layer(x, mask, relative, questions)
            ks.append(k)
            vs.append(v)
            if hidden is not None:
                hidden.append(x)
        k, v = self.layers[-1].kv(x)  # the last layer's prefix outputs feed nothing
        ks.append(k)
        vs.append(v)
        states = self.option_proj(x).float() if self.cfg.option_context else None  # what options read
        return PrefixKV(ks, vs, valid, states=states)

    def block_forward(self, answers: torch.Tensor, positions: torch.Tensor, slot_valid: torch.Tensor,
                      prefix: PrefixKV, choices: torch.Tensor) -> torch.Tensor:
        """answers, positions, slot_valid: (B, S); choices: (B, S, C, dim) from answer_vectors
        -> logits (B, S, C), fp32. `answers` holds a class per slot, or `mask_token` if open."""
        x = self._embed_block(answers, positions, choices)
        packed = isinstance(prefix, PackedPrefixKV)  # the Triton path's layout (see decider.kernels.dispatch)
        exact = not packed and prefix.exact  # Triton's kernel reads each request at its own length anyway
        lengths = (prefix.valid.sum(1).tolist(), slot_valid.sum(1).tolist()) if exact else None
        tail = exact and prefix.tail
        for layer, k, v in zip(self.layers, prefix.k, prefix.v):
            if packed:
                x = layer.block(x, k, v, slot_valid, cu_seqlens=prefix.cu_seqlens, max_len=prefix.max_len)
            else:
                x = layer.block(x, k, v, slot_valid, prefix_valid=prefix.valid, lengths=lengths, repeats=prefix.repeats,
                                tail=tail)
        return self._head(x, choices)

    def full_forward(self, ids, valid, segments, answers, positions, slot_valid, choices, numbers=None,
                     links=None) -> torch.Tensor:
        """One pass over prefix + block with the block-diffusion mask. Same result as
        prefix_forward + block_forward; kept as the reference the tests compare with."""
        L, S = ids.shape[1], answers.shape[1]
        x = torch.cat([self._embed_prefix(ids, segments, numbers, links), self._embed_block(answers, positions, choices)],
                      1)
        keys = torch.cat([valid, slot_valid], 1)  # (B, L + S)
        sees_block = torch.zeros(L + S, L + S, dtype=torch.bool, device=ids.device)
        sees_block[L:, :] = True
        sees_block[:, :L] = True  # prefix rows: prefix columns only; block rows: all
        mask = sees_block[None, None] & keys[:, None, None, :]  # (B, 1, L + S, L + S)
        links = None if links is None else F.pad(links, (0, S))
        relative = self._relative(None if numbers is None else F.pad(numbers, (0, S)), links=links)  # slots: no numbers
        questions = self._questions(links, F.pad(segments, (0, S)), None if numbers is None else F.pad(numbers, (0, S)))
        for layer in self.layers:
            x, _ = layer(x, mask, relative, questions)
        return self._head(x[:, L:], choices)


def hf_bert_state_dict(tensors: dict[str, torch.Tensor], n_layers: int) -> dict[str, torch.Tensor]:
    """Rename a Hugging Face BertModel state dict to ours (pretrained warm start)."""
    names = {
        "embeddings.word_embeddings.weight": "word_embeddings.weight",
        "embeddings.position_embeddings.weight": "position_embeddings.weight",
        "embeddings.token_type_embeddings.weight": "token_type_embeddings.weight",
        "embeddings.LayerNorm.weight": "embed_norm.weight",
        "embeddings.LayerNorm.bias": "embed_norm.bias",
    }
    per_layer = {
        "attention.self.query": "query", "attention.self.key": "key", "attention.self.value": "value",
        "attention.output.dense": "attn_out", "attention.output.LayerNorm": "attn_norm",
        "intermediate.dense": "ffn_in", "output.dense": "ffn_out", "output.LayerNorm": "ffn_norm",
    }
    for i in range(n_layers):
        for theirs, ours in per_layer.items():
            for p in ("weight", "bias"):
                names[f"encoder.layer.{i}.{theirs}.{p}"] = f"layers.{i}.{ours}.{p}"
    missing = [k for k in names if k not in tensors]
    if missing:
        raise ValueError(f"pretrained weights lack {missing[:3]} (and {max(len(missing) - 3, 0)} more)")
    return {ours: tensors[theirs] for theirs, ours in names.items()}
