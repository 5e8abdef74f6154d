"""EngineCore: continuous batching of joint-decision requests over one model.

    core.add_request(request)  -> request id (validated, encoded, constraints checked)
    core.step()                -> results of the requests that finished in this step
    core.abort(request_id)     -> drop a request between steps

One step = schedule -> run the model -> update from the output:
  1. admit waiting requests: look their prefixes up in the prefix cache, run one prefix
     pass per bucket of similar lengths for the misses, and group them into a cohort;
  2. one block forward per cohort (all its requests' slots at once);
  3. per request, commit slots by the decode rule, propagate declared constraints
     (full lookahead), force slots left with one answer, and finish the request when no
     slot is open.

A cohort keeps its prefix K/V padded to its own longest prefix, so requests of different
lengths never pad to the longest in the whole engine, and a request joining never copies
the others' K/V. Rows of finished requests are compacted away once half a cohort is done.
Each step settles at least one open slot of every running request (or declares the rest
undecided), so a request takes at most as many passes as it has questions.

This module never imports grpc; the server and batch mode drive the same core.
"""

from __future__ import annotations

import copy
import itertools
import time
from collections import OrderedDict
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import torch
import torch.nn.functional as F
from pydantic import BaseModel, Field

from decider.engine.checkpoint import Checkpoint, load_checkpoint
from decider.engine.constraints import ConstraintSet
from decider.engine.decode import Batch
from decider.engine.device import (Precision, autocast_for, bf16_rows_are_batch_invariant, resolve_device,
                                   serving_precision)
from decider.engine.model import Layer, PackedPrefixKV, PrefixKV
from decider.engine import onnx_passes
from decider.engine.packed import fuse_qkv, pack_linears
from decider.engine.prefix_cache import PrefixCache, prefix_key
from decider.engine.reader import cast_reader
from decider.engine.request import (DecisionInputError, DecisionRequest, DecisionResult, Question, SlotAnswer,
                                    Timings, answer_classes, as_request, joint)
from decider.engine.tokenizer import EncodedRequest
from decider.kernels import dispatch


class EngineConfig(BaseModel):
    max_running: int = Field(64, ge=1, description="requests decoded together; more wait (bounds memory "
                                                   "and the latency one step adds to everyone)")
    prefix_cache_bytes: int = Field(256 * 2**20, ge=0, description="prefix K/V kept for repeated requests; "
                                    "a 250-token prefix of decider-small takes about 4.6 MB in fp32")
    bucket_ratio: float = Field(1.25, ge=1.0, description="a prefix pass pads to at most this times the "
                                                          "shortest prefix in it")
    max_prefix_tokens: int = Field(16384, ge=512, description="padded tokens per prefix pass (memory)")
    precision: Precision = Field("auto", description="'auto': bf16 on CUDA and on CPUs whose bf16 is fast "
                                 "(engine.device.serving_precision), else fp32; 'fp32' or 'bf16' to force one")
    block_pass: Literal["auto", "batched", "per_request"] = Field(
        "auto", description="bf16 on a CPU: 'per_request' runs each request's block pass alone, at its own slot "
                            "count, so its bits never depend on its batch even where bf16 matmuls sum a row in "
                            "an order that does (engine.device.bf16_rows_are_batch_invariant); 'batched' one "
                            "pass for the cohort; 'auto' per request only on such CPUs. Elsewhere, and with the "
                            "Triton kernels, batched")
    prefix_pad: int = Field(32, ge=0, description="bf16 on a CPU: a request's prefix pass runs at its length "
                            "rounded up to a multiple of this, the rest masked, so a few kernel shapes serve every "
                            "length (oneDNN builds a bf16 kernel for every new row count it meets, 0.7 ms a layer "
                            "on an Intel AMX CPU: docs/BENCHMARKS.md); the rounding depends on the request alone, "
                            "so its bits stay its own. 0: its own length")
    packed_weights: bool = Field(True, description="bf16 on a CPU: oneDNN packs the linear layers' weights once "
                                 "(engine/packed.py; the same bits as unpacked, faster at small batches)")
    runtime: Literal["auto", "torch", "onnxruntime"] = Field(
        "auto", description="what runs the model's passes. 'auto': ONNX Runtime where the engine runs fp32 on a "
                            "CPU and the model exports (its passes are exported when the engine starts, "
                            "engine/onnx_passes.py), else torch; 'torch' or 'onnxruntime' (fp32 on a CPU) to "
                            "force one")
    prefix_attention: Literal["auto", "fp32", "bf16"] = Field(
        "auto", description="what the prefix pass's attention runs in on an engine whose precision is bf16. "
                            "'auto': bf16 on a CPU (its prefix pass 2-10% faster there, answers alike: "
                            "docs/BENCHMARKS.md), fp32 elsewhere; 'fp32' or 'bf16' to force one. The "
                            "block pass's attention and the rows the number and name terms recompute stay fp32")
    option_reader: bool = Field(True, description="score the options of categorical questions with the "
                                "checkpoint's option reader where it has one (engine/reader.py: a frozen sentence "
                                "encoder, about a prefix pass more per request that asks one); its weight and the "
                                "temperature were fitted together, so answers and confidences are as measured only "
                                "with it on")
    reader_cache: int = Field(4096, ge=0, description="requests whose option scores are kept for when they come again")
    parallel_rest: Literal["one", "all"] = Field(
        "one", description="the parallel policy, a pass where no open slot reaches the threshold: 'one' commits the "
                           "most confident slot and predicts the rest again in its light, one per pass; 'all' "
                           "commits every open slot at once, so that an unsure answer never steers the others: "
                           "2-6x fewer passes at the same accuracy per answer, more answers that contradict a "
                           "rule of the context (docs/BENCHMARKS.md); its confidences want a temperature fitted "
                           "under it (decider calibrate --parallel-rest all)")


