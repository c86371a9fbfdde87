"""API reference: /openapi.json and /docs, served from the document merged at build time."""
