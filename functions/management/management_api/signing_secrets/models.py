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


class LiveSecret(BaseModel):
    signingSecret: str
    validUntil: str | None = Field(description="When it stops signing; null: until the next rotation.")


class LiveSecrets(BaseModel):
    model_config = examples(
        {
            "signingSecret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "secrets": [
                {"signingSecret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "validUntil": None},
                {
                    "signingSecret": "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
                    "validUntil": "2026-11-23T10:00:00.000Z",
                },
            ],
        }
    )

    signingSecret: str = Field(
        description="The newest secret: verify with it (and with the others until they end)."
    )
    secrets: list[LiveSecret] = Field(description="Every secret that signs webhooks now, newest first.")
