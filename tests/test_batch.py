"""`decider batch` end to end: local engine, a real server (--remote), a real local Ray
instance (--ray), bad lines, resume after SIGKILL of a real child process, Parquet."""

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from server_util import ServerThread

from decider.batch import BatchConfig, BatchError, run
from decider.cli import main
from decider.engine.checkpoint import CheckpointError
from decider.convert import request_from_json
from decider.engine.core import EngineCore
from decider.engine.training.corpus import CorpusSpec, make_sets

SPEC = CorpusSpec(split="test", max_links=3, max_questions=6, max_extra=1)
GOOD = 200


def request_lines(count: int = GOOD) -> list[str]:
    lines = []
    sets = [s for s in make_sets(SPEC, count + 20) if s.context.strip()][:count]  # the service refuses ""
    for k, s in enumerate(sets):
        record = {"context": s.context, "questions": [
            {"id": q.id, "text": q.text, "type": q.kind.upper(), **({"options": list(q.options)} if q.options else {})}
            for q in s.questions]}
        if k % 3 == 0:
            record["request_id"] = f"doc-{k}"  # the rest get line-<n>
        lines.append(json.dumps(record))
    return lines


def bad_lines(good: list[str]) -> list[tuple[str, str]]:
    """(line, the field its error record must name)."""
    first = json.loads(good[1])
    q = first["questions"][0]["id"]
    unsat = {**first, "request_id": "unsat", "questions": first["questions"][:1], "constraints": [
        {"kind": "IMPLIES", "literals": [{"question": q, "option": "yes"}, {"question": q, "option": "no"}]},
        {"kind": "IMPLIES", "literals": [{"question": q, "option": "no"}, {"question": q, "option": "yes"}]}]}
    return [
        ('{"context": "Pump 3 is on.", "questions": [', "line"),                            # malformed JSON
        (json.dumps({"questions": first["questions"]}), "context"),                         # missing field
        (json.dumps({**first, "request_id": "nine", "questions": [first["questions"][0]] * 9}), "questions"),
        (json.dumps(unsat), "constraints"),                                                 # unsatisfiable
        (json.dumps({**first, "request_id": "doc-0"}), "request_id"),                       # repeats line 1
        ("[1, 2, 3]", "line"),                                                              # not an object
    ]


def records(path: Path) -> list[dict]:
    text = path.read_text()
    assert text == "" or text.endswith("\n"), "a torn last line"
    return [json.loads(line) for line in text.splitlines()]


def choices(recs: list[dict]) -> dict[str, list[str]]:
    return {r["request_id"]: [a["choice"] for a in r["answers"]] for r in recs if "error" not in r}


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """The input (200 good lines with 6 bad ones mixed in) and its local-engine output."""
    folder = tmp_path_factory.mktemp("batch")
    good = request_lines()
    bad = bad_lines(good)
    lines, fields = [], {}
    for k, line in enumerate(good):
        lines.append(line)
        if k % 30 == 5 and bad:
            text, where = bad.pop(0)
            lines.append(text)
            fields[len(lines)] = where
    lines.insert(10, "")  # blank lines are not requests
    fields = {(n + 1 if n > 10 else n): f for n, f in fields.items()}
    src = folder / "requests.jsonl"
    src.write_text("\n".join(lines) + "\n")
    out = folder / "local.jsonl"
    rc = main(["batch", str(src), str(out), "--quiet"])
    return {"src": src, "out": out, "rc": rc, "fields": fields, "good": good, "folder": folder}


def test_local_one_record_per_line_and_bad_lines_named(job, shipped):
    recs = records(job["out"])
    per_line = Counter(r["line"] for r in recs)
    assert len(recs) == GOOD + 6 and set(per_line.values()) == {1}
    assert job["rc"] == 1  # some lines failed
    errors = {r["line"]: r["error"] for r in recs if "error" in r}
    assert {n: e["field"].split(".")[0].split("[")[0] for n, e in errors.items()} == job["fields"]
    assert all(e["code"] == "INVALID_ARGUMENT" and e["message"] for e in errors.values())
    # ids: given ones kept, the rest from the line number
    ids = {r["request_id"] for r in recs if "error" not in r}
    assert "doc-3" in ids and any(i.startswith("line-") for i in ids)
    # the same answers as the engine deciding each request alone
    by_id = {r["request_id"]: r for r in recs if "error" not in r}
    core = EngineCore(shipped)
    for k in range(0, 30, 3):
        (alone,) = core.decide([request_from_json(json.loads(job["good"][k]))])
        assert [a["choice"] for a in by_id[f"doc-{k}"]["answers"]] == [a.answer for a in alone.answers]
        assert by_id[f"doc-{k}"]["forward_passes"] == alone.forward_passes


