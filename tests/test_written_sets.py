"""engine/training/written: the sets written by hand for training are requests the service
takes, within the window, every label explained and yes/no balanced; the held-out and
calibration files share no text with the training files, and none shares a passage with the
hand-written development set (bench/realistic), which must keep measuring text nothing trained on."""

import difflib
import json
import re
from pathlib import Path

import pytest

from decider.engine.checkpoint import DEFAULT_CHECKPOINT
from decider.engine.request import as_request
from decider.engine.tokenizer import DecisionTokenizer
from decider.engine.training.dataset import load_jsonl

ROOT = Path(__file__).parents[1]
WRITTEN = ROOT / "engine" / "training" / "written"
TRAIN = sorted(WRITTEN.glob("*.jsonl"))
HELDOUT = sorted((WRITTEN / "heldout").glob("*.jsonl"))
CALIBRATION = sorted((WRITTEN / "calibration").glob("*.jsonl"))
TWINS = sorted((WRITTEN / "twins").glob("*.jsonl"))
HELDOUT_TWINS = sorted((WRITTEN / "heldout" / "twins").glob("*.jsonl"))
DEV = sorted((ROOT / "bench" / "realistic").glob("*.jsonl"))


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def contexts(paths) -> list[str]:
    return [r["context"] for p in paths for r in records(p)]


def shingles(text: str, n: int = 10) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def test_every_register_has_training_and_held_out_files():
    assert {p.stem.split("-")[0] for p in TRAIN} == {"contracts", "plant", "robot", "rules"}
    assert [p.name for p in HELDOUT] == [p.name for p in TRAIN]
    assert CALIBRATION and {p.name for p in CALIBRATION} <= {p.name for p in TRAIN}
    assert {p.name for p in TWINS} <= {p.name for p in TRAIN}
    assert {p.name for p in HELDOUT_TWINS} <= {p.name for p in HELDOUT}


@pytest.mark.parametrize("path", TRAIN + HELDOUT + CALIBRATION + TWINS + HELDOUT_TWINS,
                         ids=lambda p: f"{p.parent.relative_to(WRITTEN)}/{p.stem}")
def test_the_records_are_requests_with_explained_and_balanced_labels(path):
    window = json.loads((DEFAULT_CHECKPOINT / "config.json").read_text())["max_position"]
    tok = DecisionTokenizer(DEFAULT_CHECKPOINT / "tokenizer.json", max_length=window)
    sets = load_jsonl(path)
    raw = records(path)
    assert len(sets) == len(raw) >= 3
    for s, r in zip(sets, raw):
        as_request(s.context, s.questions)
        tok.encode(s.context, s.questions)  # fits the model's window, or says what is too long
        assert set(r["why"]) == {q.id for q in s.questions}, s.context[:60]
    if path.parent == WRITTEN:  # a held-out or calibration file is too small for the share to mean much
        yes_no = [s.questions[i].choices[a] for s in sets for i, a in enumerate(s.answers)
                  if s.questions[i].kind == "boolean"]
        assert 0.35 <= yes_no.count("yes") / len(yes_no) <= 0.65, path.stem


@pytest.mark.parametrize("path", TWINS + HELDOUT_TWINS, ids=lambda p: f"{p.parent.relative_to(WRITTEN)}/{p.stem}")
def test_a_twin_is_its_set_with_small_edits_that_change_answers(path):
    # a contrast twin keeps its set's questions and most of its words; only a reader who reads
    # the edit gets both right, so at least two answers differ. Its set is in the file of the
    # same name one folder up (twins/ of training sets, heldout/twins/ of held-out ones)
    original = records(path.parents[1] / path.name)
    for t in records(path):
        o = original[t["twin_of"] - 1]
        assert all(q in o["questions"] for q in t["questions"]), t["twin_of"]  # a question may be dropped
        assert sum(t["answers"][q["id"]] != o["answers"][q["id"]] for q in t["questions"]) >= 2, t["twin_of"]
        assert t["context"] != o["context"], t["twin_of"]
        assert difflib.SequenceMatcher(None, o["context"], t["context"]).ratio() > 0.8, t["twin_of"]


def test_no_held_out_or_development_text_is_a_training_text_written_again():
    # drafting has its stock phrases ("clauses 11.1 and 11.2 do not apply to"), so a few shared
    # runs of ten words are allowed; a text written again with other names shares most of them
    train = [shingles(c) for c in contexts(TRAIN + TWINS)]
    for name, paths in (("held-out", HELDOUT), ("calibration", CALIBRATION), ("development", DEV)):
        for c in contexts(paths):
            mine = shingles(c)
            most = max(len(mine & t) for t in train) / len(mine)
            assert most < 0.2, f"a {name} context shares {most:.0%} of its ten-word runs with a training one: {c[:60]}"
