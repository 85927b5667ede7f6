"""Scripts the failure server of the TypeScript testkit (libs/testkit, startFailureServer) over its
control routes: what each request answers, and what it received."""

from __future__ import annotations

import json
import os
import urllib.parse
import urllib.request
from typing import Any, Dict, List

FAILURE_URL = os.environ.get("TIDEMARK_FAILURE_URL", "")


def _control(method: str, path: str, body: Any = None) -> Any:
    origin = urllib.parse.urlsplit(FAILURE_URL)
    url = f"{origin.scheme}://{origin.netloc}/__control{path}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        raw = res.read()
    return json.loads(raw) if raw else None


def script(method: str, path: str, steps: List[Dict[str, Any]]) -> None:
    _control("POST", "/script", {"method": method, "path": path, "steps": steps})


def requests(method: str, path: str) -> List[Dict[str, Any]]:
    return [r for r in _control("GET", "/requests")["data"] if r["method"] == method and r["path"] == path]


def reset() -> None:
    _control("POST", "/reset")


def fail(status: int, headers: Dict[str, str] = None) -> Dict[str, Any]:
    code = "rate_limited" if status == 429 else "unavailable"
    return {"status": status, "headers": headers or {}, "body": {"error": code, "code": code, "request_id": "req_injected"}}
