"""The conformance run's event-type check (tests/e2e/schemathesis_hooks.py), on recorded scenarios
made here: what it flags and what it lets through."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tests.e2e.schemathesis_hooks import an_archived_event_type_is_not_found_until_restored as check


def _case(number: int, method: str, path: str, name: str = "x", body: Any = None, identity: str = "a") -> Any:
    return SimpleNamespace(
        id=str(number),
        method=method,
        operation=SimpleNamespace(path=path),
        path_parameters={"name": name},
        body=body,
        auth_identity=identity,
    )


def _run(steps: list[tuple[Any, int]]) -> None:
    """Checks the last step against the steps before it, as the stateful phase records them."""
    answers = {case.id: SimpleNamespace(status_code=status) for case, status in steps}
    internals = SimpleNamespace(
        find_all_cases=lambda: iter(case for case, _ in steps),
        find_response=lambda case_id: answers[case_id],
    )
    last, status = steps[-1]
    check(SimpleNamespace(internals=internals), SimpleNamespace(status_code=status), last)


ITEM = "/event-types/{name}"
ARCHIVE = (_case(1, "DELETE", ITEM), 200)


def test_a_read_of_an_archived_event_type_that_answers_is_flagged() -> None:
    with pytest.raises(AssertionError, match="archived"):
        _run([ARCHIVE, (_case(2, "GET", ITEM), 200)])
    with pytest.raises(AssertionError, match="archived"):
        _run([ARCHIVE, (_case(2, "PATCH", ITEM, body={"description": "d"}), 200)])


@pytest.mark.parametrize(
    "steps",
    [
        [ARCHIVE, (_case(2, "POST", f"{ITEM}/restore"), 200), (_case(3, "GET", ITEM), 200)],
        [ARCHIVE, (_case(2, "PATCH", ITEM, body={"archived": False}), 200), (_case(3, "GET", ITEM), 200)],
        [ARCHIVE, (_case(2, "GET", ITEM), 404)],
        [(_case(1, "DELETE", ITEM), 404), (_case(2, "GET", ITEM), 200)],
        [ARCHIVE, (_case(2, "GET", ITEM, name="y"), 200)],
        [ARCHIVE, (_case(2, "GET", ITEM, identity="b"), 200)],
    ],
    ids=["restored", "patched back", "not found", "archive refused", "another name", "another tenant"],
)
def test_what_is_not_a_read_after_an_archive_passes(steps: list[tuple[Any, int]]) -> None:
    _run(steps)
