"""Numba's on-disk cache keyed on every file a kernel is compiled from, not only its own.

Numba stamps a ``cache=True`` function with its own source file alone. The top-k kernels in
``kernels.py`` inline the SIMD dot product from ``lanes.py``, so an edit to ``lanes.py`` used to
leave stale machine code in the cache until someone touched ``kernels.py``. ``track(module,
*dependencies)`` fixes that: functions defined in ``module`` get a cache locator whose source
stamp also covers each dependency's bytes, so editing any of them recompiles.

Numba has no public hook for this; its locator classes (``numba.core.caching``) are the
documented extension point of ``NUMBA_CACHE_LOCATOR_CLASSES``, and we prepend ours to the same
list. Should a Numba release move them, ``track`` leaves the cache as Numba keys it (the
kernels still work; only the dependency stamp is lost).
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

_DEPENDENCIES: dict[str, tuple[str, ...]] = {}


def _digest(paths: tuple[str, ...]) -> str:
    sha = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            sha.update(f.read())
    return sha.hexdigest()


def _locators() -> list[type[Any]]:
    """Locator classes that add the dependencies' digest to Numba's own source stamp."""
    from numba.core import caching

    made = []
    for base in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator):

        class Tracked(base):  # type: ignore[valid-type, misc]
            def get_source_stamp(self) -> Any:
                return (super().get_source_stamp(), _digest(_DEPENDENCIES[self._py_file]))

            @classmethod
            def from_function(cls, py_func: Any, py_file: str) -> Any:
                if os.path.realpath(py_file) not in _DEPENDENCIES:
                    return None
                return super().from_function(py_func, os.path.realpath(py_file))

        Tracked.__name__ = Tracked.__qualname__ = f"DependencyTracking{base.__name__}"
        made.append(Tracked)
    return made


def track(module_file: str, *dependencies: str) -> None:
    """Key the Numba cache of functions defined in ``module_file`` on ``dependencies`` too."""
    from numba.core import caching

    # ``CacheImpl`` since Numba 0.61, ``_CacheImpl`` before.
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    if impl is None:  # pragma: no cover - a Numba without this layout
        return
    _DEPENDENCIES[os.path.realpath(module_file)] = tuple(os.path.realpath(d) for d in dependencies)
    present = {cls.__name__ for cls in impl._locator_classes}
    if "DependencyTrackingInTreeCacheLocator" not in present:
        impl._locator_classes[:0] = _locators()
