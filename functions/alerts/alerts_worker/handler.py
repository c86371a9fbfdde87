"""Alerts function: every alert rule evaluated on its schedule (each minute on AWS), one
notification when a rule fires and one when it resolves (roomcast.alerts; docs/alerts.md)."""

from __future__ import annotations

from functools import cache
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from roomcast.alerts import AlertEvaluator, AlertTable, Notifier
from roomcast.catalog import CatalogTable
from roomcast.metrics import MetricsTable
from roomcast.platform import load_settings, logger, metrics, now_ms, sns_client
from roomcast.webhooks import PushUrlPolicy


@cache
def evaluator() -> AlertEvaluator:
    settings = load_settings()
    catalog = CatalogTable(settings.table_name)
    topic = settings.alert_topic_arn or None
    notifier = Notifier(
        PushUrlPolicy(allow_loopback=settings.allow_loopback_push_urls),
        sns=sns_client() if topic else None,
        topic_arn=topic,
    )
    return AlertEvaluator(
        AlertTable.sharing(catalog), MetricsTable.sharing(catalog), catalog, notifier, now_ms
    )


@logger.inject_lambda_context
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    done = evaluator().run()
    metrics.add_metric(name="AlertsFired", unit=MetricUnit.Count, value=len(done.fired))
    metrics.add_metric(name="AlertsResolved", unit=MetricUnit.Count, value=len(done.resolved))
    metrics.add_metric(name="AlertNotificationsFailed", unit=MetricUnit.Count, value=done.failed)
    if done.fired or done.resolved or done.failed:
        logger.info(
            "alert rules evaluated",
            extra={
                "rules": done.rules,
                "fired": done.fired,
                "resolved": done.resolved,
                "failed": done.failed,
            },
        )
    return {"rules": done.rules, "fired": len(done.fired), "resolved": len(done.resolved)}
