"""Bulk actions on a subscription's deliveries: retry now, clear all."""
