"""The delivery log's Glue transforms (pure PySpark; docs/delivery-log.md).

Shipped to Glue as ``roomcast_glue.zip`` (``--extra-py-files``); ``compact_job.py`` and
``analytics_job.py`` next to this package are the job entrypoints.
"""
