"""roomcast shared code: domain rules, configuration, observability and data access.

Shipped to Lambda as the shared layer and imported the same way under pytest
(``layers/shared`` is on the test path).
"""
