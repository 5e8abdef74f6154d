"""The block-diffusion model's two passes in ONNX Runtime, for the fp32 CPU engine.

Eager torch pays for every op it launches: a batch-1 block pass is about 130 ops, most of
them small, and takes several times the time its weights take to read. ONNX Runtime runs the
same graph from one call, with its own fusions (docs/BENCHMARKS.md measures the two side by
side). `OnnxPasses` exports the model's prefix and block passes with torch's exporter when
the engine starts (never on a request), checks that ONNX Runtime's outputs agree with the
torch model's on a probe batch, and then stands in for the model in the engine: the same
`prefix_forward` / `block_forward` / `answer_vectors`, torch tensors in and out. The torch
model stays the reference; answer vectors (an embedding lookup, and with option_context a
projection of the prefix states the exported prefix pass returns) still come from it.

fp32 only: it is the reference precision, and the CPU engine's bf16 path exists for the
CPUs where bf16 matmuls are fast in torch. Batch, prefix length and slot count are dynamic.
The number comparison term and the question links (RelativeRanks, QuestionLinks) recompute
the attention of the few rows their data selects; the exported prefix pass recomputes every
row instead (`prefix_forward(dense_rows=True)`: the same K/V, no shape that depends on the data).

Exporting takes seconds (most of it the exporter's own work, whatever the model's size), so
the graphs are kept in a cache folder (`DECIDER_CACHE_DIR`, default ~/.cache/decider) under a
key of the weights, the config, the model's code and the versions of torch and onnxruntime:
a server that restarts with the same checkpoint loads them. The four most recently used models
are kept.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import logging
import os
import shutil
import time
import warnings
from pathlib import Path

import torch
from torch import nn

from decider.engine.model import BlockDiffusionModel, PrefixKV

log = logging.getLogger(__name__)

AGREEMENT = 1e-3  # largest |logit| difference to the torch model on the probe batch (fp32: ~1e-5)
KEEP_GRAPHS = 4  # exported models kept in the cache folder, most recently used first
GRAPH_VERSION = 1  # bump when what is exported changes outside the files graph_key reads


def cache_dir() -> Path:
    """Where exported graphs are kept: $DECIDER_CACHE_DIR/onnx, default ~/.cache/decider/onnx."""
    root = os.environ.get("DECIDER_CACHE_DIR") or Path.home() / ".cache" / "decider"
    return Path(root) / "onnx"


class OnnxUnsupported(ValueError):
    """This model or setting cannot run on ONNX Runtime; the message says what to use instead."""


def available() -> bool:
    """Whether onnxruntime and torch's ONNX exporter (onnxscript) are installed."""
    try:
        import onnxruntime  # noqa: F401
        import onnxscript  # noqa: F401
    except ImportError:
        return False
    return True


def graph_key(model: BlockDiffusionModel) -> str:
    """sha256 of the model's weights and config, of the code its passes run (the model, the
    torch block attention and the wrappers here) and of the versions that export and run them."""
    import onnxruntime

    from decider.engine import model as model_code
    from decider.kernels.block_attention import naive

    h = hashlib.sha256(json.dumps([model.cfg.model_dump(), torch.__version__, onnxruntime.__version__,
                                   GRAPH_VERSION], sort_keys=True, default=str).encode())
    for path in (model_code.__file__, naive.__file__, __file__):
        h.update(Path(path).read_bytes())
    for name, t in sorted(model.state_dict().items()):
        h.update(name.encode())
        h.update(t.detach().contiguous().view(torch.uint8).numpy().tobytes())
    return h.hexdigest()[:32]


