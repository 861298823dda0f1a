"""The shared frontier's wire format: JSON, never pickle (nothing read from Redis may run code).

scrapy-redis stores a request as ``SCHEDULER_SERIALIZER.dumps(request.to_dict(spider=spider))`` and
rebuilds it with ``request_from_dict``. This module is that serializer (``dumps``/``loads``: JSON,
bytes tagged ``{"$b": base64}``, dicts with non-string keys ``{"$d": [[key, value], ...]}``) and
``SharedFrontier``, the shared frontier's queue, which checks every entry before it becomes a
request: the request class must be one of Scrapy's own (``request_from_dict`` would import any
dotted path it is given), callbacks must be the spider's own public methods. An entry that fails
(a planted pickle, truncated JSON, a foreign class) is dropped with the stat
``rankcrawl/frontier/skipped`` and a warning; a request that cannot be stored as JSON (a meta value
that is not JSON data) is not queued, with ``rankcrawl/frontier/unstorable`` and a warning.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from typing import Any

import scrapy
from scrapy.http import FormRequest, JsonRequest, Request, XmlRpcRequest
from scrapy.utils.request import request_from_dict
from scrapy_redis.queue import Base

from rankcrawl.settings.keys import FRONTIER_REQUESTS, FRONTIER_SEQ

logger = logging.getLogger(__name__)

BYTES, DICT = "$b", "$d"
REQUEST_CLASSES: dict[str, type[Request]] = {
    f"{cls.__module__}.{cls.__name__}": cls for cls in (FormRequest, JsonRequest, XmlRpcRequest)
}
POP = """
local out = {}
local popped = redis.call('ZPOPMAX', KEYS[1], ARGV[1])
for i = 1, #popped, 2 do
    local data = redis.call('HGET', KEYS[2], popped[i])
    if data then
        redis.call('HDEL', KEYS[2], popped[i])
        out[#out + 1] = popped[i]
        out[#out + 1] = popped[i + 1]
        out[#out + 1] = data
    end
end
return out
"""
"""KEYS: the frontier's sorted set and its request hash. ARGV: how many. Returns fingerprint, score, request triples."""


class FrontierEntryError(ValueError):
    """A frontier entry that is not a request this crawl may run."""


def _encode(obj: Any) -> Any:
    if obj is None or isinstance(obj, (str, bool, int, float)):
        return obj
    if isinstance(obj, (bytes, bytearray)):
        return {BYTES: base64.b64encode(obj).decode("ascii")}
    if isinstance(obj, (list, tuple)):
        return [_encode(v) for v in obj]
    if isinstance(obj, dict):
        if all(isinstance(k, str) for k in obj) and BYTES not in obj and DICT not in obj:
            return {k: _encode(v) for k, v in obj.items()}
        return {DICT: [[_encode(k), _encode(v)] for k, v in obj.items()]}
    raise TypeError(f"a {type(obj).__name__} cannot be stored in the shared frontier (JSON data only)")


def _decode_object(obj: dict[str, Any]) -> Any:
    if len(obj) == 1 and BYTES in obj:
        value = obj[BYTES]
        if not isinstance(value, str):
            raise FrontierEntryError("bad bytes value")
        try:
            return base64.b64decode(value, validate=True)
        except binascii.Error as exc:
            raise FrontierEntryError(f"bad base64 ({exc})") from None
    if len(obj) == 1 and DICT in obj:
        pairs = obj[DICT]
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise FrontierEntryError("bad dict pairs")
        try:
            return {k: v for k, v in pairs}
        except TypeError as exc:
            raise FrontierEntryError(f"bad dict key ({exc})") from None
    return obj


def dumps(obj: dict[str, Any]) -> str:
    """A request dict (``Request.to_dict``) as JSON; TypeError for values that are not JSON data."""
    return json.dumps(_encode(obj), separators=(",", ":"), allow_nan=False)


def loads(data: bytes | str) -> dict[str, Any]:
    """The request dict of a frontier entry; FrontierEntryError for anything else."""
    try:
        obj = json.loads(data, object_hook=_decode_object)
    except FrontierEntryError:
        raise
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise FrontierEntryError(f"not a JSON request ({type(exc).__name__})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("url"), str):
        raise FrontierEntryError("not a request object")
    return obj


def _check_method(spider: scrapy.Spider, name: Any) -> None:
    base = getattr(scrapy.Spider, str(name), None)
    if (not isinstance(name, str) or name.startswith("_") or not callable(getattr(spider, name, None))
            or (base is not None and name != "parse")):
        raise FrontierEntryError(f"callback {name!r} is not a public method of the spider")


def checked_request(entry: dict[str, Any], spider: scrapy.Spider) -> Request:
    """The request of a decoded entry, after checking its class and callbacks."""
    cls_name = entry.get("_class")
    if cls_name is not None and cls_name not in REQUEST_CLASSES:
        raise FrontierEntryError(f"request class {cls_name!r} is not one of Scrapy's")
    for key in ("callback", "errback"):
        if entry.get(key) is not None:
            _check_method(spider, entry[key])
    return request_from_dict(entry, spider=spider)


class SharedFrontier(Base):
    """The shared frontier: a sorted set of request fingerprints scored by the frontier's score
    (higher first) and a hash of fingerprint → JSON request, under one hash tag. An entry's score can
    rise while it waits (``ZINCRBY``, ``ZADD XX``); entries are checked before they become requests."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.requests_key = self.key + FRONTIER_REQUESTS
        self.seq_key = self.key + FRONTIER_SEQ
        self._pop = self.server.register_script(POP)
        self.server.script_load(POP)  # so a take is one EVALSHA (redis-py reloads it after a restart)

    def _stats(self) -> Any:
        crawler = getattr(self.spider, "crawler", None)
        return getattr(crawler, "stats", None)

    def _count(self, stat: str, n: int = 1) -> None:
        stats = self._stats()
        if stats is not None and n:
            stats.inc_value(stat, n)

    def _decode_request(self, encoded_request: bytes) -> Request:
        return checked_request(self.serializer.loads(encoded_request), self.spider)

    def __len__(self) -> int:
        return int(self.server.zcard(self.key))

    def clear(self) -> None:
        self.server.delete(self.key, self.requests_key, self.seq_key)

    def push(self, request: Request, score: float = 0.0) -> None:
        """Queue one request under its fingerprint (scrapy-redis's queue interface; no dupefilter check)."""
        try:
            data = self._encode_request(request)
        except (TypeError, ValueError) as exc:
            self._count("rankcrawl/frontier/unstorable")
            logger.warning("rankcrawl: request not queued, it cannot be stored as JSON (%s): %s", exc, request.url)
            return
        fp = self.spider.crawler.request_fingerprinter.fingerprint(request).hex()
        self.put_back([(fp, score, data)])

    def pop(self, timeout: int = 0) -> Request | None:
        """The best entry as a request; None when the frontier is empty or that entry was bad (dropped)."""
        taken = self.take(1)
        return taken[0][2] if taken else None

    def put_back(self, entries: list[tuple[str, float, str]]) -> None:
        """Return (fingerprint, score, JSON request) entries taken but not handed out."""
        if entries:
            pipe = self.server.pipeline(transaction=True)
            pipe.zadd(self.key, {fp: score for fp, score, _ in entries})
            pipe.hset(self.requests_key, mapping={fp: data for fp, _, data in entries})
            pipe.execute()

    def take(self, n: int) -> list[tuple[str, float, Request]]:
        """Up to ``n`` best entries, atomically removed (no two processes get one entry), that decode
        to checked requests; bad ones are dropped and counted."""
        raw = self._pop(keys=[self.key, self.requests_key], args=[n])
        out = []
        for i in range(0, len(raw), 3):
            fp, score, data = raw[i], raw[i + 1], raw[i + 2]
            try:
                out.append((fp.decode() if isinstance(fp, bytes) else str(fp), float(score), self._decode_request(data)))
            except Exception as exc:  # noqa: BLE001 - any failure to rebuild an entry means: skip it
                self._count("rankcrawl/frontier/skipped")
                logger.warning("rankcrawl: skipped a frontier entry of %d bytes in %s: %s: %s",
                               len(data), self.requests_key, type(exc).__name__, str(exc)[:200])
        return out
