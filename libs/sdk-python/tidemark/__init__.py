"""Python client of the Tidemark API (standard library only).

    from tidemark import Tidemark
    tm = Tidemark(api_key="service_...", base_url="http://127.0.0.1:8080/v1")
    crawl = tm.crawl.wait(tm.crawl.start("https://example.com/", limit=50)["id"])
"""

from ._http import (
    AUTO_IDEMPOTENT_POSTS,
    DEFAULT_API_URL,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    RETRY_STATUSES,
    Response,
)
from .client import Changes, Crawl, Exports, Map, Pages, Projects, Runs, Scrape, Tidemark, Workspace
from .errors import (
    TidemarkApiError,
    TidemarkError,
    TidemarkNetworkError,
    TidemarkTimeoutError,
    WaitTimeoutError,
    WebhookVerificationError,
)
from .types import ChangeRecord, JobEnvelope, MapEnvelope, MapRow, PageRow, Project, Run
from .webhooks import verify_service_signature, verify_standard_signature, verify_webhook

__all__ = [
    "AUTO_IDEMPOTENT_POSTS",
    "DEFAULT_API_URL",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "RETRY_STATUSES",
    "ChangeRecord",
    "Changes",
    "Crawl",
    "Exports",
    "JobEnvelope",
    "Map",
    "MapEnvelope",
    "MapRow",
    "PageRow",
    "Pages",
    "Project",
    "Projects",
    "Response",
    "Run",
    "Runs",
    "Scrape",
    "Tidemark",
    "TidemarkApiError",
    "TidemarkError",
    "TidemarkNetworkError",
    "TidemarkTimeoutError",
    "WaitTimeoutError",
    "WebhookVerificationError",
    "Workspace",
    "verify_service_signature",
    "verify_standard_signature",
    "verify_webhook",
]

__version__ = "0.1.0"
