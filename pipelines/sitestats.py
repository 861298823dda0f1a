"""Per-host site statistics in Redis, shared by crawler processes and kept across restarts.

Keys (prefix configurable; ``{<host>}`` is the Redis Cluster hash tag, so a host's keys share
a slot and its transaction is cluster-safe; ``<host>`` is the ``scheme://host[:port]`` key):

| key | type | content |
|---|---|---|
| ``<p>site:{<host>}:pg``  | hash | URL → the page's JSON record (what it contributed; its links) |
| ``<p>site:{<host>}:sh``  | hash | pagelet shingle → pages owning it |
| ``<p>site:{<host>}:fp``  | hash | segment fingerprint → pages with it |
| ``<p>site:{<host>}:ll``  | hash | ``L:`` + DOM-label digest of a link-list pagelet → pages with one |
| ``<p>site:{<host>}:cls`` | hash | block-class label → n_C |
| ``<p>site:{<host>}:ct``  | hash | ``label|term`` → n_{t,C} |
| ``<p>site:{<host>}:tt``  | hash | title term → pages whose title has it (the site name is template) |
| ``<p>site:{<host>}:tmpl``| set  | shingles/fingerprints/link-list labels currently judged template |
| ``<p>site:{<host>}:pend``| hash | URL not crawled yet → JSON list of pages that linked to it (lexical) |
| ``<p>lex:{df}:df`` / ``:n`` | hash / string | crawl-wide document frequencies and page count (CLP) |

Idempotence: a page's record is its contribution; re-processing the same URL applies only the
difference between the old and the new contribution, in one WATCH/MULTI transaction on the
host's keys (retried on conflict), the counters moved by one Lua call (``APPLY_DELTAS``).
Memory bound: at most ``max_pages`` records per host (default
1000, each a few KB: ≤ 50 distinct terms per block); beyond that, new pages of the host are
judged with the saturated statistics but add nothing. Counts never go below what live records
contributed, so a restart resumes exactly.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import redis

from rankcrawl.settings.keys import Keys

# HINCRBY KEYS[ARGV[i]] ARGV[i+1] ARGV[i+2] for each triple: one command carries a page's
# whole counter difference (hundreds of fields) instead of one command per field.
APPLY_DELTAS = """
for i = 1, #ARGV, 3 do
  redis.call('HINCRBY', KEYS[tonumber(ARGV[i])], ARGV[i + 1], ARGV[i + 2])
