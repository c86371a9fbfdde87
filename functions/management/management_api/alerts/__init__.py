"""Alert rules and the alerts they raise (docs/alerts.md)."""
