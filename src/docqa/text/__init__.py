"""Text in, tokens and chunks out: loaders, section and window chunkers, the tokenizer."""

from docqa.text.tokenize import TokenHashes, hash_tokens, tokenize, tokenize_batch

__all__ = ["TokenHashes", "hash_tokens", "tokenize", "tokenize_batch"]
