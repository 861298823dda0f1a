from collections.abc import Callable
from typing import Any

from rankcrawl.pipelines.deadline import Deadline
from rankcrawl.pipelines.document import TextBlock

def atomic_blocks(root: Any, deadline: Deadline | None, anchor_paths: dict[Any, tuple[str, ...]] | None,
                  attribute_label: Callable[[str | None, str | None], str]) -> tuple[list[TextBlock], list[Any]]: ...
def search_page(root: Any, max_href: int, max_links: int) -> tuple[list[Any], list[Any], list[Any], list[str], list[Any]]: ...
