"""The shared frontier's wire format: JSON, never pickle (nothing read from Redis may run code).

scrapy-redis stores a request as ``SCHEDULER_SERIALIZER.dumps(request.to_dict(spider=spider))`` and
rebuilds it with ``request_from_dict``. This module is that serializer (``dumps``/``loads``: JSON,
bytes tagged ``{"$b": base64}``, dicts with non-string keys ``{"$d": [[key, value], ...]}``) and
``checked_request``, which every entry read back (the shared frontier, a JOBDIR) passes before it
becomes a request: the request class must be one of Scrapy's own (``request_from_dict`` would
import any dotted path it is given), callbacks must be the spider's own public methods. Callers
drop an entry that fails (a planted pickle, truncated JSON, a foreign class) with the stat
``rankcrawl/frontier/skipped``; a request that cannot be stored as JSON (a meta value that is not
JSON data) is not queued (``rankcrawl/frontier/unstorable``).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import scrapy
from scrapy.http import FormRequest, JsonRequest, Request, XmlRpcRequest
from scrapy.utils.request import request_from_dict

BYTES, DICT = "$b", "$d"
REQUEST_CLASSES: dict[str, type[Request]] = {
    f"{cls.__module__}.{cls.__name__}": cls for cls in (FormRequest, JsonRequest, XmlRpcRequest)
}


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
