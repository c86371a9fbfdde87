"""Schedule preview: a subscription's effective retry schedule, cut where the room's expiry falls."""
