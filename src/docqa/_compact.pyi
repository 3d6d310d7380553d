import numpy as np

def supported() -> bool: ...
def best_isa() -> int: ...
def candidates(
    codes: np.ndarray,
    ids: np.ndarray,
    use_ids: bool,
    scale: np.ndarray,
    radius: np.ndarray,
    code_norm: np.ndarray,
    qpack: np.ndarray,
    terms: np.ndarray,
    lo: int,
    hi: int,
    out_q: np.ndarray,
    out_pos: np.ndarray,
    panel: np.ndarray,
    tau: np.ndarray,
    isa: int,
) -> tuple[int, int]: ...
def dots(
    codes: np.ndarray,
    ids: np.ndarray,
    use_ids: bool,
    scale: np.ndarray,
    radius: np.ndarray,
    code_norm: np.ndarray,
    qpack: np.ndarray,
    terms: np.ndarray,
    lo: int,
    hi: int,
    out: np.ndarray,
    panel: np.ndarray,
    tau: np.ndarray,
    isa: int,
) -> None: ...
