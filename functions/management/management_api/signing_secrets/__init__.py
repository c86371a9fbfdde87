"""Signing secrets: rotating a PUSH subscription's webhook signing secret."""
