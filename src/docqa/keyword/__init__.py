"""Keyword search: Okapi BM25 over CSR postings (``BM25Index``) and its plain-Python twin."""

from docqa.keyword.bm25 import ARRAYS, BM25Config, BM25Index

__all__ = ["ARRAYS", "BM25Config", "BM25Index"]
