"""Searching sorted arrays (filled in below)."""
