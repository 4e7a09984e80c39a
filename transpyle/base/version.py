"""The package version, which generated modules and the cache name."""
__version__ = "0.1.0"