end
return 0
"""

# SADD the first ARGV[1] members, SREM the rest; return the members whose status changed.
RETAG = """
local changed, n_template = {}, tonumber(ARGV[1])
for i = 2, #ARGV do
  local op = (i - 1 <= n_template) and 'SADD' or 'SREM'
  if redis.call(op, KEYS[1], ARGV[i]) == 1 then changed[#changed + 1] = ARGV[i] end
end
return changed
"""


def contribution(record: dict[str, Any] | None) -> Counter[tuple[str, str]]:
    """The (hash, field) increments a page record stands for."""
    out: Counter[tuple[str, str]] = Counter()
    if not record:
        return out
    for s in set(record["sh"]):
        out["sh", s] += 1
    for f in {f for f in record["fp"] if f}:
        out["fp", f] += 1
    for label in set(record.get("ll", {}).values()):
        out["ll", label] += 1
    for t in record["lx"]["title"]:
        out["tt", t] += 1
    for label, terms in zip(record["lb"], record["tm"]):
        out["cls", label] += 1
        for t in terms:
            out["ct", f"{label}|{t}"] += 1
    return out


class SiteStats:
    """Atomic, idempotent per-host counters and page records."""

    def __init__(self, client: redis.Redis, prefix: str = "rc:", max_pages: int = 1000) -> None:
        self.r, self.keys, self.max_pages = client, Keys(prefix), max_pages
        self.apply_deltas = client.register_script(APPLY_DELTAS)
        self.retag_script = client.register_script(RETAG)

    def key(self, host: str, name: str) -> str:
        return self.keys.site(host, name)

    def record(self, host: str, url: str) -> dict[str, Any] | None:
        raw = self.r.hget(self.key(host, "pg"), url)
        return json.loads(raw) if raw else None

    def records(self, host: str) -> dict[str, dict[str, Any]]:
        return {(k.decode() if isinstance(k, bytes) else k): json.loads(v) for k, v in self.r.hgetall(self.key(host, "pg")).items()}

    def n_pages(self, host: str) -> int:
        return int(self.r.hlen(self.key(host, "pg")))

    def update(self, host: str, url: str, record: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
        """Store ``record`` for ``url`` and move the counters by (new − old); (old record, stored)."""
        pg = self.key(host, "pg")
        new_raw = json.dumps(record, separators=(",", ":"))
        result: list[Any] = [None, False]

        def tx(pipe: redis.client.Pipeline) -> None:
            old_raw = pipe.hget(pg, url)
            result[:] = [json.loads(old_raw) if old_raw else None, False]
            if old_raw is None and pipe.hlen(pg) >= self.max_pages:
                return
            diff = contribution(record)
            diff.subtract(contribution(result[0]))
            names = sorted({name for (name, _), delta in diff.items() if delta})
            slot = {name: i + 1 for i, name in enumerate(names)}
            args = [a for (name, field), delta in diff.items() if delta for a in (slot[name], field, delta)]
            pipe.multi()
            if args:
                self.apply_deltas(keys=[self.key(host, n) for n in names], args=args, client=pipe)
            pipe.hset(pg, url, new_raw)
            result[1] = True

        self.r.transaction(tx, pg)
        return result[0], result[1]

    def counts(self, host: str, requests: dict[str, list[str]]) -> dict[str, list[int]]:
        """Current counts for the given fields of the hashes named in ``requests``."""
        names = [n for n, fields in requests.items() if fields]
        with self.r.pipeline(transaction=False) as pipe:
            for n in names:
                pipe.hmget(self.key(host, n), requests[n])
            values = pipe.execute()
        out: dict[str, list[int]] = {n: [] for n in requests}
        for n, vals in zip(names, values):
            out[n] = [int(v) if v is not None else 0 for v in vals]
        return out

    def retag(self, host: str, template: set[str], other: set[str]) -> set[str]:
        """Record which keys are template now; the keys whose status changed."""
        if not template and not other:
            return set()
        changed = self.retag_script(keys=[self.key(host, "tmpl")], args=[len(template), *template, *other])
        return {k.decode() if isinstance(k, bytes) else k for k in changed}

    def add_pending(self, host: str, target: str, source: str) -> None:
        """Remember that ``source`` weighed its link to uncrawled ``target`` with a stand-in."""
        key = self.key(host, "pend")
        raw = self.r.hget(key, target)
        sources = set(json.loads(raw)) if raw else set()
        if source not in sources:
            self.r.hset(key, target, json.dumps(sorted(sources | {source})))

    def pop_pending(self, host: str, url: str) -> list[str]:
        key = self.key(host, "pend")
        with self.r.pipeline() as pipe:
            pipe.hget(key, url)
            pipe.hdel(key, url)
            raw, _ = pipe.execute()
        return json.loads(raw) if raw else []

    def update_df(self, old: set[str], new: set[str], first_time: bool) -> None:
        """Move crawl-wide document frequencies from a page's old vocabulary to its new one."""
        args = [a for t in new - old for a in (1, t, 1)] + [a for t in old - new for a in (1, t, -1)]
        with self.r.pipeline() as pipe:
            if args:
                self.apply_deltas(keys=[self.keys.df], args=args, client=pipe)
            if first_time:
                pipe.incr(self.keys.df_pages)
            pipe.execute()

    def df(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """Document frequencies of ``terms`` and the number of pages counted."""
        if not terms:
            return {}, int(self.r.get(self.keys.df_pages) or 0)
        with self.r.pipeline(transaction=False) as pipe:
            pipe.hmget(self.keys.df, terms)
            pipe.get(self.keys.df_pages)
            vals, n = pipe.execute()
        return {t: int(v) for t, v in zip(terms, vals) if v is not None and int(v) > 0}, int(n or 0)
