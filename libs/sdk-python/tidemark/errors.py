"""What a call to the Tidemark API can fail with."""

from __future__ import annotations

from typing import Any, Optional


class TidemarkError(Exception):
    """A failed call. ``code`` is the envelope's (``not_found``, ``rate_limited``, ``read_only``, ...)
    or, when no answer came, ``network`` or ``timeout``. ``status`` is 0 when no answer came."""

    def __init__(
        self,
        message: str,
        code: str,
        status: int,
        request_id: Optional[str] = None,
        retry_after: Optional[int] = None,
        details: Any = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.request_id = request_id
        self.retry_after = retry_after
        self.details = details
        self.attempts = attempts

    def __str__(self) -> str:
        return f"{self.message} ({self.code})"


class TidemarkApiError(TidemarkError):
    """The API answered with an error envelope ``{error, code, request_id}``."""


class TidemarkNetworkError(TidemarkError):
    """No answer: the connection failed or was cut."""

    def __init__(self, message: str, attempts: int = 1) -> None:
        super().__init__(message, "network", 0, attempts=attempts)


class TidemarkTimeoutError(TidemarkError):
    """No answer within the request timeout (150 s unless configured)."""

    def __init__(self, timeout: float, attempts: int = 1) -> None:
        super().__init__(f"no answer within {timeout:g} s", "timeout", 0, attempts=attempts)


class WebhookVerificationError(Exception):
    """A webhook message whose signature does not verify (or is too old, or has none)."""


class WaitTimeoutError(Exception):
    """A job or run still running when a wait gave up (the job goes on)."""
