from typing import Any

import numpy as np

from rankcrawl.pipelines.page.deadline import Deadline
from rankcrawl.pipelines.page.document import TextBlock

def atomic_blocks(root: Any, deadline: Deadline | None,
                  anchor_paths: dict[Any, tuple[str, ...]] | None) -> tuple[list[TextBlock], list[Any]]: ...
def search_page(root: Any, max_href: int, max_links: int) -> tuple[list[Any], list[Any], list[Any], list[str], list[Any]]: ...
def anchor_facts(anchors: list[Any]) -> tuple[list[str | None], np.ndarray, np.ndarray, np.ndarray]: ...
