"""The `decider` command line: serve, decide, info, batch; train, eval, demo, corpus, export, card."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path

# The README's worked example (docs/examples/interlock.json): what `decider demo` answers by default.
EXAMPLE = {
    "request_id": "line-4-check",
    "context": (
        "Pump 3 is running. If pump 3 is running, then valve 7 is open. "
        "Whenever valve 7 is open, tank 2 is pressurized. "
        "By default, the mode of line 4 is automatic. "
        "If tank 2 is pressurized, then the mode of line 4 is maintenance. "
        "Fan 5 is not enabled."
    ),
    "questions": [
        {"id": "valve_open", "text": "Is valve 7 open?", "type": "BOOLEAN"},
        {"id": "tank_pressurized", "text": "Is tank 2 pressurized?", "type": "BOOLEAN"},
        {"id": "line_mode", "text": "What is the mode of line 4?", "type": "CATEGORICAL",
         "options": ["manual", "automatic", "maintenance"]},
        {"id": "fan_enabled", "text": "Is fan 5 enabled?", "type": "BOOLEAN"},
        {"id": "drain_open", "text": "Is drain 9 open?", "type": "BOOLEAN"},
    ],
    "constraints": [
        {"name": "fan-before-maintenance", "kind": "IMPLIES",
         "literals": [{"question": "line_mode", "option": "maintenance"}, {"question": "fan_enabled", "option": "yes"}]},
        {"name": "drain-shut-under-pressure", "kind": "EXCLUDES",
         "literals": [{"question": "tank_pressurized", "option": "yes"}, {"question": "drain_open", "option": "yes"}]},
    ],
    "options": {"min_confidence": 0.8},
}


def cmd_train(args) -> int:
    from decider.engine.training.train import load_config, train

    cfg = load_config(args.config, out=args.out, init=args.init, time_limit_min=args.time_limit_min,
                      threads=args.threads, seed=args.seed, batch_size=args.batch_size, lr=args.lr,
                      data=args.data, data_twins=args.data_twins, pair_weight=args.pair_weight,
                      use_corpus=False if args.no_corpus else None,
                      examples=args.examples)
    t0 = time.time()
    train(cfg, progress=not args.quiet)
    print(f"trained in {time.time() - t0:.0f} s; checkpoint in {cfg.out}")
    return 0


def cmd_eval(args) -> int:
    from decider.engine.training.evaluate import calibrate_checkpoint, evaluate_checkpoint, report_lines

    if args.threads:
        import torch
        torch.set_num_threads(args.threads)
    if args.fit_temperature:
        if not args.checkpoint:
            raise ValueError("--fit-temperature writes calibration.json into the checkpoint it fits: name that "
                             "folder with --checkpoint (the shipped model is engine/checkpoints/decider-small)")
        fitted = calibrate_checkpoint(args.checkpoint, args.sets, args.threshold, args.device, args.corpus,
                                      parallel_rest=args.parallel_rest)
        print(json.dumps({**fitted, "sets": args.sets}))
        return 0
    report = evaluate_checkpoint(args.checkpoint, split=args.split, corpus=args.corpus, data=args.data, sets=args.sets,
                                 policies=args.policies.split(","), threshold=args.threshold,
                                 oracle_sets=args.oracle_sets, device=args.device, precision=args.precision,
                                 parallel_rest=args.parallel_rest,
                                 progress=None if args.quiet else (lambda m: print(m, file=sys.stderr)))
    print(json.dumps(report) if args.json else "\n".join(report_lines(report)))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return 0


def cmd_calibrate(args) -> int:
    from decider.engine.training.evaluate import calibrate_checkpoint

    fitted = calibrate_checkpoint(args.model, args.sets, args.threshold, args.device, data=args.data,
                                  parallel_rest=args.parallel_rest)
    print(json.dumps({**fitted, "model": str(args.model), "data": [str(d) for d in args.data]}))
    return 0


def cmd_demo(args) -> int:
    from decider.convert import pb_from_json, request_from_pb, response_to_pb
    from decider.engine.core import build_engine

    data = _read_request(args.file) if args.file else EXAMPLE
    request = pb_from_json(_with_options(data, policy=args.policy, threshold=args.threshold,
                                         min_confidence=args.min_confidence))
    core = build_engine(args.checkpoint)
    (result,) = core.decide([request_from_pb(request)])
    print(f"context: {request.context}\n")
    print_answers(request, response_to_pb(result, core.ckpt.name, core.ckpt.version))
    return 0


def cmd_corpus(args) -> int:
    from decider.engine.training.corpus import V1_ONLY, V2_MIX, CorpusSpec, make_sets, mix_entry
    from decider.engine.training.dataset import write_jsonl

    mix = {"v1": V1_ONLY, "v2": V2_MIX}.get(args.mix)
    if mix is None:
        mix = tuple((entry, 1.0) for entry in args.mix.split(","))
        for entry, _ in mix:
            mix_entry(entry)  # a clear error for an unknown family
    spec = CorpusSpec(split=args.split, max_links=args.max_links, mix=mix)
    with (open(args.out, "w") if args.out else contextlib.nullcontext(sys.stdout)) as out:
        write_jsonl(make_sets(spec, args.sets, start=args.start), out)
    return 0


def cmd_export(args) -> int:
    from decider.engine.checkpoint import export_checkpoint

    out = export_checkpoint(args.checkpoint, args.out, args.dtype, reader=args.reader)
    print(f"exported {args.checkpoint} -> {out} ({args.dtype}{', with the option reader' if args.reader else ''})")
    return 0


def cmd_card(args) -> int:
    from decider.engine.checkpoint import DEFAULT_CHECKPOINT
    from decider.engine.training.card import write_card, write_card_v2

    folder = Path(args.checkpoint) if args.checkpoint else DEFAULT_CHECKPOINT
    reports = {name: json.loads(Path(path).read_text()) for name, path in
               (("test", args.test), ("heldout", args.heldout), ("novel", args.novel), ("v1-test", args.v1_test)) if path}
    people = {Path(path).name: json.loads(Path(path).read_text()) for path in args.people}
    if args.heldout:  # a checkpoint trained on corpus v2: its card has the v2 splits and targets
        path = write_card_v2(folder, reports, people)
    else:
        path = write_card(folder, reports["test"], reports["novel"])
    print(f"wrote {path}")
    return 0


def cmd_serve(args) -> int:
    import os

    from pydantic import ValidationError

    from decider.server import serve
    from decider.settings import ServerSettings

    if args.config:
        os.environ["DECIDER_CONFIG"] = args.config
    flags = {name: getattr(args, name) for name in ServerSettings.model_fields if getattr(args, name, None) is not None}
    try:
        settings = ServerSettings(**flags)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise ValueError(f"settings{': ' + where if where else ''}: {err['msg'].removeprefix('Value error, ')}") from None
    return serve(settings)


def _client(args):
    from decider_client import DeciderClient
    return DeciderClient(args.server, timeout=args.timeout, tls=args.tls, root_certificates=args.ca,
                         client_certificate=args.cert, client_key=args.key, token=args.token)


def _read_request(path: str) -> dict:
    import yaml

    text = Path(path).read_text()
    return yaml.safe_load(text) if path.endswith((".yaml", ".yml")) else json.loads(text)


def _with_options(data: dict, **options) -> dict:
    """`data` with the decode options that were given (None = keep the request's own)."""
    given = {k: v for k, v in options.items() if v is not None}
    if "policy" in given:
        given["policy"] = given["policy"].upper()
    return {**data, "options": {**(data.get("options") or {}), **given}} if given else data


def _request_from_args(args) -> dict:
    if args.file:
        data = _read_request(args.file)
    else:
        if not args.context or not args.question:
            raise ValueError("give --file request.json, or --context and at least one --question")
        questions = []
        for spec in args.question:
            parts = spec.split("|")
            if len(parts) == 2:
                questions.append({"id": parts[0], "text": parts[1], "type": "BOOLEAN"})
            elif len(parts) == 3:
                questions.append({"id": parts[0], "text": parts[1], "type": "CATEGORICAL",
                                  "options": [o.strip() for o in parts[2].split(",")]})
            else:
                raise ValueError(f"--question {spec!r}: write 'id|question text' or 'id|question text|opt1,opt2'")
        data = {"context": args.context, "questions": questions}
    return _with_options(data, min_confidence=args.min_confidence, threshold=args.threshold, policy=args.policy)


def print_answers(request, response) -> None:
    """The answer table of `decide` and `demo`: one line per question, then the totals."""
    from decider_client import pb

    texts = {q.id: q.text for q in request.questions}
    for a in response.answers:
        shown = a.choice if a.status != pb.Answer.UNDECIDED else "UNDECIDED"
        flag = "  (forced)" if a.status == pb.Answer.FORCED else ""
        print(f"  {a.question_id:18s} {shown:12s} confidence {a.confidence:.3f}  step {a.commit_step}   "
              f"{texts.get(a.question_id, '')}{flag}")
    t = response.timings
    passes = f"{response.forward_passes} forward pass{'' if response.forward_passes == 1 else 'es'}"
    print(f"\njoint confidence {response.joint_confidence:.3f}; {passes}; "
          f"queue {t.queue_ms:.1f} ms, prefix {t.prefix_ms:.1f} ms, denoise {t.denoise_ms:.1f} ms "
          f"({response.model_name} {response.model_version}, request {response.request_id})")


def cmd_decide(args) -> int:
    from decider_client import DeciderError

    from decider.convert import pb_from_json, to_json

    request = pb_from_json(_request_from_args(args))
    with _client(args) as client:
        try:
            response = client.decide_request(request)
        except DeciderError as e:
            print(f"decider: {e}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(to_json(response)))
    else:
        print_answers(request, response)
    return 0


def cmd_batch(args) -> int:
    from decider.batch import BatchConfig, BatchError, run

    cfg = BatchConfig(
        input=Path(args.input), output=Path(args.output), errors=Path(args.errors) if args.errors else None,
        remote=args.remote, ray=args.ray, ray_address=args.ray_address, actors=args.actors,
        cpus_per_actor=args.cpus_per_actor, gpus_per_actor=args.gpus_per_actor, ray_batch_size=args.ray_batch_size,
        checkpoint=args.checkpoint, device=args.device, max_running=args.max_running, workers=args.workers,
        threads=args.threads, concurrency=args.concurrency, timeout=args.timeout, chunk=args.chunk, progress=not args.quiet,
        client_options=dict(tls=args.tls, root_certificates=args.ca, client_certificate=args.cert,
                            client_key=args.key, token=args.token))
    try:
        summary = run(cfg, log=lambda m: print(m, file=sys.stderr))
    except BatchError as e:
        print(f"decider: error: {e}", file=sys.stderr)
        return 2
    print(summary.line(), file=sys.stderr)
    if summary.errors_total:
        where = args.errors or args.output
        print(f"{summary.errors_total} lines could not be decided: see the error records in {where}", file=sys.stderr)
    return 0 if summary.ok else 1


def cmd_info(args) -> int:
    from decider.convert import to_json
    with _client(args) as client:
        print(json.dumps(to_json(client.model_info()), indent=2))
    return 0


def _client_flags(parser) -> None:
    parser.add_argument("--server", default="127.0.0.1:50051", help="host:port or any gRPC target")
    parser.add_argument("--timeout", type=float, default=10.0, help="deadline in seconds")
    _security_flags(parser)


def _security_flags(parser) -> None:
    parser.add_argument("--tls", action="store_true", help="TLS with the system's roots (or --ca)")
    parser.add_argument("--ca", help="CA certificate (PEM) to trust")
    parser.add_argument("--cert", help="client certificate (PEM), for mutual TLS")
    parser.add_argument("--key", help="client key (PEM), for mutual TLS")
    parser.add_argument("--token", help="bearer token")


REST_HELP = ("the parallel policy, a pass where no answer reaches the threshold: 'one' commits the most confident "
             "and predicts the rest again, 'all' commits them all (EngineConfig.parallel_rest)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="decider", description="joint decisions over related questions")
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train a checkpoint (masked diffusion over answer slots)")
    t.add_argument("--config", help="YAML training config (e.g. engine/configs/decider-small.yaml)")
    t.add_argument("--out", help="checkpoint folder (resumes if it holds a training state)")
    t.add_argument("--init", help="'minilm', 'random' or a checkpoint folder to fine-tune")
    t.add_argument("--data", nargs="+", type=Path, help="team JSONL files of labelled decision sets")
    t.add_argument("--data-twins", nargs="+", type=Path,
                   help="contrast twins of the --data sets, each file named as the data file of its sets")
    t.add_argument("--pair-weight", type=float,
                   help="weight of the contrast term on a set and its twin (TrainConfig.pair_weight; 0 = off)")
    t.add_argument("--no-corpus", action="store_true", help="train on --data alone")
    t.add_argument("--examples", type=int, help="train on this many sets (one stage)")
    t.add_argument("--time-limit-min", type=float, help="stop and save after this many minutes")
    t.add_argument("--threads", type=int)
    t.add_argument("--seed", type=int)
    t.add_argument("--batch-size", type=int)
    t.add_argument("--lr", type=float)
    t.add_argument("--quiet", action="store_true")
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("eval", help="accuracy, all-correct, forward passes and ECE per policy")
    e.add_argument("--checkpoint", help="checkpoint folder (default: the shipped decider-small)")
    e.add_argument("--split", default="test", choices=["validation", "test", "novel", "heldout"],
                   help="novel: names never seen in training; heldout: phrasings never seen (v2 only)")
    e.add_argument("--corpus", default="v1", choices=["v1", "v2"],
                   help="v1: the generator's first patterns; v2: v1 plus the families users write")
    e.add_argument("--data", type=Path, help="evaluate on a JSONL file of labelled sets instead")
    e.add_argument("--sets", type=int, default=2000)
    e.add_argument("--policies", default="parallel,sequential,independent")
    e.add_argument("--threshold", type=float, default=0.9, help="parallel commit threshold")
    e.add_argument("--parallel-rest", default="one", choices=["one", "all"], help=REST_HELP)
    e.add_argument("--oracle-sets", type=int, default=500,
                   help="run the oracle/flip diagnostic on the first N sets (0 = skip)")
    e.add_argument("--fit-temperature", action="store_true",
                   help="fit the temperature (and the option reader's weight, where the checkpoint has one) on "
                        "the validation split and write calibration.json into the --checkpoint folder (which "
                        "must be named)")
    e.add_argument("--json", action="store_true")
    e.add_argument("--out", help="also write the report to this file")
    e.add_argument("--threads", type=int)
    e.add_argument("--device", default="auto", help="'auto' (CUDA when present), 'cpu' or 'cuda'")
    e.add_argument("--precision", default="auto", choices=["auto", "fp32", "bf16"],
                   help="the engine's precision (see `decider serve --help`)")
    e.add_argument("--quiet", action="store_true")
    e.set_defaults(func=cmd_eval)

    cal = sub.add_parser("calibrate", help="fit a model's temperature (and its option reader's weight, where it "
                                          "has one) on your labelled decisions and write them into the model's folder")
    cal.add_argument("--model", required=True, type=Path,
                     help="the model folder (decider's or a Hugging Face diffusion LM's); the file is written there")
    cal.add_argument("--data", required=True, type=Path, nargs="+",
                     help="labelled decision sets, JSONL (decider corpus format): one file or several")
    cal.add_argument("--sets", type=int, default=None,
                     help="use only the first N sets of the files, in order (default: every set)")
    cal.add_argument("--threshold", type=float, default=0.9)
    cal.add_argument("--parallel-rest", default="one", choices=["one", "all"], help=REST_HELP)
    cal.add_argument("--device", default="auto")
    cal.set_defaults(func=cmd_calibrate)

    d = sub.add_parser("demo", help="answer the README's worked example (or --file request.json) in-process")
    d.add_argument("--checkpoint")
    d.add_argument("--file", help="request in the proto's JSON mapping (.json, .yaml), as for decide")
    d.add_argument("--policy", choices=["parallel", "sequential"], help="override the request's policy")
    d.add_argument("--threshold", type=float, help="override the request's threshold")
    d.add_argument("--min-confidence", type=float, help="override the request's min_confidence")
    d.set_defaults(func=cmd_demo)

    c = sub.add_parser("corpus", help="write generated decision sets as JSONL (the --data format)")
    c.add_argument("--split", default="train", choices=["train", "validation", "test", "novel"])
    c.add_argument("--sets", type=int, default=10)
    c.add_argument("--max-links", type=int, default=5)
    c.add_argument("--mix", default="v1", help="v1, v2 (the evaluation mix), or families drawn equally, "
                   "comma-separated (e.g. 'rulebase' or 'readings@0,quantified'; training-only families too)")
    c.add_argument("--start", type=int, default=0, help="index of the first set (set i is always the same)")
    c.add_argument("--out")
    c.set_defaults(func=cmd_corpus)
    x = sub.add_parser("export", help="copy a checkpoint with its weights in bf16 (what ships)")
    x.add_argument("--checkpoint", required=True)
    x.add_argument("--out", required=True)
    x.add_argument("--dtype", default="bf16", choices=["bf16", "fp32"])
    x.add_argument("--reader", action="store_true",
                   help="add the option reader: the pretrained sentence encoder, frozen, that scores categorical "
                        "options (engine/reader.py; needs the `train` extra); fit its weight with "
                        "`decider eval --fit-temperature`")
    x.set_defaults(func=cmd_export)

    k = sub.add_parser("card", help="write MODEL_CARD.md from eval reports")
    k.add_argument("--checkpoint")
    k.add_argument("--test", required=True)
    k.add_argument("--novel", required=True)
    k.add_argument("--heldout", help="v2: the held-out-template report (then --test and --novel are v2 reports)")
    k.add_argument("--v1-test", help="v2: the v1 test-split report")
    k.add_argument("--people", nargs="*", default=[],
                   help="v2: bench/realistic_eval.py --json reports on people's text (docs/eval/realistic.json, "
                        "docs/eval/written-heldout.json)")
    k.set_defaults(func=cmd_card)

    from decider.settings import ServerSettings
    v = sub.add_parser("serve", help="run the gRPC server",
                       description="Every setting also reads from DECIDER_<NAME> and from a YAML file "
                                   "(--config or DECIDER_CONFIG); flags win over env, env over the file.")
    v.add_argument("--config", help="YAML file of settings")
    for name, info in ServerSettings.model_fields.items():
        flag = "--" + name.replace("_", "-")
        if info.annotation is bool:
            v.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None,
                           help=f"{info.description} (default {info.default})")
        else:
            v.add_argument(flag, dest=name, default=None, help=f"{info.description} (default {info.default})")
    v.add_argument("--model", dest="checkpoint", default=None,
                   help="same as --checkpoint: a decider checkpoint or a Hugging Face diffusion LM folder "
                        "(docs/real-models.md)")
    v.set_defaults(func=cmd_serve)

    dd = sub.add_parser("decide", help="ask a running server (table, or --json in the proto's JSON mapping)")
    _client_flags(dd)
    dd.add_argument("--file", help="request in the proto's JSON mapping (.json, .yaml)")
    dd.add_argument("--context")
    dd.add_argument("--question", action="append", help="'id|text' (yes/no) or 'id|text|opt1,opt2' (repeat)")
    dd.add_argument("--min-confidence", type=float)
    dd.add_argument("--threshold", type=float)
    dd.add_argument("--policy", choices=["parallel", "sequential"])
    dd.add_argument("--json", action="store_true")
    dd.set_defaults(func=cmd_decide)

    b = sub.add_parser("batch", help="decide a JSONL/Parquet file of requests: one record per line, resumable",
                       description="Runs the in-process engine by default, a running server with --remote, "
                                   "or a Ray cluster with --ray. Restarting with the same OUTPUT skips what it "
                                   "holds. Exit code 0: every line answered; 1: some lines refused or to retry; "
                                   "2: the job could not start.")
    b.add_argument("input", help="requests, one per line, in the proto's JSON mapping (.jsonl; or .parquet)")
    b.add_argument("output", help="records, one per input line (.jsonl; or .parquet, via OUTPUT.journal.jsonl)")
    b.add_argument("--errors", help="write error records here instead of OUTPUT")
    b.add_argument("--remote", metavar="HOST:PORT", help="ask a running server instead of an in-process engine")
    b.add_argument("--concurrency", type=int, default=16, help="calls in flight with --remote")
    b.add_argument("--timeout", type=float, default=60.0, help="deadline per call in seconds with --remote")
    _security_flags(b)
    b.add_argument("--ray", action="store_true", help="run on Ray Data (pip install 'decider[ray]')")
    b.add_argument("--ray-address", help="Ray cluster address (default: start a local Ray)")
    b.add_argument("--actors", type=int, default=1, help="engines in the Ray actor pool")
    b.add_argument("--cpus-per-actor", type=float, default=1.0)
    b.add_argument("--gpus-per-actor", type=float, default=0.0)
    b.add_argument("--ray-batch-size", type=int, default=64, help="requests per map_batches call")
    b.add_argument("--checkpoint", "--model", help="checkpoint folder (default: the shipped decider-small), or a "
                                                  "Hugging Face diffusion LM folder (docs/real-models.md)")
    b.add_argument("--device", default="auto", help="'auto' (CUDA when present), 'cpu' or 'cuda'")
    b.add_argument("--max-running", type=int, default=32, help="requests the engine decodes together")
    b.add_argument("--workers", type=int, help="local engine processes (default: one per core up to 4 "
                                               "for 1,000 requests or more on a CPU, else 1)")
    b.add_argument("--threads", type=int, help="torch threads per local engine (default: cores / workers)")
    b.add_argument("--chunk", type=int, default=64, help="records per durable write")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=cmd_batch)

    i = sub.add_parser("info", help="model name, version, limits and backend of a running server")
    _client_flags(i)
    i.set_defaults(func=cmd_info)
    return p


# oneDNN keeps a compiled kernel per matmul shape (with F.linear, also its own packed copy of the
# weights); the bf16 engine runs every prompt at its own length, so the default cache of 1,024
# shapes grew the server by 140-180 MB under mixed traffic (bench/fault_check.py,
# docs/BENCHMARKS.md). The engine now packs its weights once (engine/packed.py), and a batch-1
# decision touches about 12 shapes (six weight shapes at the prompt's length and at the block's):
# 8 recompiled on every call (bench/edge_latency.py on an AMD EPYC: 248-token p50 77 ms with 8,
# 53 ms with 32; docs/BENCHMARKS.md). Prefix passes now run at lengths padded to multiples of 32
# (EngineConfig.prefix_pad), and the server builds every shape at start-up (EngineCore.warm_up):
# 16 lengths and 8 block sizes of about 7 weight shapes, 150 or so, all of which must stay cached
# for no request to pay for building one (bench/length_buckets.py).
# A caller's own setting wins.
ONEDNN_CACHE = "256"


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", ONEDNN_CACHE)  # before any matmul runs
    args = build_parser().parse_args(argv)
    from decider_client import DeciderError

    from decider.engine.checkpoint import CheckpointError
    from decider.engine.request import DecisionInputError
    from decider.settings import StartupError
    try:
        return args.func(args)
    except (CheckpointError, DecisionInputError, DeciderError, StartupError, ValueError, FileNotFoundError) as e:
        print(f"decider: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
