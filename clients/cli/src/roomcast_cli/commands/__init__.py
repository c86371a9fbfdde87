"""One module per command family, each a typer app (or a command) that main.py mounts."""