def test_rerun_with_the_same_output_skips_everything(job, tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_bytes(job["out"].read_bytes())
    summary = run(BatchConfig(job["src"], out, progress=False))
    assert summary.answered == 0 and summary.errors == 0 and summary.skipped == GOOD + 6
    assert summary.errors_total == 6 and not summary.ok
    assert out.read_bytes() == job["out"].read_bytes()


def live_children(pid: int) -> set[int]:
    """Processes whose parent is `pid` and that have not exited (a zombie has)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigkill_midway_then_resume_gives_exactly_one_record_per_line(job, tmp_path, workers):
    out = tmp_path / "killed.jsonl"
    child = subprocess.Popen([sys.executable, "-m", "decider.cli", "batch", str(job["src"]), str(out), "--quiet",
                              "--chunk", "8", "--max-running", "8", "--workers", workers], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and child.poll() is None:
            if out.exists() and out.read_bytes().count(b"\n") >= 40:
                break
            time.sleep(0.02)
        assert child.poll() is None, "the job finished before it could be killed"
        engines = live_children(child.pid)  # with --workers 2: the two engines (and spawn's helper)
        assert len(engines) >= (2 if workers == "2" else 0)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    deadline = time.monotonic() + 10  # the engine processes follow their job
    while any(map(alive, engines)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(alive, engines)), "engine processes outlived their killed job"
    partial = records(out)  # every line whole and valid
    assert 40 <= len(partial) < GOOD + 6
    summary = run(BatchConfig(job["src"], out, progress=False))
    assert summary.skipped == len(partial)
    recs = records(out)
    assert sorted(Counter(r["line"] for r in recs).values()) == [1] * (GOOD + 6)
    assert choices(recs) == choices(records(job["out"]))


def test_a_torn_tail_is_cut_off_and_a_foreign_output_refused(job, tmp_path):
    out = tmp_path / "torn.jsonl"
    head = job["out"].read_text().splitlines(keepends=True)[:50]
    out.write_text("".join(head) + '{"line": 77, "request_id": "li')
    run(BatchConfig(job["src"], out, progress=False))
    assert sorted(Counter(r["line"] for r in records(out)).values()) == [1] * (GOOD + 6)
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text('{"hello": "world"}\n')
    with pytest.raises(BatchError, match="not a decider batch record"):
        run(BatchConfig(job["src"], foreign, progress=False))


def test_errors_file_and_exit_code(job, tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(job["good"][:12]) + "\n")
    assert main(["batch", str(good), str(tmp_path / "a.jsonl"), "--quiet"]) == 0
    out, errs = tmp_path / "out.jsonl", tmp_path / "errors.jsonl"
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("\n".join(job["good"][:12] + ["{oops"]) + "\n")
    assert main(["batch", str(mixed), str(out), "--errors", str(errs), "--quiet"]) == 1
    assert all("error" not in r for r in records(out)) and len(records(out)) == 12
    (e,) = records(errs)
    assert e["line"] == 13 and e["error"]["field"] == "line"
    # resume reads both files: nothing is redone, nothing written twice
    summary = run(BatchConfig(mixed, out, errors=errs, progress=False))
    assert summary.skipped == 13 and len(records(out)) == 12 and len(records(errs)) == 1
    assert main(["batch", str(tmp_path / "missing.jsonl"), str(out)]) == 2


def test_remote_matches_local(job, tmp_path):
    out = tmp_path / "remote.jsonl"
    with ServerThread(warmup=True, max_queue=8) as server:  # 16 calls in flight: queue-full is retried
        summary = run(BatchConfig(job["src"], out, remote=server.target, concurrency=16, progress=False))
    assert summary.retry == 0 and summary.answered == GOOD and summary.errors == 6
    recs = records(out)
    assert choices(recs) == choices(records(job["out"]))
    remote_errors = {r["line"]: r["error"] for r in recs if "error" in r}
    local_errors = {r["line"]: r["error"] for r in records(job["out"]) if "error" in r}
    assert remote_errors.keys() == local_errors.keys()
    assert all(remote_errors[n]["field"] == local_errors[n]["field"] for n in local_errors)


def assert_same_as_local(summary, out: Path, job) -> None:
    assert summary.answered == GOOD and summary.errors == 6
    recs = records(out)
    assert sorted(Counter(r["line"] for r in recs).values()) == [1] * (GOOD + 6)
    assert choices(recs) == choices(records(job["out"]))


def test_ray_matches_local(job, tmp_path):
    ray = pytest.importorskip("ray")
    out = tmp_path / "ray.jsonl"
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    try:
        summary = run(BatchConfig(job["src"], out, ray=True, actors=1, cpus_per_actor=2, progress=False))
    finally:
        ray.shutdown()
    assert_same_as_local(summary, out, job)


def test_worker_processes_match_local(job, tmp_path):
    out = tmp_path / "workers.jsonl"
    summary = run(BatchConfig(job["src"], out, workers=2, progress=False))
    assert_same_as_local(summary, out, job)


def test_worker_processes_say_why_the_model_cannot_load(job, tmp_path):
    src = tmp_path / "two.jsonl"
    src.write_text("\n".join(job["good"][:2]) + "\n")
    with pytest.raises(CheckpointError, match="model.safetensors"):
        run(BatchConfig(src, tmp_path / "out.jsonl", workers=2, checkpoint=str(tmp_path), progress=False))
    with pytest.raises(BatchError, match="--workers must be at least 1"):
        run(BatchConfig(src, tmp_path / "out.jsonl", workers=0, progress=False))


def test_parquet_in_and_out(job, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    rows = [json.loads(line) for line in job["good"][:8]]
    src = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(rows), src)
    out = tmp_path / "out.parquet"
    summary = run(BatchConfig(src, out, progress=False))
    assert summary.answered == 8 and summary.ok
    table = pq.read_table(out).to_pylist()
    assert [r["line"] for r in table] == list(range(1, 9))
    expected = choices(records(job["out"]))
    assert all([a["choice"] for a in r["answers"]] == expected[r["request_id"]] for r in table
               if r["request_id"] in expected)