@dataclass
class Slot:
    """Decode state of one question."""

    classes: list[int]             # answer classes of the question, in its answers' order
    domain: set[int]               # classes still allowed (constraints prune it)
    answer: int | None = None      # committed class
    result: SlotAnswer | None = None


@dataclass
class RequestState:
    id: str
    request: DecisionRequest
    enc: EncodedRequest
    constraints: ConstraintSet
    slots: list[Slot]
    arrival: float
    key: bytes = b""
    prefix: PrefixKV | None = None  # this request's own (1, H, L, D) K/V
    prefix_cached: bool = False
    passes: int = 0
    admitted: float = 0.0
    prefix_ms: float = 0.0
    done: bool = False

    @property
    def plain(self) -> bool:
        """No constraints, no min_confidence, no max_steps: the commit kernel decides alone."""
        o = self.request.options
        return not self.constraints and o.min_confidence is None and o.max_steps is None

    @property
    def open(self) -> list[int]:
        return [i for i, s in enumerate(self.slots) if s.result is None]


@dataclass
class Cohort:
    """Requests admitted together: padded prefix K/V and per-slot tensors, rows fixed."""

    states: list[RequestState]
    prefix: PrefixKV | PackedPrefixKV  # padded (torch path) or packed (Triton path)
    positions: torch.Tensor    # (B, S)
    slot_valid: torch.Tensor   # (B, S)
    choices: torch.Tensor      # (B, S, C, dim) answer vectors
    live: list[bool] = field(default_factory=list)
    prior: torch.Tensor | None = None  # (B, S, C) added to every pass's logits: the option reader's weighted scores


