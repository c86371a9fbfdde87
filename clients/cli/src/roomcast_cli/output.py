"""Where results and errors go: the API's JSON on stdout with ``--json``, rich tables otherwise;
errors and progress on stderr, so stdout stays clean for pipes."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from rich.console import Console, RenderableType
from rich.text import Text

# Piped output has no terminal width: wide enough that ids and timestamps are never folded.
PIPE_WIDTH = 200

# What turns a command's JSON into what a person reads.
Renderer = Callable[[Any], RenderableType | list[RenderableType]]


def _console(file: TextIO) -> Console:
    console = Console(file=file, soft_wrap=False, highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(file=file, soft_wrap=False, highlight=False, width=PIPE_WIDTH)
    return console


def json_text(data: Any, *, one_line: bool = False) -> str:
    """The JSON a script reads: the API's field names, non-ASCII kept as is."""
    if one_line:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(data, ensure_ascii=False, indent=2)


class Output:
    """One command's output: ``json_mode`` prints data as JSON, else ``human(data)``'s renderables."""

    def __init__(self, json_mode: bool, stdout: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self.json_mode = json_mode
        self._stdout_file = stdout or sys.stdout
        self.console = _console(self._stdout_file)
        self.errors = _console(stderr or sys.stderr)

    def result(self, data: Any, human: Renderer) -> None:
        """Print a command's result: its JSON, or what ``human`` makes of it."""
        if self.json_mode:
            self.json_line(data, one_line=False)
            return
        rendered = human(data)
        for renderable in rendered if isinstance(rendered, list) else [rendered]:
            # A no_wrap Text (a receipt, a secret) is printed whole on one line, whatever the width.
            self.console.print(
                renderable, soft_wrap=isinstance(renderable, Text) and bool(renderable.no_wrap)
            )

    def json_line(self, data: Any, *, one_line: bool = True) -> None:
        self._stdout_file.write(json_text(data, one_line=one_line) + "\n")
        self._stdout_file.flush()

    def note(self, text: str) -> None:
        """A remark on stderr (never mixed into stdout's data)."""
        self.errors.print(text, markup=False)

    @contextmanager
    def waiting(self, text: str) -> Iterator[Callable[[str], None]]:
        """A spinner on stderr while a long wait runs (only on a terminal and without ``--json``);
        yields a function that changes its text."""
        if self.json_mode or not self.errors.is_terminal:
            yield lambda _text: None
            return
        with self.errors.status(text) as status:
            yield lambda new_text: status.update(new_text)
