"""docqa on Ray (the ``ray`` extra): distributed index builds and batch search over shards.

Nothing here imports Ray until it is used: ``ray_runner`` (build tasks) and
``RayShardSearcher`` / ``open_ray`` (actors owning shards) call ``require_ray`` first.
"""

from docqa.distributed.cluster import connect, require_ray
from docqa.distributed.search import RayShardSearcher, open_ray
from docqa.distributed.tasks import build_on_ray, ray_runner

__all__ = [
    "RayShardSearcher",
    "build_on_ray",
    "connect",
    "open_ray",
    "ray_runner",
    "require_ray",
]
