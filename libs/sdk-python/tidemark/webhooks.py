"""Verifying the webhooks Tidemark sends, under both schemes its delivery service signs with."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Mapping, Optional, Union

from .errors import WebhookVerificationError

DEFAULT_TOLERANCE_SECONDS = 300

Body = Union[bytes, str]


def _bytes(body: Body) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else body


def _standard_key(secret: str) -> bytes:
    if secret.startswith("whsec_"):
        b64 = secret[len("whsec_"):]
        try:
            return base64.b64decode(b64 + "=" * (-len(b64) % 4), altchars=b"-_" if ("-" in b64 or "_" in b64) else None)
        except (binascii.Error, ValueError):
            return b""
    return secret.encode("utf-8")


def verify_service_signature(secret: str, raw_body: Body, signature: str) -> bool:
    """X-Service-Signature: ``sha256=`` + hex HMAC-SHA256 of the raw body under the whole secret string."""
    m = re.fullmatch(r"sha256=([0-9a-fA-F]{64})", signature.strip())
    if not m:
        return False
    expected = hmac.new(secret.encode("utf-8"), _bytes(raw_body), hashlib.sha256).hexdigest()
    return hmac.compare_digest(m.group(1).lower(), expected)


def verify_standard_signature(
    secret: str,
    raw_body: Body,
    msg_id: str,
    timestamp: str,
    signature: str,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> bool:
    """Standard Webhooks: ``webhook-signature`` holds space-separated ``v1,<base64>`` entries, each an
    HMAC-SHA256 of ``<id>.<timestamp>.<body>``; one must match, within the tolerance."""
    if not timestamp.isdigit():
        return False
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > tolerance_seconds:
        return False
    signed = msg_id.encode("utf-8") + b"." + timestamp.encode("utf-8") + b"." + _bytes(raw_body)
    expected = base64.b64encode(hmac.new(_standard_key(secret), signed, hashlib.sha256).digest()).decode("ascii")
    return any(
        part.startswith("v1,") and hmac.compare_digest(part[3:], expected) for part in signature.split(" ")
    )


def verify_webhook(
    secret: str,
    raw_body: Body,
    headers: Mapping[str, str],
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> Any:
    """Checks a webhook Tidemark sent and returns its parsed body. Pass the body exactly as received
    and its headers. Every scheme whose headers are present must verify; at least one must be."""
    h = {k.lower(): v for k, v in headers.items()}
    service = h.get("x-service-signature")
    standard = h.get("webhook-signature")
    if service is None and standard is None:
        raise WebhookVerificationError("no signature header")
    if service is not None and not verify_service_signature(secret, raw_body, service):
        raise WebhookVerificationError("X-Service-Signature does not match the body")
    if standard is not None:
        msg_id, timestamp = h.get("webhook-id"), h.get("webhook-timestamp")
        if not msg_id or not timestamp:
            raise WebhookVerificationError("webhook-id or webhook-timestamp missing")
        if not verify_standard_signature(secret, raw_body, msg_id, timestamp, standard, tolerance_seconds, now):
            raise WebhookVerificationError("webhook-signature does not match, or the message is too old")
    try:
        return json.loads(_bytes(raw_body).decode("utf-8"))
    except ValueError as err:
        raise WebhookVerificationError("the body is not JSON") from err
