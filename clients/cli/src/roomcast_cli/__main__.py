"""``python -m roomcast_cli``: the same as the ``roomcast`` command."""

from roomcast_cli.main import main

main()
