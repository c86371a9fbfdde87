"""A subscription's transformation: its versions, a rollback and a dry run."""
