"""Developer tools: the local stack (moto + HTTP gateway + SQS pollers), API keys, demo."""
