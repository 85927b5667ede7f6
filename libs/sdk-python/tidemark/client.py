"""The Tidemark API for Python: the project-free verbs (scrape, crawl, map), projects, runs, changes,
pages and exports, one method per route. Keyword arguments of a request body are the API's own
field names (``maxDepth``, ``includePaths``, ``run_id``), so the REST reference applies as it is."""

from __future__ import annotations

import os
import time
import urllib.parse
from typing import Any, BinaryIO, Callable, Dict, Iterator, List, Optional, TypeVar, cast

from ._http import DEFAULT_API_URL, HttpClient, Response
from .errors import TidemarkApiError, WaitTimeoutError
from .types import ChangeRecord, JobEnvelope, MapEnvelope, MapRow, Page, PageRow, Project, Run

T = TypeVar("T")
ACTIVE = frozenset({"queued", "running"})


def _q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _body(**fields: Any) -> Dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def _paginate(http: HttpClient, first: Callable[[], Page], again: Callable[[str], Page]) -> Iterator[Any]:
    """Every row of a paged list, following each ``next`` (or, when it points off the API root the
    client was given, repeating the call with the ``cursor``: the key never goes elsewhere)."""
    page = first()
    while True:
        rows = page.get("data", [])
        yield from rows
        nxt = page.get("next")
        # A running job's list always has a next (where later rows will appear): an empty page
        # means nothing more for now.
        if not nxt or not rows:
            return
        if http.is_own_url(nxt):
            page = cast(Page, http.request("GET", nxt).data)
        elif page.get("cursor"):
            page = again(cast(str, page["cursor"]))
        else:
            return


def _poll(
    what: str,
    read: Callable[[], T],
    done: Callable[[T], bool],
    interval: float,
    timeout: Optional[float],
    on_progress: Optional[Callable[[T], None]],
) -> T:
    started = time.monotonic()
    while True:
        state = read()
        if on_progress:
            on_progress(state)
        if done(state):
            return state
        if timeout is not None and time.monotonic() - started + interval > timeout:
            raise WaitTimeoutError(f"{what} still running after {timeout:g} s")
        time.sleep(interval)


def _ended(state: Any) -> bool:
    return state.get("status") not in ACTIVE


