"""Pull API: pull, ack and nack on a PULL subscription's queue."""
