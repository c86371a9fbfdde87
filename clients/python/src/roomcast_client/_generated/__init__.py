# Generated from functions/docs/api_docs/openapi.json by `make sdk-models`
# (python -m roomcast_dev.sdk_models): do not edit. `make template-inputs` and
# tests/unit/test_generated_clients.py fail while it is stale.
"""Code generated from the API's OpenAPI document: ``models`` (datamodel-code-generator) and
``enums`` (docs/decisions/0044-generated-sdk-models.md)."""
