"""The delivery log's Glue transforms (pure PySpark; docs/delivery-log.md).

``compact_job.py`` and ``analytics_job.py`` next to this package are the job entrypoints. On AWS
both jobs run one script, ``glue_jobs/bundled/roomcast_jobs.py``, which carries this package and
the entrypoints (``make glue-scripts``; docs/decisions/0035-committed-build-inputs.md).
"""
