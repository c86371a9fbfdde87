"""roomcast_glue.schema is what the jobs write; what others declare of it must agree: the Glue
tables in template.yaml that Athena reads the files through, and the event names the analytics
count. No Spark session: pyspark's types and the template are read as they are."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql.types import StructField, StructType

from roomcast_dev.template import load_template
from roomcast_glue.schema import COMPACTED, DAILY_ANALYTICS, EVENTS, TABLE_PARTITION_KEY
from roomcast_glue.transforms import is_event

# Each Glue table of the template, and the schema of the files under its location.
GLUE_TABLES = {"DeliveryLogTable": COMPACTED, "DailyAnalyticsTable": DAILY_ANALYTICS}


def _hive(field: StructField) -> tuple[str, str]:
    # The Glue catalog keeps names lower-cased; Spark's simpleString is the Hive type name
    # (string, int, bigint, double, timestamp, map<int,bigint>).
    return field.name.lower(), field.dataType.simpleString()


def _schema_columns(schema: StructType) -> list[tuple[str, str]]:
    """The schema's columns as a Glue table declares them: the data columns in the schema's order,
    then the partition key (a column of the schema only while in memory)."""
    if TABLE_PARTITION_KEY.name in schema.fieldNames():
        assert schema[TABLE_PARTITION_KEY.name] == TABLE_PARTITION_KEY
    data = [field for field in schema.fields if field.name != TABLE_PARTITION_KEY.name]
    return [_hive(field) for field in [*data, TABLE_PARTITION_KEY]]


def _declared_columns(table: dict[str, Any]) -> list[tuple[str, str]]:
    table_input = table["Properties"]["TableInput"]
    declared = [*table_input["StorageDescriptor"]["Columns"], *table_input["PartitionKeys"]]
    return [(column["Name"], column["Type"]) for column in declared]


@pytest.fixture(scope="module")
def resources() -> dict[str, Any]:
    resources: dict[str, Any] = load_template()["Resources"]
    return resources


def test_every_glue_table_of_the_template_is_checked(resources: dict[str, Any]) -> None:
    assert {name for name, r in resources.items() if r["Type"] == "AWS::Glue::Table"} == set(GLUE_TABLES)


@pytest.mark.parametrize("table_id", GLUE_TABLES)
def test_a_glue_table_declares_exactly_its_schemas_columns_in_order(
    resources: dict[str, Any], table_id: str
) -> None:
    # When
    declared = _declared_columns(resources[table_id])

    # Then the same columns, in the same order, of the same types, partition key last
    assert declared == _schema_columns(GLUE_TABLES[table_id])


def test_an_event_name_the_jobs_do_not_know_is_refused() -> None:
    with pytest.raises(ValueError, match="not a delivery-log event"):
        is_event("deliverd")


def test_the_jobs_know_exactly_the_events_the_functions_write() -> None:
    # Given: the layer's events (the jobs ship without the layer, so they keep their own list)
    from roomcast.log.records import LogEvent

    # Then
    assert sorted(EVENTS) == sorted(event.value for event in LogEvent)