class Scrape:
    """POST /scrape and its jobs: one URL answered now, or a batch."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def start(self, url: Optional[str] = None, urls: Optional[List[str]] = None, idempotency_key: Any = None, **options: Any) -> JobEnvelope:
        """One ``url``: the page (status done), or a running job when ``timeout`` ran out; ``urls``: a
        batch, always running (wait for it). Carries an Idempotency-Key, so it is retried safely.
        Options: formats ("markdown,links"), timeout, config, scrapeOptions, maxCredits, webhook_url."""
        res = self._http.request("POST", "/scrape", route="/scrape", body=_body(url=url, urls=urls, **options), idempotency_key=idempotency_key)
        return cast(JobEnvelope, res.data)

    def list(self, cursor: Optional[str] = None, limit: Optional[int] = None) -> Page:
        return cast(Page, self._http.request("GET", "/scrape", query=_body(cursor=cursor, limit=limit)).data)

    def get(self, job_id: str, cursor: Optional[str] = None, limit: Optional[int] = None) -> JobEnvelope:
        return cast(JobEnvelope, self._http.request("GET", f"/scrape/{_q(job_id)}", query=_body(cursor=cursor, limit=limit)).data)

    def rows(self, job_id: str, limit: Optional[int] = None) -> Iterator[PageRow]:
        return _paginate(self._http, lambda: cast(Page, self.get(job_id, limit=limit)), lambda c: cast(Page, self.get(job_id, cursor=c, limit=limit)))

    def cancel(self, job_id: str) -> JobEnvelope:
        return cast(JobEnvelope, self._http.request("DELETE", f"/scrape/{_q(job_id)}").data)

    def wait(self, job_id: str, interval: float = 1.0, timeout: Optional[float] = None, on_progress: Optional[Callable[[JobEnvelope], None]] = None) -> JobEnvelope:
        return _poll(f"scrape {job_id}", lambda: self.get(job_id, limit=1), _ended, interval, timeout, on_progress)


class Crawl:
    """POST /crawl and its jobs: a one-shot crawl run as a hidden project."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def start(self, url: str, idempotency_key: Any = None, **options: Any) -> JobEnvelope:
        """Options: limit, maxDepth, includePaths, excludePaths, useSitemap, sitemapMode, crawlMode,
        allowSubdomains, maxAge, maxTier, delay, concurrency, respectRobots, scrapeOptions, config,
        webhook. Carries an Idempotency-Key, so it is retried safely."""
        res = self._http.request("POST", "/crawl", route="/crawl", body=_body(url=url, **options), idempotency_key=idempotency_key)
        return cast(JobEnvelope, res.data)

    def get(self, crawl_id: str, cursor: Optional[str] = None, limit: Optional[int] = None, formats: Optional[str] = None) -> JobEnvelope:
        query = _body(cursor=cursor, limit=limit, formats=formats)
        return cast(JobEnvelope, self._http.request("GET", f"/crawl/{_q(crawl_id)}", query=query).data)

    def pages(self, crawl_id: str, limit: Optional[int] = None, formats: Optional[str] = None) -> Iterator[PageRow]:
        return _paginate(
            self._http,
            lambda: cast(Page, self.get(crawl_id, limit=limit, formats=formats)),
            lambda c: cast(Page, self.get(crawl_id, cursor=c, limit=limit, formats=formats)),
        )

    def page(self, crawl_id: str, url: str) -> PageRow:
        return cast(PageRow, self._http.request("GET", f"/crawl/{_q(crawl_id)}/page", query={"url": url}).data)

    def cancel(self, crawl_id: str) -> JobEnvelope:
        return cast(JobEnvelope, self._http.request("DELETE", f"/crawl/{_q(crawl_id)}").data)

    def keep(self, crawl_id: str, name: Optional[str] = None, schedule: Optional[str] = None, retention: Optional[str] = None) -> Dict[str, Any]:
        body = _body(name=name, schedule=schedule, retention=retention)
        return cast(Dict[str, Any], self._http.request("POST", f"/crawl/{_q(crawl_id)}/keep", body=body).data)

    def wait(self, crawl_id: str, interval: float = 1.0, timeout: Optional[float] = None, on_progress: Optional[Callable[[JobEnvelope], None]] = None) -> JobEnvelope:
        return _poll(f"crawl {crawl_id}", lambda: self.get(crawl_id, limit=1, formats=""), _ended, interval, timeout, on_progress)


class Map:
    """POST /map and its jobs: the URLs a site declares in its sitemaps."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def start(self, url: str, idempotency_key: Any = None, **options: Any) -> MapEnvelope:
        """Options: search, limit, sitemapMode, timeout. Done within ``timeout`` (status done), else a
        running job to wait for. Carries an Idempotency-Key, so it is retried safely."""
        res = self._http.request("POST", "/map", route="/map", body=_body(url=url, **options), idempotency_key=idempotency_key)
        return cast(MapEnvelope, res.data)

    def get(self, map_id: str, cursor: Optional[str] = None, limit: Optional[int] = None) -> MapEnvelope:
        return cast(MapEnvelope, self._http.request("GET", f"/map/{_q(map_id)}", query=_body(cursor=cursor, limit=limit)).data)

    def rows(self, map_id: str, limit: Optional[int] = None) -> Iterator[MapRow]:
        return _paginate(self._http, lambda: cast(Page, self.get(map_id, limit=limit)), lambda c: cast(Page, self.get(map_id, cursor=c, limit=limit)))

    def wait(self, map_id: str, interval: float = 1.0, timeout: Optional[float] = None, on_progress: Optional[Callable[[MapEnvelope], None]] = None) -> MapEnvelope:
        return _poll(f"map {map_id}", lambda: self.get(map_id, limit=1), _ended, interval, timeout, on_progress)


class Projects:
    """Standing projects: a seed, a configuration, a schedule and a retention."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(self, limit: Optional[int] = None, cursor: Optional[str] = None, v: Optional[str] = None) -> Page:
        return cast(Page, self._http.request("GET", "/projects", query=_body(limit=limit, cursor=cursor, v=v)).data)

    def all(self, limit: int = 100) -> Iterator[Project]:
        return _paginate(self._http, lambda: self.list(limit=limit), lambda c: self.list(limit=limit, cursor=c))

    def create(self, seed: str, idempotency_key: Any = None, **fields: Any) -> Project:
        """Fields: name, schedule (manual, daily, weekly), retention, config."""
        res = self._http.request("POST", "/projects", body=_body(seed=seed, **fields), idempotency_key=idempotency_key)
        return cast(Project, res.data)

    def create_many(self, seeds: List[str], **fields: Any) -> Dict[str, Any]:
        """POST /projects/batch. Fields: template_project_id, schedule, retention."""
        return cast(Dict[str, Any], self._http.request("POST", "/projects/batch", body=_body(seeds=seeds, **fields)).data)

    def get(self, project_id: str) -> Project:
        return cast(Project, self._http.request("GET", f"/projects/{_q(project_id)}").data)

    def update(self, project_id: str, **fields: Any) -> Project:
        """Fields: name, schedule, retention, config (a partial config merges; an unknown key is refused)."""
        return cast(Project, self._http.request("PATCH", f"/projects/{_q(project_id)}", body=_body(**fields)).data)

    def delete(self, project_id: str) -> None:
        self._http.request("DELETE", f"/projects/{_q(project_id)}")

    def run_many(self, project_ids: List[str]) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._http.request("POST", "/projects/run", body={"project_ids": project_ids}).data)


