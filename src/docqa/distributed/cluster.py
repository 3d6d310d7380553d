"""Finding Ray and a cluster to run on (the one place that imports ``ray``)."""

from __future__ import annotations

import logging
from types import ModuleType
from typing import Any

from docqa.errors import InputError


def require_ray() -> ModuleType:
    """The ``ray`` module; ``InputError`` saying how to install it when it is missing."""
    try:
        import ray
    except ImportError:
        raise InputError(
            "Ray is not installed; install it with `pip install 'docqa[ray]'` or drop --ray"
        ) from None
    return ray


def connect(address: str | None = None, **init: Any) -> bool:
    """Join the Ray cluster at ``address`` (None: the one already joined, else ``RAY_ADDRESS``,
    else a new local one); returns True when this call started Ray (then shut it down after)."""
    ray = require_ray()
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.ERROR,  # Ray's start-up notes would bury docqa's one line
        **init,
    }
    try:
        ray.init(address=address, **options)
    except ConnectionError as exc:
        raise InputError(f"cannot reach a Ray cluster at {address!r} ({exc}); start one "
                         "with `ray start --head` or drop the address") from exc  # fmt: skip
    return True
