"""Sharded indexes: search over shards merged canonically, the sharded build, the collection."""
