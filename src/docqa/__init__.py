"""docqa: fast, exact, grounded question answering over your own documents."""

from docqa.errors import DocqaError

__version__ = "0.1.0"

__all__ = ["DocqaError", "__version__"]
