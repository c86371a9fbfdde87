"""The outbox function: sends the first envelopes a publish could not send."""