class Runs:
    """Runs of a project."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(self, project_id: str, limit: Optional[int] = None, cursor: Optional[str] = None) -> Page:
        return cast(Page, self._http.request("GET", f"/projects/{_q(project_id)}/runs", query=_body(limit=limit, cursor=cursor)).data)

    def all(self, project_id: str, limit: Optional[int] = None) -> Iterator[Run]:
        return _paginate(self._http, lambda: self.list(project_id, limit=limit), lambda c: self.list(project_id, limit=limit, cursor=c))

    def start(self, project_id: str, trigger: Optional[str] = None) -> Run:
        """202; 409 conflict while a run is queued or running."""
        return cast(Run, self._http.request("POST", f"/projects/{_q(project_id)}/runs", body=_body(trigger=trigger)).data)

    def get(self, project_id: str, run_id: str) -> Run:
        return cast(Run, self._http.request("GET", f"/projects/{_q(project_id)}/runs/{_q(run_id)}").data)

    def cancel(self, project_id: str, run_id: str) -> Run:
        return cast(Run, self._http.request("POST", f"/projects/{_q(project_id)}/runs/{_q(run_id)}/cancel").data)

    def wait(self, project_id: str, run_id: str, interval: float = 1.0, timeout: Optional[float] = None, on_progress: Optional[Callable[[Run], None]] = None) -> Run:
        return _poll(f"run {run_id}", lambda: self.get(project_id, run_id), _ended, interval, timeout, on_progress)

    def wait_for_changes(self, project_id: str, run_id: str, interval: float = 1.0, timeout: Optional[float] = None, on_progress: Optional[Callable[[Run], None]] = None) -> Dict[str, Any]:
        """Waits for the run to end and for its change record (the diff service compares a run once it
        has ended); returns ``{"run": ..., "changes": ...}``."""
        run = self.wait(project_id, run_id, interval, timeout, on_progress)
        changes = Changes(self._http)

        def read() -> Optional[ChangeRecord]:
            try:
                return changes.get(project_id, run_id=run_id)
            except TidemarkApiError as err:
                if err.code == "not_found":
                    return None
                raise

        record = _poll(f"the change record of run {run_id}", read, lambda r: r is not None, min(interval, 0.5), 120.0, None)
        return {"run": run, "changes": record}


class Changes:
    """Change records of a project's runs."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def get(self, project_id: str, run_id: Optional[str] = None) -> ChangeRecord:
        return cast(ChangeRecord, self._http.request("GET", f"/projects/{_q(project_id)}/changes", query=_body(run_id=run_id)).data)

    def review(self, project_id: str, change_id: str, reviewed: bool = True) -> Dict[str, Any]:
        path = f"/projects/{_q(project_id)}/changes/{_q(change_id)}/review"
        return cast(Dict[str, Any], self._http.request("POST", path, body={"reviewed": reviewed}).data)

    def page(self, project_id: str, url: str, run_id: Optional[str] = None) -> Dict[str, Any]:
        query = _body(url=url, run_id=run_id)
        return cast(Dict[str, Any], self._http.request("GET", f"/projects/{_q(project_id)}/changes/page", query=query).data)

    def markup(self, project_id: str, url: str, run_id: Optional[str] = None) -> Dict[str, Any]:
        query = _body(url=url, run_id=run_id)
        return cast(Dict[str, Any], self._http.request("GET", f"/projects/{_q(project_id)}/changes/markup", query=query).data)


