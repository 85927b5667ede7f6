"""The transport under every method: the key, JSON in and out, the error envelope as a typed error,
the spec's retry rule and the request timeout. Standard library only (urllib)."""

from __future__ import annotations

import email.utils
import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Dict, Mapping, Optional

from .errors import TidemarkApiError, TidemarkError, TidemarkNetworkError, TidemarkTimeoutError

DEFAULT_API_URL = "http://127.0.0.1:8080/v1"
USER_AGENT = "tidemark-sdk-python/0.1"

# The spec's client retry rule: 429, 502, 503, 504 and network failures are retried, at most twice,
# only when the call is safe to repeat: GET, DELETE, or a POST carrying an Idempotency-Key.
RETRY_STATUSES = frozenset({429, 502, 503, 504})
DEFAULT_MAX_RETRIES = 2
DEFAULT_TIMEOUT = 150.0
# A Retry-After longer than this is not slept through: the error goes back to the caller.
DEFAULT_MAX_RETRY_WAIT = 60.0
# POSTs the client gives an Idempotency-Key of its own unless told not to.
AUTO_IDEMPOTENT_POSTS = frozenset({"/scrape", "/crawl", "/map"})

_STATUS_CODES = {
    400: "validation",
    401: "unauthorized",
    402: "plan_limit",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    413: "too_large",
    422: "validation",
    429: "rate_limited",
    500: "internal",
}


def is_safe_to_repeat(method: str, headers: Mapping[str, str]) -> bool:
    m = method.upper()
    if m in ("GET", "HEAD", "DELETE"):
        return True
    return m == "POST" and any(k.lower() == "idempotency-key" for k in headers)


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After in seconds (a number or an HTTP date), or None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    v = value.strip()
    try:
        return max(0.0, float(v))
    except ValueError:
        pass
    try:
        at = email.utils.parsedate_to_datetime(v).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, at - (time.time() if now is None else now))


def backoff_seconds(retry: int) -> float:
    """The wait before retry number ``retry`` (1-based) when the server named none: 0.5 s, 1 s, +-20%."""
    return 0.5 * 2 ** (retry - 1) * (0.8 + 0.4 * random.random())


class Response:
    """An answer: status, headers, and the body (parsed JSON, text, or None)."""

    def __init__(self, status: int, headers: Mapping[str, str], data: Any, attempts: int) -> None:
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.data = data
        self.attempts = attempts

    @property
    def request_id(self) -> Optional[str]:
        return self.headers.get("x-request-id")


class HttpClient:
    def __init__(
        self,
        api_key: str,
        base_url: str = DEFAULT_API_URL,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        if not api_key:
            raise ValueError("an API key is needed: pass api_key or set TIDEMARK_API_KEY")
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.headers = dict(headers or {})

    def url_of(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        url = path if path.startswith(("http://", "https://")) else f"{self.base_url}{path}"
        pairs = [(k, ",".join(map(str, v)) if isinstance(v, (list, tuple)) else _text(v)) for k, v in (query or {}).items() if v is not None]
        if pairs:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(pairs)
        return url

    def is_own_url(self, url: str) -> bool:
        """Whether a URL the API gave out (a ``next`` link) is under this client's API root."""
        a, b = urllib.parse.urlsplit(url), urllib.parse.urlsplit(self.base_url)
        return (a.scheme, a.netloc) == (b.scheme, b.netloc) and a.path.startswith(b.path)

    def request(
        self,
        method: str,
        path: str,
        *,
        route: Optional[str] = None,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        idempotency_key: Any = None,
        stream: bool = False,
        timeout: Optional[float] = None,
    ) -> Response:
        """One call. ``idempotency_key``: a string sends it; False sends none; None lets the client
        mint one for POST /scrape, /crawl and /map. ``stream``: the body is left unread (``data`` is
        the open response, to be read and closed by the caller)."""
        method = method.upper()
        headers: Dict[str, str] = {"Accept": "application/json", "User-Agent": USER_AGENT, **self.headers}
        headers["Authorization"] = f"Bearer {self.api_key}"
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if method == "POST" and idempotency_key is not False:
            if isinstance(idempotency_key, str):
                headers["Idempotency-Key"] = idempotency_key
            elif route in AUTO_IDEMPOTENT_POSTS:
                headers["Idempotency-Key"] = str(uuid.uuid4())
        url = self.url_of(path, query)
        safe = is_safe_to_repeat(method, headers)
        limit = self.timeout if timeout is None else timeout

        attempt = 0
        while True:
            attempt += 1
            can_retry = safe and attempt <= self.max_retries
            req = urllib.request.Request(url, data=payload, headers=headers, method=method)
            try:
                res = urllib.request.urlopen(req, timeout=limit)
            except urllib.error.HTTPError as err:
                wait = retry_after_seconds(err.headers.get("Retry-After"))
                if can_retry and err.code in RETRY_STATUSES and (wait or 0) <= self.max_retry_wait:
                    err.close()
                    time.sleep(backoff_seconds(attempt) if wait is None else wait)
                    continue
                raise _error_from(err, attempt) from None
            except (socket.timeout, TimeoutError) as err:
                raise TidemarkTimeoutError(limit, attempt) from err
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, OSError) as err:
                reason = getattr(err, "reason", err)
                if isinstance(reason, (socket.timeout, TimeoutError)):
                    raise TidemarkTimeoutError(limit, attempt) from err
                if can_retry:
                    time.sleep(backoff_seconds(attempt))
                    continue
                raise TidemarkNetworkError(f"{method} {url}: {reason}", attempt) from err
            if stream:
                return Response(res.status, dict(res.headers.items()), res, attempt)
            try:
                raw = res.read()
            except (socket.timeout, TimeoutError) as err:
                raise TidemarkTimeoutError(limit, attempt) from err
            except (http.client.HTTPException, ConnectionError, OSError) as err:
                raise TidemarkNetworkError(f"{method} {url}: the answer was cut", attempt) from err
            finally:
                res.close()
            return Response(res.status, dict(res.headers.items()), _parse(raw, res.headers.get("Content-Type", "")), attempt)


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _parse(raw: bytes, content_type: str) -> Any:
    if not raw:
        return None
    text = raw.decode("utf-8", errors="replace")
    return json.loads(text) if "json" in content_type else text


def _error_from(err: urllib.error.HTTPError, attempts: int) -> TidemarkError:
    try:
        raw = err.read()
    except (OSError, http.client.HTTPException):
        raw = b""
    finally:
        err.close()
    envelope: Dict[str, Any] = {}
    try:
        parsed = json.loads(raw.decode("utf-8", errors="replace"))
        if isinstance(parsed, dict):
            envelope = parsed
    except ValueError:
        pass
    wait = retry_after_seconds(err.headers.get("Retry-After"))
    code = envelope.get("code") if isinstance(envelope.get("code"), str) else _STATUS_CODES.get(err.code, "unavailable" if err.code >= 500 else "error")
    message = envelope.get("error") if isinstance(envelope.get("error"), str) else f"{err.code} {err.reason}"
    request_id = envelope.get("request_id") if isinstance(envelope.get("request_id"), str) else err.headers.get("X-Request-Id")
    return TidemarkApiError(
        message,
        code,
        err.code,
        request_id=request_id,
        retry_after=None if wait is None else int(-(-wait // 1)),
        details=envelope.get("details"),
        attempts=attempts,
    )

