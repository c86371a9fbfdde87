"""bench/pull_floor.py's records: the captured INSERTs write new items each cycle, as a first
attempt's record does, and keep everything else the handler sent."""

from __future__ import annotations

import re
from typing import Any

from bench.pull_floor import new_records

STATEMENT = "INSERT INTO \"t\" VALUE {'PK': ?, 'SK': ?, 'status': ?}"
REST = [{"S": "DLV#sub_1"}, {"S": "delivered"}]


def captured(count: int) -> dict[str, Any]:
    return {
        "Statements": [
            {"Statement": STATEMENT, "Parameters": [{"S": f"TENANT#acme#MSG#msg_{n:032x}"}, *REST]}
            for n in range(count)
        ]
    }


def test_each_insert_gets_a_new_message_of_the_same_tenant_and_keeps_the_rest() -> None:
    before = captured(10)

    first, second = new_records(before), new_records(before)

    partitions = [s["Parameters"][0]["S"] for s in first["Statements"] + second["Statements"]]
    assert len(set(partitions)) == 20
    assert all(re.fullmatch(r"TENANT#acme#MSG#msg_[0-9a-f]{32}", p) for p in partitions)
    assert not set(partitions) & {s["Parameters"][0]["S"] for s in before["Statements"]}
    for statement in first["Statements"]:
        assert statement["Statement"] == STATEMENT
        assert statement["Parameters"][1:] == REST
    assert before == captured(10)  # the captured call is left as it was
