"""Upload the Glue job scripts and the transforms package to a deployed stack's log bucket.

`sam deploy` does not package Glue scripts; `make deploy` runs this after it:
    glue/compact_job.py, glue/analytics_job.py   (the entrypoints, ScriptLocation)
    glue/roomcast_glue.zip                       (the pure transforms, --extra-py-files)
"""

from __future__ import annotations

import argparse
import io
import sys
import zipfile
from pathlib import Path

from roomcast_dev.keys import samconfig_stack_name

GLUE_JOBS_DIR = Path(__file__).resolve().parents[2] / "glue_jobs"
ENTRYPOINTS = ("compact_job.py", "analytics_job.py")


def transforms_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted((GLUE_JOBS_DIR / "roomcast_glue").rglob("*.py")):
            archive.write(path, path.relative_to(GLUE_JOBS_DIR).as_posix())
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stack-name", default=samconfig_stack_name())
    args = parser.parse_args(argv)
    import boto3

    stacks = boto3.client("cloudformation").describe_stacks(StackName=args.stack_name)["Stacks"]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}
    bucket = outputs["LogBucketName"]
    s3 = boto3.client("s3")
    for name in ENTRYPOINTS:
        s3.upload_file(str(GLUE_JOBS_DIR / name), bucket, f"glue/{name}")
    s3.put_object(Bucket=bucket, Key="glue/roomcast_glue.zip", Body=transforms_zip())
    print(f"Glue scripts uploaded to s3://{bucket}/glue/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
