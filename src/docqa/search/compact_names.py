"""What an index with int8 codes stores and what ``--storage`` accepts, apart from the search
code (``docqa.search.compact`` loads Numba; opening an index or checking settings needs only
these names)."""

ARRAYS = ("int8_codes", "int8_scale", "int8_radius", "int8_code_norm")
"""Names of the arrays stored in an index beside ``vectors.npy`` (``CompactMatrix.to_arrays``)."""
STORAGES = ("float32", "int8")
"""What ``docqa index --storage`` accepts: float32 rows only, or int8 codes beside them."""
