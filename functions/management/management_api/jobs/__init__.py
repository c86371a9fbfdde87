"""Jobs: the bulk actions that run in the background, and their progress."""
