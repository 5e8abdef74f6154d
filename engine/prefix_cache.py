"""An LRU of prefix K/V bounded by bytes: a request whose prefix tokens match a cached
prefix skips the prefix pass.

The key is a hash of the prefix token ids, their question segments, number ranks and name links (the K/V
of a bidirectional prefix depends on all of it, questions included). Entries are tensors that
nobody writes to, so evicting one only drops the cache's reference: a running request
that holds the same tensors keeps them.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import OrderedDict

from decider.engine.model import PrefixKV


def prefix_key(prefix_ids: list[int], segments: list[int], numbers: list[int] = (), links: list[int] = ()) -> bytes:
    h = hashlib.blake2b(array("i", prefix_ids).tobytes(), digest_size=16)
    h.update(array("i", segments).tobytes())
    h.update(array("i", numbers).tobytes())
    h.update(array("q", links).tobytes())
    return h.digest()


class PrefixCache:
    def __init__(self, capacity_bytes: int):
        self.capacity = capacity_bytes
        self.entries: OrderedDict[bytes, PrefixKV] = OrderedDict()
        self.bytes = 0
        self.hits = self.misses = self.evictions = 0

    def get(self, key: bytes) -> PrefixKV | None:
        kv = self.entries.get(key)
        if kv is None:
            self.misses += 1
            return None
        self.entries.move_to_end(key)
        self.hits += 1
        return kv

    def put(self, key: bytes, kv: PrefixKV) -> None:
        size = kv.nbytes()
        if size > self.capacity or key in self.entries:
            return
        while self.bytes + size > self.capacity:
            _, old = self.entries.popitem(last=False)
            self.bytes -= old.nbytes()
            self.evictions += 1
        self.entries[key] = kv
        self.bytes += size

    def stats(self) -> dict:
        return {"hits": self.hits, "misses": self.misses, "evictions": self.evictions,
                "entries": len(self.entries), "bytes": self.bytes, "capacity_bytes": self.capacity}
