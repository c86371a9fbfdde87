"""The `roomcast` command line (being built: see docs/cli.md)."""
