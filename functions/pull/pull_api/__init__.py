"""Pull API: pull, ack, nack and extend on a PULL subscription's queue."""
