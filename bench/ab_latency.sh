#!/usr/bin/env bash
# Batch-1 latency of this checkout against another revision, side by side in one run: the
# revision is checked out in a temporary worktree, each tree is made importable the way the GPU
# scripts do it (bench/importable.sh), and this checkout's bench/batch1_timing.py runs against
# the two in turn, ROUNDS times each, so that the machine's drift falls on both alike. Prints
# per prefix size the median over runs (and each run's) and how many answers the two gave alike.
#
#   bash bench/ab_latency.sh <revision> [ROUNDS (6)]
set -euo pipefail
REV=${1:?usage: bash bench/ab_latency.sh <revision> [rounds]}
ROUNDS=${2:-6}
PY=${PY:-python}
[[ $PY == */* && $PY != /* ]] && PY=$PWD/$PY  # the runs cd elsewhere
HERE=$PWD
BASE=$(mktemp -d)
LOG=$(mktemp)
trap 'git -C "$HERE" worktree remove --force "$BASE" >/dev/null 2>&1 || true; rm -f "$LOG"' EXIT
git worktree add --detach -q "$BASE" "$REV"

timing() {  # $1: the tree to import, $2: its label
  (cd "$1" && PY=$PY NO_WHEELS=1 source bench/importable.sh && PYTHONPATH="$PYTHONPATH:$HERE/bench" \
     "$PY" "$HERE/bench/batch1_timing.py" | sed "s/^/$2 /") >> "$LOG"
}
for _ in $(seq "$ROUNDS"); do
  timing "$BASE" base
  timing "$HERE" head
done

"$PY" - "$LOG" "$REV" <<'PY'
import json, statistics, sys

runs = {"base": [], "head": []}
for line in open(sys.argv[1]):
    tag, _, report = line.partition(" ")
    runs[tag].append(json.loads(report))
for tokens in runs["head"][0]:
    for tag, name in (("base", sys.argv[2]), ("head", "this checkout")):
        p50 = [r[tokens]["p50_ms"] for r in runs[tag]]
        block = [r[tokens]["block_pass_ms"] for r in runs[tag]]
        prefix = [r[tokens]["prefix_pass_ms"] for r in runs[tag]]
        print(f"{tokens} tokens, {name}: p50 {statistics.median(p50):.2f} ms {p50}, "
              f"prefix pass {statistics.median(prefix):.2f} ms {prefix}, "
              f"block pass {statistics.median(block):.2f} ms {block}")
    base, head = (runs[tag][0][tokens]["answers"] for tag in ("base", "head"))
    alike = sum(a == b for qa, qb in zip(base, head) for a, b in zip(qa, qb))
    print(f"{tokens} tokens: {alike} of {sum(map(len, base))} answers alike")
PY