class Pages:
    """Stored pages of a project's runs."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def list(self, project_id: str, **query: Any) -> Page:
        """Query: run_id, v (verdict), flag (orphan, unlisted, dead_end), q, cursor, limit, formats."""
        return cast(Page, self._http.request("GET", f"/projects/{_q(project_id)}/pages", query=_body(**query)).data)

    def all(self, project_id: str, **query: Any) -> Iterator[PageRow]:
        return _paginate(self._http, lambda: self.list(project_id, **query), lambda c: self.list(project_id, **{**query, "cursor": c}))

    def content(self, project_id: str, url: str, run_id: Optional[str] = None, format: Optional[str] = None) -> PageRow:
        query = _body(url=url, run_id=run_id, format=format)
        return cast(PageRow, self._http.request("GET", f"/projects/{_q(project_id)}/pages/content", query=query).data)

    def search(self, project_id: str, q: str, mode: Optional[str] = None, run_id: Optional[str] = None) -> Dict[str, Any]:
        body = _body(q=q, mode=mode, run_id=run_id)
        return cast(Dict[str, Any], self._http.request("POST", f"/projects/{_q(project_id)}/pages/search", body=body).data)

    def recrawl(self, project_id: str, urls: List[str]) -> Run:
        return cast(Run, self._http.request("POST", f"/projects/{_q(project_id)}/pages/recrawl", body={"urls": urls}).data)


class Exports:
    """Datasets of a run, streamed."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def catalog(self) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._http.request("GET", "/exports").data)

    def stream(self, project_id: str, dataset: str, format: Optional[str] = None, run_id: Optional[str] = None) -> Response:
        """The open answer: ``data`` is a file-like object to read in chunks and close; the headers
        name the run (``x-run-id``). The request timeout covers the wait for the headers."""
        query = _body(dataset=dataset, format=format, run_id=run_id)
        return self._http.request("GET", f"/projects/{_q(project_id)}/export", query=query, stream=True)

    def download(
        self,
        project_id: str,
        path: str,
        dataset: str,
        format: Optional[str] = None,
        run_id: Optional[str] = None,
        on_bytes: Optional[Callable[[int], None]] = None,
        chunk_size: int = 64 * 1024,
    ) -> int:
        """Streams the dataset into the file at ``path``; returns the bytes written. ``on_bytes`` sees
        the running total after each chunk."""
        res = self.stream(project_id, dataset, format, run_id)
        body = cast(BinaryIO, res.data)
        written = 0
        try:
            with open(path, "wb") as out:
                while True:
                    chunk = body.read(chunk_size)
                    if not chunk:
                        break
                    out.write(chunk)
                    written += len(chunk)
                    if on_bytes:
                        on_bytes(written)
        finally:
            body.close()
        return written


class Workspace:
    """The calling key's workspace."""

    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def me(self) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._http.request("GET", "/me").data)

    def meta(self) -> Dict[str, Any]:
        return cast(Dict[str, Any], self._http.request("GET", "/meta").data)


class Tidemark:
    """The client. ``api_key`` defaults to TIDEMARK_API_KEY, ``base_url`` to TIDEMARK_API_URL or
    http://127.0.0.1:8080/v1. Calls safe to repeat are retried (429, 502, 503, 504, network) at
    most ``max_retries`` times; each attempt waits at most ``timeout`` seconds for its answer."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = 150.0,
        max_retries: int = 2,
        max_retry_wait: float = 60.0,
        headers: Optional[Dict[str, str]] = None,
    ) -> None:
        self.http = HttpClient(
            api_key or os.environ.get("TIDEMARK_API_KEY", ""),
            base_url or os.environ.get("TIDEMARK_API_URL") or DEFAULT_API_URL,
            timeout=timeout,
            max_retries=max_retries,
            max_retry_wait=max_retry_wait,
            headers=headers,
        )
        self.scrape = Scrape(self.http)
        self.crawl = Crawl(self.http)
        self.map = Map(self.http)
        self.projects = Projects(self.http)
        self.runs = Runs(self.http)
        self.changes = Changes(self.http)
        self.pages = Pages(self.http)
        self.exports = Exports(self.http)
        self.workspace = Workspace(self.http)