def unsupported(model: nn.Module) -> str | None:
    """Why `model` cannot run on ONNX Runtime (what to use instead), or None where it can: an
    fp32 CPU BlockDiffusionModel."""
    if not available():
        return ("runtime 'onnxruntime' needs the onnxruntime and onnxscript packages "
                "(pip install onnxruntime onnxscript)")
    if type(model) is not BlockDiffusionModel:
        return f"runtime 'onnxruntime' runs decider's own model family, not {type(model).__name__}; use runtime 'torch'"
    w = model.word_embeddings.weight
    if w.device.type != "cpu" or w.dtype != torch.float32:
        return (f"runtime 'onnxruntime' runs fp32 on a CPU; the model is {w.dtype} on {w.device.type} "
                "(use precision 'fp32' and device 'cpu', or runtime 'torch')")
    return None


def check_supported(model: nn.Module) -> None:
    """Raise OnnxUnsupported (saying what to use instead) unless `model` can run on ONNX Runtime."""
    reason = unsupported(model)
    if reason:
        raise OnnxUnsupported(reason)


class _PrefixPass(nn.Module):
    def __init__(self, model: BlockDiffusionModel):
        super().__init__()
        self.model = model

    def forward(self, ids, valid, segments, numbers, links):
        kv = self.model.prefix_forward(ids, valid, segments, numbers, links, dense_rows=True)
        return (*kv.k, *kv.v) if kv.states is None else (*kv.k, *kv.v, kv.states)


class _BlockPass(nn.Module):
    def __init__(self, model: BlockDiffusionModel):
        super().__init__()
        self.model = model

    def forward(self, answers, positions, slot_valid, choices, prefix_valid, kv):
        n = self.model.cfg.n_layers
        return self.model.block_forward(answers, positions, slot_valid,
                                        PrefixKV(list(kv[:n]), list(kv[n:]), prefix_valid), choices)


