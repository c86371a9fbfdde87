"""roomcast's Python SDK (being built: see docs/sdk.md)."""

__version__ = "0.1.0"