class EngineCore:
    def __init__(self, ckpt: Checkpoint, config: EngineConfig | None = None):
        self.ckpt, self.model, self.tok = ckpt, ckpt.model.eval(), ckpt.tokenizer
        self.config = config or EngineConfig()
        self.device = next(self.model.parameters()).device
        self.n_classes = self.model.cfg.n_answers
        self.cache = PrefixCache(self.config.prefix_cache_bytes)
        self.temperature = ckpt.temperature  # fitted on held-out sets; the eval sets 1.0 to fit it
        self.backend = dispatch.backend_name(self.device)
        self.precision = serving_precision(self.device, self.config.precision)
        if self.config.runtime == "onnxruntime" and self.config.precision == "auto":
            self.precision = "fp32"  # what ONNX Runtime runs
        # bf16 on a CPU: the weights are cast once (no autocast), and every request's prefix pass
        # and block attention run at its own length, so its bits never depend on its batch
        self.exact = self.device.type == "cpu" and self.precision == "bf16"
        block_pass = self.config.block_pass
        if block_pass == "auto":
            block_pass = "batched" if not self.exact or bf16_rows_are_batch_invariant() else "per_request"
        # the Triton kernels (a GPU's path, or their interpreter in tests) read the cohort's packed prefix
        self.block_alone = self.exact and block_pass == "per_request" and self.backend == "torch"
        self.tail = self.block_alone and getattr(self.model, "prefix_tail", False)  # PrefixKV.tail
        self.packed_layers = 0
        if self.exact:
            self.model = copy.deepcopy(self.model).to(torch.bfloat16)
            if self.config.packed_weights:
                fuse_qkv(self.model)
                self.packed_layers = pack_linears(self.model)
        self.prefix_attention = self._prefix_attention()
        self.runtime_note = ""  # why 'auto' fell back to torch, when it did
        self.runtime = self._start_runtime()
        # the option reader (engine/reader.py), where the checkpoint has one with a fitted weight
        self.reader = None
        if self.config.option_reader and ckpt.reader is not None and ckpt.reader_weight > 0:
            self.reader = ckpt.reader
            if self.exact:  # bf16 like the model, sharing its word table where the checkpoint's two share theirs
                shared = ckpt.reader.word_embeddings is ckpt.model.word_embeddings
                self.reader = cast_reader(ckpt.reader, torch.bfloat16, self.model.word_embeddings if shared else None)
                if self.config.packed_weights:
                    fuse_qkv(self.reader)
                    pack_linears(self.reader)
        self.reader_scores: OrderedDict[tuple, list[list[float]]] = OrderedDict()
        self.waiting: list[RequestState] = []
        self.cohorts: list[Cohort] = []
        self.by_id: dict[str, RequestState] = {}
        self._ids = itertools.count()
        self.steps = 0

    def _prefix_attention(self) -> str:
        """Set the precision of the prefix pass's attention (Layer.attention_dtype) on this engine's
        own copy of the model; returns it."""
        asked = self.config.prefix_attention
        if asked == "bf16" and self.precision != "bf16":
            raise ValueError(f"prefix_attention 'bf16' needs an engine that runs bf16; this one runs "
                             f"{self.precision} (set precision 'bf16', or prefix_attention 'auto')")
        has_layers = any(isinstance(m, Layer) for m in self.model.modules())  # a diffusion LM's are its own
        if not has_layers or not (asked == "bf16" or (asked == "auto" and self.exact)):
            return "fp32"
        if not self.exact:  # autocast on the checkpoint's own model: give the engine a copy of its own
            self.model = copy.deepcopy(self.model)
        for m in self.model.modules():
            if isinstance(m, Layer):
                m.attention_dtype = torch.bfloat16
        return "bf16"

    def _start_runtime(self) -> str:
        """ONNX Runtime where it was asked for, or where 'auto' finds the engine running fp32 on a
        CPU with a model that exports (faster there, docs/BENCHMARKS.md); torch otherwise."""
        asked = self.config.runtime
        if asked == "torch" or (asked == "auto" and not (self.device.type == "cpu" and self.precision == "fp32"
                                                         and self.backend == "torch")):
            return "torch"
        if self.backend != "torch":
            raise onnx_passes.OnnxUnsupported(f"runtime 'onnxruntime' replaces the torch kernels, not the "
                                              f"{self.backend} ones (DECIDER_KERNELS); use runtime 'torch'")
        try:
            self.model = onnx_passes.OnnxPasses(self.model)
        except Exception as e:  # OnnxUnsupported says what to use instead
            if asked == "onnxruntime":
                raise
            self.runtime_note = f"runtime auto chose torch: {e}"
            return "torch"
        return "onnxruntime"

    def _autocast(self):
        """bf16 autocast where the engine runs bf16 on fp32 weights (CUDA); a no-op otherwise."""
        return nullcontext() if self.exact else autocast_for(self.device, self.precision)

    # -- requests in and out
    def add_request(self, request: DecisionRequest | dict, request_id: str | None = None,
                    arrival: float | None = None) -> str:
        """Validate and queue a request; raises DecisionInputError saying what to fix."""
        if not isinstance(request, DecisionRequest):
            request = DecisionRequest.parse(request)
        rid = request_id or request.request_id or f"req-{next(self._ids)}"
        if rid in self.by_id:
            raise DecisionInputError(f"request id '{rid}' is already in flight; ids must be unique",
                                     field="request_id")
        questions = request.to_questions()
        constraints = ConstraintSet.compile(request.constraints, questions)
        slots = [Slot(answer_classes(q), set(answer_classes(q))) for q in questions]
        if constraints:
            for slot, dom in zip(slots, constraints.check([s.domain for s in slots])):
                slot.domain = dom
        enc = self.tok.encode(request.context, questions, truncate=request.options.truncate)
        state = RequestState(rid, request, enc, constraints, slots, arrival or time.perf_counter(),
                             key=prefix_key(enc.prefix_ids, enc.segments, enc.numbers, enc.links))
        self.waiting.append(state)
        self.by_id[rid] = state
        return rid

    def abort(self, request_id: str) -> bool:
        """Drop a request (a cancelled call); its row stops counting at the next step."""
        state = self.by_id.pop(request_id, None)
        if state is None:
            return False
        state.done = True
        if state in self.waiting:
            self.waiting.remove(state)
        return True

    def has_unfinished(self) -> bool:
        return bool(self.by_id)

    @property
    def num_waiting(self) -> int:
        return len(self.waiting)

    @property
    def num_running(self) -> int:
        return sum(c.live.count(True) for c in self.cohorts)

    def stats(self) -> dict:
        return {"waiting": self.num_waiting, "running": self.num_running, "steps": self.steps,
                "cohorts": len(self.cohorts), "prefix_cache": self.cache.stats()}

    # -- the step
    @torch.no_grad()
    def step(self) -> list[DecisionResult]:
        finished: list[DecisionResult] = []
        self._admit(finished)
        for cohort in self.cohorts:
            self._denoise(cohort, finished)
        self._compact()
        self.steps += 1
        return finished

    def decide(self, requests: list[DecisionRequest | dict]) -> list[DecisionResult]:
        """In-process convenience: decide a list of requests, results in the same order."""
        ids = [self.add_request(r) for r in requests]
        done: dict[str, DecisionResult] = {}
        while self.has_unfinished():
            for r in self.step():
                done[r.request_id] = r
        return [done[i] for i in ids]

    def warm_up(self) -> int:
        """Decide requests of every shape this engine's passes can meet, so that the CPU's kernels
        for them are built now (at start-up), never on a request: on a bf16 CPU engine whose
        prefix passes are padded (`prefix_pad`) and whose window is at most WARM_UP_WINDOW tokens
        (decider-small's 512: 16 lengths), one request per padded length and one per question
        count (each count is a block pass shape); elsewhere one request. The prefix cache and the
        option reader's are left as they were. Returns how many requests ran."""
        most, pad, window = len(WARM_UP_QUESTIONS), self.config.prefix_pad, self.tok.max_length
        if self.exact and pad and window <= WARM_UP_WINDOW:
            requests = [_warm_up_request(self.tok, 1, window, n) for n in range(1, most)]
            for m in range(pad, window + pad, pad):  # as many questions as the length holds
                requests.append(next(filter(None, (_warm_up_request(self.tok, m - pad + 1, m, n)
                                                   for n in range(most, 0, -1))), None))
        else:
            requests = [_warm_up_request(self.tok, 1, window, most)]
        requests = [r for r in requests if r]
        cache, self.cache = self.cache, PrefixCache(0)
        scores, self.reader_scores = self.reader_scores, OrderedDict()
        try:
            if requests:
                self.decide(requests)
        finally:
            self.cache, self.reader_scores = cache, scores
        return len(requests)

    # -- 1. admission: prefix passes, bucketed by length
    def _admit(self, finished: list[DecisionResult]) -> None:
        room = self.config.max_running - self.num_running
        if room <= 0 or not self.waiting:
            return
        new, self.waiting = self.waiting[:room], self.waiting[room:]
        now = time.perf_counter()
        for s in new:
            s.admitted = now
            # a slot the constraints leave with one answer is settled before any pass
            for i, slot in enumerate(s.slots):
                if len(slot.domain) == 1:
                    self._settle(s, i, next(iter(slot.domain)), [], "forced", 0)
        for s in [s for s in new if not s.open]:
            finished.append(self._finish(s))
        new = [s for s in new if s.open]
        for s in new:
            s.prefix = self.cache.get(s.key)
            s.prefix_cached = s.prefix is not None
        new.sort(key=lambda s: len(s.enc.prefix_ids))
        for bucket in self._buckets(new):
            self.cohorts.append(self._prefill(bucket))

    def _buckets(self, states: list[RequestState]):
        """Runs of sorted states whose longest prefix is within bucket_ratio of the shortest."""
        bucket: list[RequestState] = []
        for s in states:
            n = len(s.enc.prefix_ids)
            if bucket and (n > self.config.bucket_ratio * len(bucket[0].enc.prefix_ids)
                           or n * (len(bucket) + 1) > self.config.max_prefix_tokens):
                yield bucket
                bucket = []
            bucket.append(s)
        if bucket:
            yield bucket

    def _prefill(self, states: list[RequestState]) -> Cohort:
        batch = Batch.collate([s.enc for s in states], self.tok.pad, self.n_classes, self.device)
        misses = [b for b, s in enumerate(states) if s.prefix is None]
        t0 = time.perf_counter()
        with self._autocast():
            if self.exact:  # one pass per request, at a length that depends on it alone
                for b in misses:
                    states[b].prefix = self._prefix_alone(batch, b, len(states[b].enc.prefix_ids))
                # fp32 once here, not in every block pass: the block attention reads it in fp32;
                # passes request by request also get room after each prefix for the block's K/V
                room = batch.positions.shape[1] if self.tail else 0
                prefix = _stack([s.prefix for s in states], batch.valid, torch.float32, room)
                prefix.exact = True
            elif len(misses) == len(states):  # all fresh: the pass output is the cohort's buffer
                prefix = batch.prefix_forward(self.model)
            else:
                if misses:
                    rows = torch.tensor(misses, device=self.device)
                    fresh = self.model.prefix_forward(batch.ids[rows], batch.valid[rows], batch.segments[rows],
                                                      batch.numbers[rows], batch.links[rows])
                    for j, b in enumerate(misses):
                        states[b].prefix = _row(fresh, j, len(states[b].enc.prefix_ids))
                prefix = _stack([s.prefix for s in states], batch.valid)
            choices = batch.answer_vectors(self.model, prefix)
            prior = self._option_prior(states, batch.positions.shape[1])
        ms = (time.perf_counter() - t0) * 1e3
        for b, s in enumerate(states):
            if s.prefix is None:
                s.prefix = _row(prefix, b, len(s.enc.prefix_ids))
            if not s.prefix_cached:
                s.prefix_ms = ms
                self.cache.put(s.key, s.prefix)
        return Cohort(states, self._attention_prefix(states, prefix), batch.positions, batch.slot_valid, choices,
                      [True] * len(states), prior)

    def _option_prior(self, states: list[RequestState], S: int) -> torch.Tensor | None:
        """(B, S, C): the option reader's scores of every request's options, times its weight;
        None without a reader or where no request asks a categorical question. Each request's
        scores are its own (engine/reader.py packs them request by request) and kept for when it
        comes again."""
        asks = [s.request.to_questions() for s in states]
        if self.reader is None or not any(q.kind == "categorical" for qs in asks for q in qs):
            return None
        prior = torch.zeros(len(states), S, self.n_classes)
        for b, (s, qs) in enumerate(zip(states, asks)):
            key = (s.request.context, *((q.text, q.options) for q in qs))
            scores = self.reader_scores.get(key)
            if scores is None:
                scores = self.reader.option_scores(self.tok, s.request.context, qs)
                if self.config.reader_cache:
                    self.reader_scores[key] = scores
                    if len(self.reader_scores) > self.config.reader_cache:
                        self.reader_scores.popitem(last=False)
            else:
                self.reader_scores.move_to_end(key)
            for i, row in enumerate(scores):
                if row:
                    prior[b, i, 2:2 + len(row)] = torch.tensor(row) * self.ckpt.reader_weight
        return prior.to(self.device)

    def _prefix_alone(self, batch: Batch, b: int, n: int) -> PrefixKV:
        """Request b's prefix pass alone, its n tokens padded (masked) to the next multiple of
        `prefix_pad`, and its K/V cut back to n."""
        pad = self.config.prefix_pad
        m = min(-(-n // pad) * pad, self.model.cfg.max_position) if pad else n
        m = max(m, n)
        rows = [F.pad(t[b:b + 1, :n], (0, m - n), value=fill)
                for t, fill in ((batch.ids, self.tok.pad), (batch.valid, False), (batch.segments, 0),
                                (batch.numbers, 0), (batch.links, 0))]
        kv = self.model.prefix_forward(*rows)
        return kv if m == n else _row(kv, 0, n)

    def _attention_prefix(self, states: list[RequestState], padded: PrefixKV):
        """The cohort's prefix K/V in the layout the block step's attention reads."""
        if self.backend == "triton" and getattr(self.model, "packed_prefix", True):
            return PackedPrefixKV.pack([s.prefix for s in states])
        return padded

    # -- 2 and 3. one block pass, then commits and constraint propagation
    def _denoise(self, cohort: Cohort, finished: list[DecisionResult]) -> None:
        for b, s in enumerate(cohort.states):
            if cohort.live[b] and s.done:  # aborted since the last step
                cohort.live[b] = False
        if not any(cohort.live):
            return
        S = cohort.positions.shape[1]
        # per slot, built as lists and made tensors once (element writes cost microseconds each)
        answers, allowed, open_ = [], [], []               # allowed: a bitmask over answer classes
        for b, s in enumerate(cohort.states):
            pad = S - len(s.slots)
            answers.append([self.model.mask_token if x.answer is None else x.answer for x in s.slots] +
                           [self.model.mask_token] * pad)
            allowed.append([sum(1 << c for c in x.domain) for x in s.slots] + [0] * pad)
            open_.append([x.result is None and cohort.live[b] for x in s.slots] + [False] * pad)
        # above 1: one commit per pass (sequential)
        threshold = torch.tensor([s.request.options.threshold if s.request.options.policy == "parallel" else 2.0
                                  for s in cohort.states])
        answers, allowed = torch.tensor(answers), torch.tensor(allowed, dtype=torch.int32)
        open_ = torch.tensor(open_)
        with self._autocast():
            if self.block_alone:
                logits = self._block_per_request(cohort, answers.to(self.device))
            else:
                logits = self.model.block_forward(answers.to(self.device), cohort.positions, cohort.slot_valid,
                                                  cohort.prefix, cohort.choices)
        if cohort.prior is not None:
            logits = logits + cohort.prior
        to = self.device
        probs, choice, conf, commit = (t.cpu() for t in dispatch.commit(
            logits, allowed.to(to), open_.to(to), threshold.to(to), self.temperature, self.backend,
            self.config.parallel_rest == "all"))
        for b, s in enumerate(cohort.states):
            if not cohort.live[b]:
                continue
            s.passes += 1
            if s.plain:  # the kernel's commit rule is the whole rule
                rows, picks = probs[b].tolist(), choice[b].tolist()
                for i in commit[b].nonzero().flatten().tolist():
                    self._settle(s, i, picks[i], [rows[i][c] for c in s.slots[i].classes], "decided", s.passes)
            else:  # constraints, min_confidence or max_steps: commit one by one, propagating
                self._commit(s, probs[b].tolist())
            if not s.open:
                cohort.live[b] = False
                finished.append(self._finish(s))

    def _block_per_request(self, cohort: Cohort, answers: torch.Tensor) -> torch.Tensor:
        """The block pass of each live request alone, at its own slot count and prefix length:
        the same call a request alone makes, so its bits are its own in any batch, on CPUs whose
        bf16 matmuls sum a request's rows in another order among more rows (EngineConfig.block_pass)."""
        B, S = answers.shape
        logits = torch.zeros(B, S, self.n_classes, device=self.device)
        p = cohort.prefix
        for b, s in enumerate(cohort.states):
            if not cohort.live[b]:
                continue
            n, L = len(s.slots), len(s.enc.prefix_ids)
            room = n if self.tail else 0  # the block's K/V go in after the prefix's
            own = PrefixKV([k[b:b + 1, :, :L + room] for k in p.k], [v[b:b + 1, :, :L + room] for v in p.v],
                           p.valid[b:b + 1, :L], exact=True, tail=self.tail)
            logits[b, :n] = self.model.block_forward(answers[b:b + 1, :n], cohort.positions[b:b + 1, :n],
                                                     cohort.slot_valid[b:b + 1, :n], own,
                                                     cohort.choices[b:b + 1, :n])[0]
        return logits

    def _commit(self, s: RequestState, probs: list[list[float]]) -> None:
        """The decode rule on one request's slot probabilities (S, C), then propagation.

        Candidates are taken most confident first. Each is renormalised over its current
        domain (earlier commits in this step may have pruned it): the first commits if it
        reaches min_confidence, the others if they also reach the threshold (parallel) or,
        where the first does not reach it and EngineConfig.parallel_rest is 'all', if they reach
        min_confidence. If nothing can be committed, the open slots are returned undecided."""
        opts = s.request.options
        floor = opts.min_confidence or 0.0
        last = opts.max_steps is not None and s.passes >= opts.max_steps
        wanted = {i: _best(_renormalised(probs[i], s.slots[i]), s.slots[i]) for i in s.open}
        order = sorted(s.open, key=lambda i: -wanted[i][1])
        rest = (opts.policy == "parallel" and self.config.parallel_rest == "all" and bool(order)
                and wanted[order[0]][1] < opts.threshold)
        committed = 0
        for i in order:
            slot = s.slots[i]
            if slot.result is not None:  # forced by an earlier commit in this step
                continue
            if wanted[i][0] not in slot.domain and not last:
                continue  # an earlier commit ruled its answer out: predict it again next pass
            dist = _renormalised(probs[i], slot)
            best, conf = _best(dist, slot)
            if conf < floor:
                continue
            if committed and not last and not rest and (opts.policy == "sequential" or conf < opts.threshold):
                continue
            self._settle(s, i, best, dist, "decided", s.passes)
            committed += 1
            self._propagate(s)
        if committed == 0 or last:  # nothing reached min_confidence (or out of passes)
            for i in s.open:
                dist = _renormalised(probs[i], s.slots[i])
                best = max(range(len(dist)), key=lambda k: dist[k])
                s.slots[i].result = SlotAnswer(s.request.questions[i].id, "undecided", None, None, dist[best],
                                               dist if opts.return_distributions else [], s.passes)

    def _propagate(self, s: RequestState) -> None:
        if not s.constraints:
            return
        domains = s.constraints.support([slot.domain for slot in s.slots])
        assert domains is not None, "lookahead keeps every commit extendable"
        for i, (slot, dom) in enumerate(zip(s.slots, domains)):
            slot.domain = dom
            if slot.result is None and len(dom) == 1:
                self._settle(s, i, next(iter(dom)), [], "forced", s.passes)

    def _settle(self, s: RequestState, i: int, cls: int, dist: list[float], status: str, step: int) -> None:
        slot = s.slots[i]
        slot.answer, slot.domain = cls, {cls}
        k = slot.classes.index(cls)
        q = s.request.questions[i]
        if status == "forced":
            dist = [float(j == k) for j in range(len(slot.classes))]
        slot.result = SlotAnswer(q.id, status, q.to_question().choices[k], k, dist[k],
                                 dist if s.request.options.return_distributions else [], step)

    def _finish(self, s: RequestState) -> DecisionResult:
        s.done = True
        self.by_id.pop(s.id, None)
        answers = [slot.result for slot in s.slots]
        settled = [a.confidence for a in answers if a.status != "undecided"]
        now = time.perf_counter()
        timings = Timings(queue_ms=(s.admitted - s.arrival) * 1e3, prefix_ms=s.prefix_ms,
                          denoise_ms=(now - s.admitted) * 1e3 - s.prefix_ms)
        s.prefix = None
        return DecisionResult(s.id, answers, joint(settled), s.passes, s.prefix_cached, timings)

    def _compact(self) -> None:
        """Drop finished cohorts; cut the finished rows out of half-finished ones."""
        kept = []
        for c in self.cohorts:
            alive = [b for b, ok in enumerate(c.live) if ok]
            if not alive:
                continue
            if len(alive) <= len(c.live) // 2:
                rows = torch.tensor(alive, device=self.device)
                states = [c.states[b] for b in alive]
                prefix = (PackedPrefixKV.pack([s.prefix for s in states]) if isinstance(c.prefix, PackedPrefixKV)
                          else c.prefix.select(rows))
                c = Cohort(states, prefix, c.positions[rows], c.slot_valid[rows], c.choices[rows],
                           [True] * len(alive), None if c.prior is None else c.prior[rows])
            kept.append(c)
        self.cohorts = kept


def build_engine(checkpoint: str | Path | Checkpoint | None = None, *, device: str = "auto",
                 precision: Precision = "auto", **settings) -> EngineCore:
    """The one way to get an engine: load `checkpoint` (a folder; default the shipped
    decider-small) onto `device` ('auto' = CUDA when present) and wrap it in an EngineCore
    with `precision` and any other EngineConfig field (`max_running`, `prefix_cache_bytes`, ...).
    The server, batch mode, the CLI and the eval all build theirs here."""
    ckpt = checkpoint if isinstance(checkpoint, Checkpoint) else load_checkpoint(checkpoint, device=resolve_device(device))
    return EngineCore(ckpt, EngineConfig(precision=precision, **settings))


WARM_UP_WINDOW = 1024  # a longer window (a diffusion LM's) would take a request per padded length of it
WARM_UP_TEXT = ("TT-101 reads 131.5 °C against a high-temperature trip set at 128 °C; when K-101 trips, K-102 "
                "starts and line 3 goes to MANUAL. Pump P-7B feeds tank T-4, which is full at 92 %. Clause 9: either "
                "party may end this agreement on 60 days' written notice, subject to clause 4.2. ")
WARM_UP_QUESTIONS = [Question(f"q{i}", text, "categorical" if options else "boolean", options)
                     for i, (text, options) in enumerate([
                         ("Has K-101 tripped?", ()), ("What mode is line 3 in?", ("AUTO", "MANUAL", "CASCADE")),
                         ("Is TT-101 over its trip?", ()), ("Which pump feeds T-4?", ("P-7A", "P-7B")),
                         ("Is tank T-4 full?", ()), ("How much notice ends the agreement?", ("30 days", "60 days", "none")),
                         ("Is K-102 running?", ()),
                         ("Which clause limits clause 9?", ("clause 4.2", "clause 7", "none", "both"))])]


def _warm_up_request(tok, shortest: int, longest: int, n_questions: int) -> DecisionRequest | None:
    """A request of the first `n_questions` warm-up questions whose prefix has `shortest` to
    `longest` tokens, its context cut from WARM_UP_TEXT repeated; None where none has."""
    questions = WARM_UP_QUESTIONS[:n_questions]
    words = (WARM_UP_TEXT * 12).split()
    def length(k: int) -> int:  # grows with k by about the same step per word
        try:
            return len(tok.encode(" ".join(words[:k]), questions, truncate=True).prefix_ids)
        except DecisionInputError:  # over a window that truncate does not cut (a diffusion LM's)
            return 10**9
    k, step = 1, None
    for _ in range(8):  # secant steps towards the middle of the range (one or two encodes)
        n = length(k)
        if shortest <= n <= longest:
            request = as_request(" ".join(words[:k]), questions)
            request.options.truncate = True  # as measured: the last length is the window's own
            return request
        if k == 1 and n > longest:
            return None
        step = step or max((length(21) - length(1)) / 20, 1.0)
        k = min(max(1, k + round(((shortest + longest) / 2 - n) / step)), len(words))
    return None


def _best(dist: list[float], slot: Slot) -> tuple[int, float]:
    """The most probable class of the slot's domain (ties: the lower class) and its probability."""
    best = max(slot.domain, key=lambda c: (dist[slot.classes.index(c)], -c))
    return best, dist[slot.classes.index(best)]


def _renormalised(probs: list[float], slot: Slot) -> list[float]:
    """The slot's probabilities over its question's answers, zero outside its domain, summing to 1."""
    ps = [probs[c] if c in slot.domain else 0.0 for c in slot.classes]
    total = sum(ps)
    if total <= 0.0:  # underflow: spread evenly over the domain
        return [1.0 / len(slot.domain) if c in slot.domain else 0.0 for c in slot.classes]
    return [p / total for p in ps]


def _row(kv: PrefixKV, b: int, n: int) -> PrefixKV:
    """Row b of a padded prefix batch, cut to its n real tokens, in memory of its own."""
    return PrefixKV([k[b:b + 1, :, :n].clone() for k in kv.k], [v[b:b + 1, :, :n].clone() for v in kv.v],
                    kv.valid[b:b + 1, :n].clone(), states=None if kv.states is None else kv.states[b:b + 1, :n].clone())


def _stack(kvs: list[PrefixKV], valid: torch.Tensor, dtype: torch.dtype | None = None, room: int = 0) -> PrefixKV:
    """Per-request (1, H, L_i, D) K/V padded into one (B, H, L + room, D) batch (in `dtype`, default
    theirs), and their (1, L_i, dim) states into (B, L, dim) where the model keeps them."""
    B, L = valid.shape
    def pad(ts, dim=2, dtype=dtype, room=room):
        first = ts[0]
        shape = list(first.shape)
        shape[0], shape[dim] = B, L + room
        out = first.new_zeros(shape, dtype=dtype or first.dtype)
        for b, t in enumerate(ts):
            out[b].narrow(dim - 1, 0, t.shape[dim]).copy_(t[0])
        return out
    n = len(kvs[0].k)
    states = None if kvs[0].states is None else pad([kv.states for kv in kvs], 1, None, 0)
    return PrefixKV([pad([kv.k[i] for kv in kvs]) for i in range(n)],
                    [pad([kv.v[i] for kv in kvs]) for i in range(n)], valid, states=states)
