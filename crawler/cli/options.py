"""Shared pieces of the ``rankcrawl`` command line: the ``--redis-url`` option and one-line errors."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
import redis

from rankcrawl.settings.connection import RedisUnavailable, resolve_redis_url, scrub

F = TypeVar("F", bound=Callable[..., Any])

redis_url_option = click.option(
    "--redis-url",
    envvar="RANKCRAWL_REDIS_URL",
    default=None,
    help="Redis/Valkey URL (redis://, rediss://, unix://). Default: REDIS_URL, else the embedded server.",
)


class UserError(click.ClickException):
    """A bad input or environment problem, shown as one line with a non-zero exit."""

    def show(self, file: Any = None) -> None:
        click.echo(f"rankcrawl: error: {self.format_message()}", err=True)


def one_line_errors(func: F) -> F:
    """Turn expected failures (Redis down, unreadable input) into ``UserError``; no tracebacks, and no
    password of the command's Redis URL in the message."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        url = resolve_redis_url(kwargs.get("redis_url"))
        try:
            return func(*args, **kwargs)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except RedisUnavailable as exc:
            raise UserError(scrub(str(exc), url)) from None
        except redis.RedisError as exc:
            raise UserError(scrub(f"Redis: {exc}", url)) from None
        except (OSError, ValueError) as exc:
            raise UserError(scrub(str(exc), url)) from None
        except KeyboardInterrupt:
            sys.exit(130)

    return wrapper  # type: ignore[return-value]
