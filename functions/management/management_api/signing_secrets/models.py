"""Secret rotation response (the public contract; see /openapi.json)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from roomcast.api import examples


class RotatedSecret(BaseModel):
    model_config = examples(
        {
            "signingSecret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "previousSecretsValidUntil": "2026-11-23T10:00:00.000Z",
        }
    )

    signingSecret: str = Field(description="The new secret, shown once.")
    previousSecretsValidUntil: str | None = Field(
        description="Until then every webhook carries a signature with the old secret too."
    )