def _probe(model: BlockDiffusionModel, B: int = 2, L: int = 9, S: int = 3) -> tuple[tuple, tuple]:
    """Inputs of both passes for a small padded batch (sizes above 1, so that the exporter keeps
    every dimension dynamic) and the torch model's outputs on them."""
    cfg, g = model.cfg, torch.Generator().manual_seed(0)
    ids = torch.randint(1000, cfg.vocab_size, (B, L), generator=g)
    valid = torch.ones(B, L, dtype=torch.bool)
    valid[1, L - 3:] = False
    segments = torch.zeros(B, L, dtype=torch.long)
    segments[:, L // 2:] = 1
    numbers = torch.zeros(B, L, dtype=torch.long)
    numbers[:, 2] = 1
    numbers[0, 4] = 2
    links = torch.zeros(B, L, dtype=torch.long)  # a name in row 0's question and in one sentence
    links[0, 1:3] = links[0, L // 2:] = 1
    links[1, 3] = 2
    prefix_in = (ids, valid, segments, numbers, links)
    answers = torch.full((B, S), model.mask_token)
    answers[0, 0] = 0
    positions = torch.arange(L, L + S).repeat(B, 1)
    slot_valid = torch.ones(B, S, dtype=torch.bool)
    slot_valid[1, -1] = False
    option_ids = torch.randint(1000, cfg.vocab_size, (B, S, cfg.n_answers - 2, 2), generator=g)
    option_len = torch.ones(B, S, cfg.n_answers - 2, dtype=torch.long)
    option_start = torch.randint(1, L - 2, (B, S, cfg.n_answers - 2), generator=g)
    with torch.no_grad():
        kv = model.prefix_forward(*prefix_in)
        choices = model.answer_vectors(option_ids, option_len, option_start, kv)
    return prefix_in, (answers, positions, slot_valid, choices, valid, (*kv.k, *kv.v))


class OnnxPasses:
    """The engine's model on ONNX Runtime (see the module docstring). `threads`: ONNX Runtime's
    intra-op threads (default torch's)."""

    def __init__(self, model: BlockDiffusionModel, threads: int | None = None):
        check_supported(model)
        t0 = time.perf_counter()
        self.reference = model.eval()
        self.cfg = model.cfg
        prefix_in, block_in = _probe(model)
        self._folder = cache_dir() / graph_key(model)
        with _exclusive(self._folder):  # processes starting together (batch workers) export once
            graphs = self._cached()
            self.from_cache = graphs is not None
            try:
                self._start(*(graphs or self._export_both(model, prefix_in, block_in)), threads, prefix_in, block_in)
            except Exception:
                if not self.from_cache:
                    raise
                log.warning("cached ONNX graphs in %s failed to load or to agree; exporting again", self._folder)
                self.from_cache = False
                self._start(*self._export_both(model, prefix_in, block_in), threads, prefix_in, block_in)
        self.build_s = time.perf_counter() - t0
        log.info("onnxruntime passes ready in %.1f s (%s)", self.build_s, "cached" if self.from_cache else "exported")

    def _cached(self) -> tuple[bytes, bytes] | None:
        """The two passes' graphs from the cache folder, or None."""
        paths = self._folder / "prefix.onnx", self._folder / "block.onnx"
        if not all(p.is_file() for p in paths):
            return None
        os.utime(self._folder)  # recently used: pruned last
        return paths[0].read_bytes(), paths[1].read_bytes()

    def _export_both(self, model: BlockDiffusionModel, prefix_in: tuple, block_in: tuple) -> tuple[bytes, bytes]:
        """Export the two passes and keep them in the cache folder."""
        B, L, S = (torch.export.Dim(n, min=1, max=m) for n, m in (("B", 4096), ("L", self.cfg.max_position),
                                                                   ("S", self.cfg.max_questions)))
        graphs = (self._export(_PrefixPass(model), prefix_in, ({0: B, 1: L},) * 5),
                  self._export(_BlockPass(model), block_in,
                               ({0: B, 1: S}, {0: B, 1: S}, {0: B, 1: S}, {0: B, 1: S}, {0: B, 1: L},
                                ({0: B, 2: L},) * (2 * self.cfg.n_layers))))
        try:  # written whole, then renamed: a reader never sees half a graph
            self._folder.mkdir(parents=True, exist_ok=True)
            for name, graph in zip(("prefix", "block"), graphs):
                tmp = self._folder / f"{name}.{os.getpid()}.tmp"
                tmp.write_bytes(graph)
                tmp.replace(self._folder / f"{name}.onnx")
            _prune(self._folder.parent)
        except OSError as e:  # a read-only home: export again next time
            log.warning("could not cache the exported ONNX graphs in %s: %s", self._folder, e)
        return graphs

    def _start(self, prefix_graph: bytes, block_graph: bytes, threads: int | None, prefix_in: tuple,
               block_in: tuple) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or torch.get_num_threads()
        options.inter_op_num_threads = 1
        # the engine's own torch ops run between passes on torch's threads: ONNX Runtime's must
        # not spin on the same cores meanwhile
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        cpu = ["CPUExecutionProvider"]
        self._prefix = ort.InferenceSession(prefix_graph, options, providers=cpu)
        self._block = ort.InferenceSession(block_graph, options, providers=cpu)
        self._prefix_names = [i.name for i in self._prefix.get_inputs()]
        self._block_names = [i.name for i in self._block.get_inputs()]
        self._check(prefix_in, block_in)

    @staticmethod
    def _export(module: nn.Module, inputs: tuple, shapes: tuple) -> bytes:
        # the exporter reports its progress on stdout and warns about its own internals (packages
        # it could export ops of, such as torchvision) through warnings and torch's loggers
        exporter_log = logging.getLogger("torch.onnx")
        level = exporter_log.level
        exporter_log.setLevel(logging.ERROR)
        try:
            with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                program = torch.onnx.export(module, inputs, dynamo=True, dynamic_shapes=shapes, optimize=True,
                                            verbose=False)
        finally:
            exporter_log.setLevel(level)
        buf = io.BytesIO()
        program.save(buf)
        return buf.getvalue()

    def _check(self, prefix_in: tuple, block_in: tuple) -> None:
        """Both passes against the torch model on the probe batch (padding included)."""
        with torch.no_grad():
            kv = self.reference.prefix_forward(*prefix_in)
            ours = self.prefix_forward(*prefix_in)
            answers, positions, slot_valid, choices = block_in[:4]
            want = self.reference.block_forward(answers, positions, slot_valid, kv, choices)
            got = self.block_forward(answers, positions, slot_valid, ours, choices)
        keep = prefix_in[1][:, None, :, None]  # padded positions' K/V are never read
        diff = max(float(((a - b) * keep).abs().max()) for a, b in zip((*kv.k, *kv.v), (*ours.k, *ours.v)))
        if kv.states is not None:
            diff = max(diff, float(((kv.states - ours.states) * keep[:, 0]).abs().max()))
        diff = max(diff, float((want - got).abs().max()))
        if diff > AGREEMENT:
            raise OnnxUnsupported(f"runtime 'onnxruntime': the exported passes differ from the torch model by "
                                  f"{diff:.2g} on the probe batch (allowed {AGREEMENT}); use runtime 'torch'")

    # -- the model's interface, as the engine calls it
    @property
    def mask_token(self) -> int:
        return self.reference.mask_token

    def parameters(self):
        """The reference model's: what callers read the engine's weights (dtype, device) from."""
        return self.reference.parameters()

    def answer_vectors(self, option_ids: torch.Tensor, option_len: torch.Tensor,
                       option_start: torch.Tensor | None = None, prefix: PrefixKV | None = None) -> torch.Tensor:
        return self.reference.answer_vectors(option_ids, option_len, option_start, prefix)

    def prefix_forward(self, ids: torch.Tensor, valid: torch.Tensor, segments: torch.Tensor,
                       numbers: torch.Tensor | None = None, links: torch.Tensor | None = None) -> PrefixKV:
        inputs = {"ids": ids, "valid": valid, "segments": segments,
                  "numbers": torch.zeros_like(ids) if numbers is None else numbers,
                  "links": torch.zeros_like(ids) if links is None else links}
        out = [torch.from_numpy(a) for a in self._prefix.run(None, _feeds(self._prefix_names, inputs))]
        n = self.cfg.n_layers
        return PrefixKV(out[:n], out[n:2 * n], valid, states=out[2 * n] if len(out) > 2 * n else None)

    def block_forward(self, answers: torch.Tensor, positions: torch.Tensor, slot_valid: torch.Tensor,
                      prefix: PrefixKV, choices: torch.Tensor) -> torch.Tensor:
        inputs = {"answers": answers, "positions": positions, "slot_valid": slot_valid, "choices": choices,
                  "prefix_valid": prefix.valid, **{f"kv_{i}": t for i, t in enumerate((*prefix.k, *prefix.v))}}
        return torch.from_numpy(self._block.run(None, _feeds(self._block_names, inputs))[0])


@contextlib.contextmanager
def _exclusive(folder: Path):
    """Hold an exclusive lock on `folder` (created) while exporting or reading its graphs; where
    the cache cannot be written, go on without one."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = open(folder / ".lock", "w")  # noqa: SIM115 (held across the yield)
    except OSError:
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _prune(root: Path) -> None:
    """Keep the KEEP_GRAPHS most recently used exports (each holds a copy of the weights)."""
    folders = sorted((f for f in root.iterdir() if f.is_dir()), key=lambda f: f.stat().st_mtime, reverse=True)
    for old in folders[KEEP_GRAPHS:]:
        shutil.rmtree(old, ignore_errors=True)


def _feeds(names: list[str], inputs: dict[str, torch.Tensor]) -> dict:
    """The graph's inputs by name (the exporter drops inputs a model does not read, such as
    `numbers` without number ranks), as numpy arrays sharing the tensors' memory."""
    return {name: inputs[name].contiguous().numpy() for name in names}
