"""The `roomcast` command line, built on the roomcast_client SDK (docs/cli.md)."""

__version__ = "0.1.0"
