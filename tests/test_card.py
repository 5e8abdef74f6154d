"""The shipped model card is what `make card` writes from the committed reports: no figure in
it is typed by hand, and a report of another version is refused."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from decider.engine.checkpoint import DEFAULT_CHECKPOINT
from decider.engine.training.card import write_card_v2

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT / "docs" / "eval"
SPLITS = {"test": "v2-test.json", "heldout": "v2-heldout.json", "novel": "v2-novel.json", "v1-test": "v1-test.json"}
PEOPLE = ("realistic.json", "written-heldout.json")


def _folder(tmp_path: Path) -> Path:
    """The shipped checkpoint's files a card reads, in a folder the test may write its card to."""
    folder = tmp_path / "decider-small"
    folder.mkdir()
    for name in ("config.json", "calibration.json", "NOTES.md"):
        shutil.copy(DEFAULT_CHECKPOINT / name, folder / name)
    (folder / "model.safetensors").symlink_to(DEFAULT_CHECKPOINT / "model.safetensors")
    return folder


def test_the_shipped_card_is_what_make_card_writes(tmp_path):
    folder = _folder(tmp_path)
    people = " ".join(str(EVAL / n) for n in PEOPLE)
    cmd = (f"{sys.executable} -m decider.cli card --checkpoint {folder} "
           + " ".join(f"--{k} {EVAL / v}" for k, v in SPLITS.items()) + f" --people {people}")
    subprocess.run(cmd.split(), check=True, cwd=ROOT, capture_output=True)
    written = (folder / "MODEL_CARD.md").read_text()
    shipped = (DEFAULT_CHECKPOINT / "MODEL_CARD.md").read_text().replace("on x86_64 CPU", f"on {platform.machine()} CPU")
    assert written == shipped, "MODEL_CARD.md is stale: run `make card` (or decider card as the Makefile does)"
    assert "### People's text" in written
    realistic = json.loads((EVAL / "realistic.json").read_text())[0]["parallel"]["all"]
    assert f"| realistic | parallel | all | {realistic['questions']} | {realistic['per_item']:.4f} |" in written


def test_a_report_of_another_version_or_kind_is_refused(tmp_path):
    folder = _folder(tmp_path)
    reports = {k: json.loads((EVAL / v).read_text()) for k, v in SPLITS.items()}
    stale = json.loads((EVAL / "realistic.json").read_text())
    stale[0]["version"] = "1"
    with pytest.raises(ValueError, match=r"measured version 1, the checkpoint is version .*make card"):
        write_card_v2(folder, reports, {"realistic.json": stale})
    with pytest.raises(ValueError, match="not a report of `python bench/realistic_eval.py --json`"):
        write_card_v2(folder, reports, {"v2-test.json": reports["test"]})
