"""The committed client stubs are what proto/decider/v1/decider.proto generates (run `make proto`)."""

from decider.proto_gen import CLIENT, generate


def test_generated_stubs_are_current(tmp_path):
    for fresh in generate(tmp_path):
        committed = CLIENT / fresh.relative_to(tmp_path)
        assert committed.is_file(), f"{committed} is missing: run `make proto`"
        assert committed.read_bytes() == fresh.read_bytes(), f"{committed} is stale: run `make proto`"
