"""Compare a `decider batch` output with expected.json: per-answer accuracy, documents with
every answer right, and the documents with a wrong answer.

    python examples/contract_review/check.py reviewed.jsonl
"""

import json
import sys
from pathlib import Path

expected = json.loads(Path(__file__).with_name("expected.json").read_text())
results = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
right = total = whole = 0
for r in sorted(results, key=lambda r: r["request_id"]):
    if "error" in r:
        print(f"{r['request_id']}: refused: {r['error']['message']}")
        continue
    want = expected[r["request_id"]]
    wrong = [f"{a['question_id']}={a['choice']} (expected {want[a['question_id']]})"
             for a in r["answers"] if a["choice"] != want[a["question_id"]]]
    right += len(r["answers"]) - len(wrong)
    total += len(r["answers"])
    whole += not wrong
    if wrong:
        print(f"{r['request_id']}: " + ", ".join(wrong))
print(f"{right}/{total} answers right; {whole}/{len(expected)} documents with every answer right")
