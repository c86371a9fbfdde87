"""The one place that creates the Logger and Metrics; everything else imports them.

No powertools Tracer: its X-Ray SDK import alone costs ~90 ms of cold start, more than
boto3's whole import. The template keeps ``Tracing: Active``, so X-Ray still records every
invocation at the Lambda service level (docs/decisions/0008-cold-start.md).
"""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics

SERVICE_NAME = "roomcast"
METRICS_NAMESPACE = "Roomcast"

logger = Logger(service=SERVICE_NAME)
metrics = Metrics(namespace=METRICS_NAMESPACE, service=SERVICE_NAME)
