"""Turns (context, questions) into model input: prefix token ids and one slot per question.

Prefix layout: `[CLS] context [SEP] [Q1] question 1 (a) opt (b) opt [Q2] ... [SEP]`.
The markers [Q1]..[Q8] reuse the WordPiece vocabulary's `[unused1]..[unused8]` ids, so
the encoder's own `tokenizer.json` works unchanged. Slot i takes the position id right
after the last token of its question.

Answer classes are shared by all questions: 0 = yes, 1 = no, 2 + k = option k. The
model scores an option by its content (the words of the option), so each request also
carries the token ids of every option, and where each option's words start in the prefix
(a model may read them there, in context). Every prefix token that is part of a number carries
the number's rank among the request's numbers (engine/numbers.py), 0 elsewhere, and every
prefix token the bit mask of the names its sentence mentions (engine/names.py). With
`reading_notes` the context first gets its readings compared with their limits, in words
(engine/notes.py).
This module knows nothing of the model or of torch.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from pathlib import Path

from tokenizers import Tokenizer

from decider.engine.names import token_links
from decider.engine.notes import annotate
from decider.engine.numbers import token_ranks
from decider.engine.request import MAX_OPTIONS, MAX_QUESTIONS, DecisionInputError, Question, answer_classes

OPTION_LABELS = string.ascii_lowercase[:MAX_OPTIONS]
RANK_CAP = 255  # ranks the tokenizer hands out; a model clamps them to its own table


@dataclass
class EncodedRequest:
    prefix_ids: list[int]
    segments: list[int]        # per prefix token: 0 = context, i + 1 = question i
    slot_positions: list[int]  # position id of each slot
    allowed: list[list[int]]   # answer classes per slot
    option_ids: list[list[list[int]]] = field(default_factory=list)  # per slot, per option: token ids
    numbers: list[int] = field(default_factory=list)  # per prefix token: rank of its number (0 = none)
    links: list[int] = field(default_factory=list)    # per prefix token: names of its sentence, a bit mask
    option_starts: list[list[int]] = field(default_factory=list)  # per slot, per option: its first prefix index

    @property
    def n_slots(self) -> int:
        return len(self.slot_positions)


class DecisionTokenizer:
    def __init__(self, path: str | Path, max_length: int = 512, noun_names: bool = False,
                 reading_notes: bool | int = False):
        self.path = Path(path)
        self.noun_names = noun_names  # names after "the" link sentences too (engine/names.py)
        self.reading_notes = reading_notes  # readings compared with their limits, in words, by these rules (engine/notes.py)
        self.tok = Tokenizer.from_file(str(path))
        self.tok.no_padding()
        self.tok.no_truncation()
        self.max_length = max_length
        ids = {t: self.tok.token_to_id(t) for t in ("[CLS]", "[SEP]", "[MASK]", "[PAD]")}
        missing = [t for t, i in ids.items() if i is None]
        if missing:
            raise ValueError(f"{path}: tokenizer lacks special tokens {missing}")
        self.cls, self.sep, self.mask, self.pad = (ids[t] for t in ("[CLS]", "[SEP]", "[MASK]", "[PAD]"))
        self.markers = [self.tok.token_to_id(f"[unused{i + 1}]") for i in range(MAX_QUESTIONS)]
        self.labels = [[self.tok.token_to_id(t) for t in ("(", letter, ")")] for letter in OPTION_LABELS]
        self.vocab_size = self.tok.get_vocab_size()

    def word_id(self, word: str) -> int:
        return self.tok.token_to_id(word)

    def encode(self, context: str, questions: list[Question], truncate: bool = False) -> EncodedRequest:
        return self.encode_batch([(context, questions)], truncate)[0]

    def encode_batch(self, requests: list[tuple[str, list[Question]]], truncate: bool = False,
                     notes: bool | int | None = None) -> list[EncodedRequest]:
        raw = requests
        if rules := int(self.reading_notes if notes is None else notes):
            requests = [(annotate(context, [q.text for q in questions], rules), questions)
                        for context, questions in requests]
        texts = []
        for context, questions in requests:
            texts.append(context)
            for q in questions:
                texts.append(q.text)
                texts.extend(q.options)
        encodings = self.tok.encode_batch(texts, add_special_tokens=False)
        pieces = iter(encodings)
        out, first = [], 0
        for r, (context, questions) in enumerate(requests):
            n_texts = 1 + sum(1 + len(q.options) for q in questions)
            mine = encodings[first:first + n_texts]
            offsets = [e.offsets for e in mine]
            ranks = iter(token_ranks(texts[first:first + n_texts], offsets, RANK_CAP))
            links = iter(token_links(texts[first:first + n_texts], offsets, self.noun_names))
            first += n_texts
            ctx, ctx_ranks, ctx_links = next(pieces).ids, next(ranks), next(links)
            qs, q_ranks, q_links, options, starts = [], [], [], [], []
            for q in questions:
                ids, nums, names = list(next(pieces).ids), list(next(ranks)), list(next(links))
                opts = [next(pieces).ids for _ in q.options]
                starts.append([])
                for k, o in enumerate(opts):  # "... (a) manual (b) automatic"
                    starts[-1].append(len(ids) + len(self.labels[k]))  # within the question, for now
                    ids += self.labels[k] + o
                    nums += [0] * len(self.labels[k]) + next(ranks)
                    names += [0] * len(self.labels[k]) + next(links)
                qs.append(ids)
                q_ranks.append(nums)
                q_links.append(names)
                options.append(opts)
            q_len = sum(len(q) + 1 for q in qs) + 1
            budget = self.max_length - 2 - q_len
            if budget < 1:
                raise DecisionInputError(
                    f"the questions alone take {q_len} tokens of the model's {self.max_length}-token window; "
                    "ask fewer questions or shorten their text and options", field="questions")
            if len(ctx) > budget and context != raw[r][0]:
                # the notes made it too long: the context as written, without them
                out.extend(self.encode_batch([raw[r]], truncate, notes=False))
                continue
            if len(ctx) > budget:
                if not truncate:
                    raise DecisionInputError(
                        f"context is {len(ctx)} tokens but the model's window leaves room for "
                        f"{max(budget, 0)} (window {self.max_length}, questions take {q_len}); "
                        "shorten the context or ask for truncation", field="context")
                ctx, ctx_ranks, ctx_links = ctx[:budget], ctx_ranks[:budget], ctx_links[:budget]
            ids = [self.cls, *ctx, self.sep]
            numbers = [0, *ctx_ranks, 0]
            names = [0, *ctx_links, 0]
            segments = [0] * len(ids)
            positions = []
            for i, (q, nums, q_names) in enumerate(zip(qs, q_ranks, q_links)):
                ids.append(self.markers[i])
                starts[i] = [len(ids) + k for k in starts[i]]
                ids.extend(q)
                numbers += [0, *nums]
                names += [0, *q_names]
                segments.extend([i + 1] * (len(q) + 1))
                positions.append(len(ids))  # the position right after the question
            ids.append(self.sep)
            numbers.append(0)
            names.append(0)
            segments.append(0)
            out.append(EncodedRequest(ids, segments, positions, [answer_classes(q) for q in questions], options,
                                      numbers, names, starts))
        return out
