"""Retrieval evaluation: a query set with expected documents and a benchmark (`bench`)."""
