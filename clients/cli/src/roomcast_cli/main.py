"""`roomcast`: the command line's entry point."""

import sys


def main() -> None:
    print("roomcast: the command line is being built (docs/cli.md)", file=sys.stderr)
    sys.exit(1)
