"""Dead letters: messages that ended dead for a subscription — listed, replayed, purged."""
