"""Messages: a published message and the delivery status of each of its destinations."""
