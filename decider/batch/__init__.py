"""`decider batch`: decide a file of requests, exactly one record per input line, resumably.

    decider batch INPUT OUTPUT [--errors FILE] [--remote HOST:PORT | --ray [--ray-address ADDR]]

Input: JSONL, one request per line in the proto's JSON mapping (context, questions,
constraints, options, request_id), or Parquet with those columns. A line without a
request_id gets `line-<n>` (its 1-based line number), so that a restart finds it again.
Blank lines are ignored.

Output: JSONL, one record per input line, in completion order: the DecideResponse in the
proto's JSON mapping plus `line`; or, for a line that cannot be decided, an error record
`{"line", "request_id", "error": {"code", "field", "message"}}` (to --errors FILE when given).
A Parquet OUTPUT is written from its JSONL journal (OUTPUT.journal.jsonl) once every line
is done.

Resumable and lossless: records are appended in chunks, each chunk with one write(2) on an
O_APPEND descriptor and then fsync'd, so a job killed at any moment leaves whole records
only (a torn tail, which only a power cut can leave, is cut off on restart). A restart with
the same output skips the request ids already answered and the lines already refused.
Failures that may pass (a server UNAVAILABLE, DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED after
retries) are not recorded: the summary counts them and the same command retries them.

The engine runs in one of three places, with the same records and the same resume rule:
  local (default): the server's EngineCore, fed in length order so that its prefix passes
                   pad little: in this process, or in --workers processes of their own
                   (by default, for 1,000 requests or more on a CPU, as many as there
                   are cores up to 4, sharing the cores: on a small CPU single-threaded
                   engines decide more per second than one engine using every core);
  --remote H:P:    a running server, with --concurrency calls in flight;
  --ray:           Ray Data `map_batches` over an actor pool, one engine per actor.
"""


from decider.batch.engines import local_layout
from decider.batch.job import BatchConfig, run
from decider.batch.journal import Summary
from decider.batch.records import BatchError

__all__ = ["BatchConfig", "BatchError", "Summary", "local_layout", "run"]
