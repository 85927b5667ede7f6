"""The records the client returns, as TypedDicts (the fields the spec and the OpenAPI document
name; the API may add more). ``total=False`` marks records whose fields depend on the request
(bodies come back only in the formats asked for)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict


class Progress(TypedDict):
    done: int
    total: int
    queued: int


class PageRow(TypedDict, total=False):
    url: str
    status: str
    httpStatus: Optional[int]
    verdict: Optional[str]
    errorCode: Optional[str]
    shape: Optional[str]
    warnings: List[str]
    signals: List[str]
    method: Optional[str]
    tier: Optional[str]
    credits: int
    billedAs: Optional[str]
    climbedTo: Optional[str]
    words: Optional[int]
    language: Optional[str]
    markdown: str
    text: str
    cleanHtml: str
    html: str
    links: List[str]
    fields: Dict[str, Any]
    head: Optional[Dict[str, Any]]
    reason: Optional[str]
    crawledAt: Optional[str]
    # crawl and project rows
    foundVia: str
    firstReferer: Optional[str]
    inSitemap: bool
    inLinks: int
    orphan: bool
    unlisted: bool
    origin: str
    depth: int


class JobEnvelope(TypedDict, total=False):
    id: str
    kind: str
    status: str
    progress: Progress
    creditsUsed: int
    counts: Dict[str, int]
    data: List[PageRow]
    next: Optional[str]
    cursor: Optional[str]
    stop: Optional[str]
    request_id: Optional[str]
    error: Optional[str]
    createdAt: str
    webhookSecret: str
    # crawl
    projectId: str
    runId: str


class MapRow(TypedDict, total=False):
    url: str
    lastmod: Optional[str]
    changefreq: Optional[str]
    source: str
    file: Optional[str]
    section: Optional[str]


class MapEnvelope(TypedDict, total=False):
    id: str
    kind: str
    status: str
    progress: Progress
    creditsUsed: int
    data: List[MapRow]
    next: Optional[str]
    cursor: Optional[str]
    totals: Dict[str, int]
    robots: Any
    method: Optional[str]


class Project(TypedDict):
    id: str
    name: Optional[str]
    seed: str
    host: str
    schedule: str
    retention: str
    config: Dict[str, Any]
    createdAt: str
    updatedAt: str


class Run(TypedDict, total=False):
    id: str
    projectId: str
    status: str
    trigger: str
    progress: Progress
    counts: Dict[str, int]
    creditsUsed: int
    stop: Optional[str]
    engines: Any
    log: List[Any]
    createdAt: str
    startedAt: Optional[str]
    finishedAt: Optional[str]


class ChangeRecord(TypedDict, total=False):
    id: str
    runId: str
    baseline: Optional[str]
    counts: Dict[str, int]
    coverage: Dict[str, Any]
    digest: Optional[Dict[str, Any]]
    entries: List[Dict[str, Any]]
    createdAt: str


class Page(TypedDict, total=False):
    """A list page: its rows and the ready-made URL of the page after it."""

    data: List[Any]
    next: Optional[str]
    cursor: Optional[str]
