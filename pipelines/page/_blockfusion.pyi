import numpy as np

from rankcrawl.pipelines.page.deadline import Deadline

def fusion_groups(words: np.ndarray, lines: np.ndarray, last: np.ndarray, forced: np.ndarray, no_gap: np.ndarray,
                  theta_max: float, smoothed: bool, rules: bool, deadline: Deadline | None) -> list[tuple[int, int]]: ...
