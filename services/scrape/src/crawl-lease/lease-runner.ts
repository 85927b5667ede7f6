import { randomBytes } from 'node:crypto';
import {
  crawlTriesAgain,
  MAX_CRAWL_RETRY_AFTER_MS,
  leasedResultToProto,
  type crawlLeaseV1,
  type ResultOutcome,
  type ScrapeCrawlLeaseMessage,
} from '@tidemark/contracts';
import { asApiError } from '@tidemark/errors';
import type { RpcClient } from '@tidemark/rpc';
import type { Logger } from '@tidemark/telemetry';
import type { LadderService, PageResult } from '../ladder/ladder.service.js';
import { emptyRow, robotsResult } from '../ladder/ladder.service.js';
import type { LadderOptions } from '../ladder/options.js';
import { storedBodies, type CrawlRowRef, type PageRepository } from '../repositories/page.repository.js';
import { linkBytes } from '../batching/crawl-hand-off.js';
import { gaveUpResult, PageNotStored } from '../work/give-up.js';
import { invalidResult, toResultMessage } from '../work/scrape-crawl.handler.js';
import type { LeaseRows } from './lease-rows.js';

/** Pages handed back in one pull at most, and how long a settled page waits for company. */
const HAND_BACK_PAGES = 100;
const HAND_BACK_MS = 250;
/** Bytes of links one pull carries at most (gRPC's default message limit is 4 MB). */
const HAND_BACK_LINK_BYTES = 1024 * 1024;
/** A pull that failed is tried again after this long, doubling, up to 5 s. */
const PULL_RETRY_MS = 200;
/**
 * Of the lease the crawl grants from a pull's sending (lease_ms): the share in which pages may
 * start here (the rest is margin for the two clocks), and the share after which a holder with
 * nothing else to say pulls to renew it.
 */
const LEASE_USABLE = 0.8;
const LEASE_RENEW = 0.4;
/**
 * A service this holder needs is out of reach (billing, say, restarting): nothing new starts
 * for this long, doubling to 5 s while it lasts, and the pages it stopped are tried again
 * then, no attempt counted (before, a few seconds of it gave each page its every try at once
 * and settled it failed, without a row; a charge that failed was dropped). Past
 * `OUTAGE_GIVE_UP_MS` pages go back failed, as before, so a crawl ends even if it never returns.
 * At most 5 s between tries: the crawl goes on within seconds of the service's return, and a
 * try a holder makes in an outage is one failed call.
 */
const OUTAGE_FIRST_MS = 500;
const OUTAGE_MAX_MS = 5_000;
const OUTAGE_GIVE_UP_MS = 10 * 60_000;

export interface LeaseDeps {
  crawl: RpcClient<crawlLeaseV1.CrawlLeaseServiceClient>;
  pages: PageRepository;
  ladder: LadderService;
  rows: LeaseRows;
  /** The crawl's page options, parsed once per crawl (or why they cannot be read). */
  options: (msg: ScrapeCrawlLeaseMessage, url: string, seed: boolean) => LadderOptions | { invalid: string };
  logger: Logger;
}

type Held = crawlLeaseV1.LeasedUrl & { host: string };
/** A page's outcome here: its result and links, given up when its row could never be written. */
type Settled = { result: PageResult; links: string[]; gaveUp?: boolean };

/**
 * A row of an earlier attempt that the crawl never took in: a read the crawl would have settled
 * (not a 429, no answer, a 5xx: those it tries again, and they are fetched again). The crawl
 * queued the URL again because the holder that wrote it was lost before it handed the page
 * back (a lease slot cut after its holder went silent counts that as an attempt).
 */
const answerLost = (row: ResultOutcome & { attempt: number }, attempt: number) =>
  row.attempt < attempt && row.status === 'done' && !crawlTriesAgain(row);

/**
 * Writes of a page's row tried before it is given up (a refusal by the database repeats), 0.5 s
 * and then 2 s apart: a database that is away for a moment (a failover, a full pool) must not
 * turn pages already read into given-up ones.
 */
const STORE_TRIES = 3;
const STORE_RETRY_MS = 500;

/**
 * One crawl's lease at this worker (ADR 14). Its URLs are fetched at the crawl's concurrency per
 * host and in all, a host that answered Retry-After waits it out, and every page's row is written
 * (with others', LeaseRows) before its slot takes the next URL, so a worker that dies fetches
 * again only its pages in flight, as a paged crawl does. A page goes back to the crawl once its
 * charge is written too, with the others of the next pull: every ~100 pages or 250 ms, or at
 * once when the worker runs low on URLs.
 */
export class LeaseRunner {
  /** URLs waiting here, in the order the crawl handed them out. */
  private waiting: Held[] = [];
  /** Every position this holder has (waiting, in flight, settled and not handed back). */
  private readonly holding = new Set<number>();
  /** Positions the crawl handed out again to a new holder: their rows may be written already. */
  private readonly maybeStored = new Set<number>();
  private inFlight = 0;
  private readonly hostsInFlight = new Map<string, number>();
  private readonly hostPausedUntil = new Map<string, number>();
  private settled: crawlLeaseV1.LeasedPageResult[] = [];
  private settledLinkBytes = 0;
  /** A page settled since the last pull was a 429: the crawl hears of it without waiting. */
  private hostAskedToWait = false;
  /**
   * Billing refused a page because the workspace's credits ran out: nothing more starts here, and
   * the crawl hears of it at once. It answers `stop`, and the URLs held here go back to be
   * counted unfetched, as the crawl's queued URLs are, rather than each refused in turn.
   */
  private creditsOut = false;
  /** Pages refused for want of credits that no pull has carried yet: the crawl has not heard of them. */
  private readonly refused = new Set<number>();
  private returned: number[] = [];
  private state: 'go' | 'stop' | 'lost' | 'ended' = 'go';
  private perHost = 1;
  private maxInFlight = 1;
  private resync = true;
  /** The last answer was to a resync: what it lists may have been read before. */
  private resynced = false;
  private lastPullAt = 0;
  /** When the last answered pull was sent, and the lease it granted (0: no limit). */
  private leaseFrom = 0;
  private leaseMs = 0;
  private releasing = false;
  private halted = false;
  /** Its turn is over (other leases wait for a worker): let go as in `release`, then handed over. */
  private handingOver = false;
  /** The pull that hands the slot over was answered: this holder is done. */
  private handedOver = false;
  /** When the crawl first let this holder fetch (performance.now()); null while it waits for the slot. */
  private turnFrom: number | null = null;
  /** This holder's own id in its pulls: a lease message handed out twice with one count is told apart by it. */
  private readonly holder = randomBytes(6).toString('hex');
  private wake: (() => void) | null = null;
  private pauseTimer: NodeJS.Timeout | null = null;
  /** An outage (a retryable failure of a service this holder calls): since when, and the pause it asks. */
  private outageSince: number | null = null;
  private outageWaitMs = 0;
  private resumeAt = 0;
  private outageTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly msg: ScrapeCrawlLeaseMessage,
    private readonly delivery: number,
    private readonly deps: LeaseDeps,
  ) {}

  /** Lets the lease go (the worker stops): nothing new starts, what is in flight is handed back. */
  release(): void {
    this.releasing = true;
    this.signal();
  }

  /**
   * This holder's turn is over and other leases wait for a worker: it lets the lease go as
   * `release` does (what is in flight finishes and goes back, the rest is given back), and its
   * last pull asks the crawl to put the slot at the back of the queue; its message is then done.
   */
  handOver(): void {
    this.handingOver = true;
    this.release();
  }

  /** How long this holder has been fetching for its crawl (ms); null while it waits for the slot. */
  turnLength(now = performance.now()): number | null {
    return this.turnFrom === null ? null : now - this.turnFrom;
  }

  /** Whether it is letting the lease go (stopping, or handing it over). */
  get lettingGo(): boolean {
    return this.releasing;
  }

  /**
   * The crawl ended (a cancel, the watchdog): nothing new starts; the next pull, made at once,
   * gives back what waits here and hands back what was in flight once it is done.
   */
  halt(): void {
    this.halted = true;
    this.signal();
  }

  get jobId(): string {
    return this.msg.jobId;
  }

  get workspaceId(): string {
    return this.msg.workspaceId;
  }

  /** Runs the lease until the crawl ends it, stops it or gives it to another holder. */
  async run(): Promise<'ended' | 'lost' | 'released' | 'handed-over'> {
    try {
      for (;;) {
        if ((this.releasing || this.halted) && this.state === 'go') this.state = 'stop';
        if (this.state === 'stop') this.giveBackWaiting();
        const answer = await this.pull();
        // Letting go and the crawl does not answer (it stops too): the next holder resyncs.
        if (!answer) return 'released';
        // The slot's next generation is queued (or the crawl is over): nothing here is held.
        if (this.handedOver) return 'handed-over';
        if (answer.state === 'wait') {
          // An older holder's lease still runs: nothing is ours yet, and what we are handed once
          // the slot is ours is everything it holds (a resync).
          this.resync = true;
          if (this.releasing) return 'released';
          if (this.halted) return 'ended';
          await this.untilPullDue(answer.pullAgainMs);
          continue;
        }
        if (answer.state === 'lost' || this.state === 'lost') {
          this.state = 'lost';
          this.waiting = [];
          await this.drain();
          return 'lost';
        }
        this.state = answer.state as typeof this.state;
        this.turnFrom ??= performance.now();
        // A crawl that has heard of every refusal and goes on (the workspace has credits again, or
        // the refused page went back without its reason): so do we. A `go` while a refused page
        // is still here says nothing: the crawl has yet to hear of it.
        if (this.state === 'go' && !this.refused.size) this.creditsOut = false;
        if ((this.releasing || this.halted) && this.state === 'go') this.state = 'stop';
        this.perHost = Math.max(1, answer.perHost);
        this.maxInFlight = Math.max(1, answer.maxInFlight);
        this.waitHosts(answer.hostWaits);
        this.take(answer.urls);
        if (this.state !== 'go') this.giveBackWaiting();
        if (this.state !== 'go' && !this.holding.size && !this.returned.length)
          return this.releasing ? 'released' : 'ended';
        this.startFetches();
        await this.untilPullDue(answer.pullAgainMs);
      }
    } finally {
      if (this.pauseTimer) clearTimeout(this.pauseTimer);
      if (this.outageTimer) clearTimeout(this.outageTimer);
    }
  }

  /**
   * One pull: what settled and what is given back go in, the next URLs come out; tried until it
   * answers, or twice when the worker is letting the lease go (null).
   */
  private async pull(): Promise<crawlLeaseV1.PullCrawlWorkResponse | null> {
    const results = this.settled;
    const returned = this.returned;
    this.hostAskedToWait = false;
    this.settled = [];
    this.settledLinkBytes = 0;
    this.returned = [];
    // Handed over only with the pull that leaves nothing held here: every page in flight is done.
    const handOver = this.handingOver && this.holdsOnly(results, returned);
    for (let wait = PULL_RETRY_MS, tries = 1; ; wait = Math.min(wait * 2, 5000), tries++) {
      const request: crawlLeaseV1.PullCrawlWorkRequest = {
        jobId: this.msg.jobId,
        runId: this.msg.runId,
        workspaceId: this.msg.workspaceId,
        slot: this.msg.slot,
        generation: this.msg.generation,
        delivery: this.delivery,
        holder: this.holder,
        results,
        returned,
        resync: this.resync,
        release: this.releasing,
        handOver,
      };
      const sentAt = performance.now();
      this.lastPullAt = sentAt;
      try {
        const answer = await this.deps.crawl.call('pullCrawlWork', request, 30_000);
        // The lease runs from the pull's sending: the crawl counts it from its taking the pull in,
        // which is later, so what starts here never outlasts what the crawl grants.
        this.leaseFrom = sentAt;
        this.leaseMs = answer.leaseMs;
        this.resynced = this.resync;
        this.resync = false;
        for (const r of results) {
          this.holding.delete(r.position);
          this.refused.delete(r.position);
        }
        for (const p of returned) this.holding.delete(p);
        this.handedOver = handOver;
        return answer;
      } catch (err) {
        // The answer may have been lost after the crawl took the pull in: the next one asks for
        // everything the lease holds (the results and returns are settled once however often sent).
        this.resync = true;
        if (this.releasing && tries >= 2) return null;
        this.deps.logger.warn({ err: asApiError(err), jobId: this.msg.jobId }, 'a lease pull failed; trying again');
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  /** Whether everything held here goes in this pull (settled or given back): nothing in flight. */
  private holdsOnly(results: crawlLeaseV1.LeasedPageResult[], returned: number[]): boolean {
    if (this.inFlight > 0 || this.waiting.length > 0) return false;
    const going = new Set(returned);
    for (const r of results) going.add(r.position);
    for (const p of this.holding) if (!going.has(p)) return false;
    return true;
  }

  /** URLs from the crawl: new ones wait their turn; on a resync, ones held here are kept as they are. */
  private take(urls: crawlLeaseV1.LeasedUrl[]): void {
    for (const url of urls) {
      if (this.holding.has(url.position)) continue;
      // A resync hands out what the lease held before, and a URL handed out before may have been
      // read by that holder (given back, or lost with it): a page an earlier holder read may have its row.
      if (this.resynced || url.dispatchedBefore) this.maybeStored.add(url.position);
      this.holding.add(url.position);
      let host = '';
      try {
        host = new URL(url.url).host;
      } catch {
        // An address the crawl took cannot fail to parse; if it does, it gets a host of its own.
      }
      this.waiting.push({ ...url, host });
    }
  }

  /**
   * Hosts the crawl says are waiting out a Retry-After, heard by this holder or another of the
   * crawl's: nothing of theirs starts here until then. A wait heard here may end later than the
   * crawl's reading of it, never earlier.
   */
  private waitHosts(waits: crawlLeaseV1.HostWait[]): void {
    const now = Date.now();
    for (const { host, waitMs } of waits) this.pauseHost(host, now + waitMs);
  }

  private pauseHost(host: string, until: number): void {
    if (until > (this.hostPausedUntil.get(host) ?? 0)) this.hostPausedUntil.set(host, until);
  }

  private giveBackWaiting(): void {
    for (const url of this.waiting) this.returned.push(url.position);
    this.waiting = [];
  }

  /**
   * Whether the lease of the last answered pull still lets pages start. Past it the crawl may
   * have handed what waits here to a newer holder (this one was silent: wedged, frozen, cut
   * off), which would fetch it too: nothing starts until a pull says the slot is still ours.
   */
  private leaseRuns(): boolean {
    return this.leaseMs <= 0 || performance.now() < this.leaseFrom + this.leaseMs * LEASE_USABLE;
  }

  /** Starts what may start: within the crawl's concurrency, each host's, and its Retry-After. */
  private startFetches(): void {
    if (this.state !== 'go' || this.releasing || this.halted || this.creditsOut) return;
    if (!this.leaseRuns()) {
      // The pull that renews it is due now (untilPullDue).
      this.signal();
      return;
    }
    const pausedFor = this.resumeAt - performance.now();
    if (pausedFor > 0) {
      this.outageTimer ??= setTimeout(() => {
        this.outageTimer = null;
        this.startFetches();
      }, pausedFor);
      return;
    }
    const now = Date.now();
    let nextPauseEnd = Infinity;
    for (let i = 0; i < this.waiting.length && this.inFlight < this.maxInFlight;) {
      const url = this.waiting[i]!;
      const paused = this.hostPausedUntil.get(url.host) ?? 0;
      if (paused > now) {
        nextPauseEnd = Math.min(nextPauseEnd, paused);
        i++;
        continue;
      }
      if ((this.hostsInFlight.get(url.host) ?? 0) >= this.perHost) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      void this.fetchOne(url);
    }
    if (nextPauseEnd < Infinity && !this.pauseTimer)
      this.pauseTimer = setTimeout(
        () => {
          this.pauseTimer = null;
          this.startFetches();
        },
        Math.max(10, nextPauseEnd - now),
      );
  }

  private async fetchOne(url: Held): Promise<void> {
    this.inFlight += 1;
    this.hostsInFlight.set(url.host, (this.hostsInFlight.get(url.host) ?? 0) + 1);
    let page: Settled | null = null;
    let later = false;
    const maybeStored = this.maybeStored.has(url.position);
    try {
      page = await this.settle(url);
      this.outageOver();
    } catch (err) {
      if (this.waitsOut(err)) {
        // Nothing was fetched or charged (the hold is taken before the fetch): tried again once
        // the outage's pause is over, first of what waits.
        later = true;
        if (maybeStored) this.maybeStored.add(url.position);
        this.waiting.unshift(url);
      } else {
        // Nothing could be settled (no row): the crawl counts it as a failed attempt and tries it again.
        this.deps.logger.warn(
          { err: asApiError(err), jobId: this.msg.jobId, position: url.position },
          'a leased page failed',
        );
      }
    } finally {
      this.inFlight -= 1;
      const n = (this.hostsInFlight.get(url.host) ?? 1) - 1;
      if (n > 0) this.hostsInFlight.set(url.host, n);
      else this.hostsInFlight.delete(url.host);
      this.startFetches();
    }
    if (later || this.state === 'lost') return;
    if (page?.result.row.errorCode === 'RATE_LIMITED') {
      // Retry-After speaks for the whole host: its URLs waiting here wait too, and the crawl is
      // told at once (the next pull), so the crawl's other holders hear of it at theirs.
      const row = page.result.row;
      const asked = row.retryAfter !== undefined ? row.retryAfter * 1000 : this.msg.defaultRetryAfterMs;
      this.pauseHost(url.host, Date.now() + Math.min(asked, MAX_CRAWL_RETRY_AFTER_MS));
      this.hostAskedToWait = true;
    }
    // The page goes back once its charge is written: a settled page is a charged page.
    if (page?.result.charged) await this.chargeWritten(url, page.result);
    this.handBack(url, page);
  }

  /** Waits for a page's charge, sent again (the same reference: written once) through an outage. */
  private async chargeWritten(url: Held, result: PageResult): Promise<void> {
    let charging = result.charged!;
    for (;;) {
      try {
        await charging;
        this.outageOver();
        return;
      } catch (err) {
        if (this.state === 'lost') return; // the slot's new holder charges it from the row
        if (!this.waitsOut(err)) {
          this.deps.logger.error(
            { err: asApiError(err), jobId: this.msg.jobId, position: url.position },
            'a leased page could not be charged',
          );
          return;
        }
        await new Promise((r) => setTimeout(r, Math.max(0, this.resumeAt - performance.now())));
        charging = this.deps.ladder.chargeAgain(
          { workspaceId: this.msg.workspaceId, jobId: this.msg.jobId, position: url.position },
          result.row,
        );
      }
    }
  }

  /**
   * Whether a failure is an outage to wait out (a retryable error: a service out of reach), and
   * if so the pause it asks before anything starts again. False for any other failure, and once
   * an outage has lasted `OUTAGE_GIVE_UP_MS`.
   */
  private waitsOut(err: unknown): boolean {
    if (!asApiError(err).retryable) return false;
    const now = performance.now();
    if (this.outageSince === null) {
      this.outageSince = now;
      this.outageWaitMs = OUTAGE_FIRST_MS;
      this.deps.logger.warn({ err: asApiError(err), jobId: this.msg.jobId }, 'a service is out of reach; pages wait');
    } else if (now >= this.resumeAt) {
      this.outageWaitMs = Math.min(OUTAGE_MAX_MS, this.outageWaitMs * 2);
    }
    if (now - this.outageSince >= OUTAGE_GIVE_UP_MS) return false;
    this.resumeAt = Math.max(this.resumeAt, now + this.outageWaitMs);
    return true;
  }

  private outageOver(): void {
    if (this.outageSince === null) return;
    this.outageSince = null;
    this.resumeAt = 0;
    this.deps.logger.info({ jobId: this.msg.jobId }, 'the outage is over; pages start again');
  }

  /** The page's row: read from an earlier holder's, or fetched, read and written now (the slot waits for it). */
  private async settle(url: Held): Promise<Settled> {
    const ref: CrawlRowRef = {
      workspaceId: this.msg.workspaceId,
      jobId: this.msg.jobId,
      runId: this.msg.runId,
      position: url.position,
    };
    if (this.maybeStored.delete(url.position)) {
      const found = await this.deps.pages.findAt(this.msg.jobId, url.position);
      // (A resync's URLs may have been read by a holder of an earlier attempt as well: a slot cut
      // after its holder went silent is queued again and handed out anew, attempt counted.)
      if (found && (found.attempt === url.attempt || answerLost(found, url.attempt))) {
        const result: PageResult = { row: found.data as unknown as PageResult['row'], bodies: {} };
        // The earlier holder may have died before its charge was written: sent again (idempotent).
        result.charged = this.deps.ladder.chargeAgain(ref, result.row);
        return { result, links: storedBodies(found).links ?? [] };
      }
    }
    const opts = url.robotsDisallowed ? null : this.deps.options(this.msg, url.url, url.seed);
    const result = url.robotsDisallowed
      ? robotsResult(url.url)
      : 'invalid' in opts!
        ? invalidResult(url.url, opts.invalid)
        : await this.deps.ladder.scrape(
            {
              ...ref,
              url: url.url,
              creditPool: { id: this.msg.jobId, chargesLinger: true },
              chargeBehind: true,
              bulk: true,
            },
            opts!,
          );
    // Known now, before the row is written: pages that end meanwhile must not start others.
    if (result.creditsExhausted) {
      this.creditsOut = true;
      this.refused.add(url.position);
    }
    for (let tries = 1; ; tries++) {
      try {
        if (url.attempt > 0 || tries > 1) await this.deps.pages.rewriteCrawlRow(ref, result, url.attempt);
        else await this.deps.rows.write(ref, result);
        return { result, links: result.bodies.links ?? [] };
      } catch (err) {
        if (tries < STORE_TRIES) {
          await new Promise((r) => setTimeout(r, STORE_RETRY_MS * 4 ** (tries - 1)));
          continue;
        }
        // Read and charged, never stored (a value the database refuses): settled as given up,
        // with what was read and its cost, rather than fetched and charged again by the crawl.
        await result.charged?.catch(() => undefined);
        const gaveUp = gaveUpResult(url.url, {
          deliveryCount: tries,
          error: asApiError(err),
          cause: new PageNotStored(result, err),
        });
        this.deps.logger.error(
          { err: asApiError(err), jobId: this.msg.jobId, position: url.position },
          'a leased page could not be stored; given up',
        );
        // The row may be what cannot be written: the result reaches the crawl even then.
        await this.deps.pages.giveUpCrawlRow(ref, gaveUp, url.attempt).catch(() => undefined);
        return { result: gaveUp, links: [], gaveUp: true };
      }
    }
  }

  private handBack(url: Held, page: Settled | null): void {
    // A page nothing could settle goes back as an error without a code: the crawl tries it again.
    const result = page?.result ?? {
      row: { ...emptyRow(url.url), status: 'error' as const, crawledAt: new Date().toISOString() },
      bodies: {},
    };
    const answer = {
      ...toResultMessage({ ...this.msg, ...url }, result, page?.links ?? []),
      gaveUp: page?.gaveUp === true,
    };
    this.settled.push(leasedResultToProto(answer));
    this.settledLinkBytes += linkBytes(answer.links);
    this.signal();
  }

  /** Waits until a pull is due: enough settled, settled for long enough, running low, or idle. */
  private async untilPullDue(pullAgainMs: number): Promise<void> {
    const idleSince = performance.now();
    for (;;) {
      const now = performance.now();
      const settled = this.settled.length;
      if ((this.releasing || this.halted) && this.state === 'go') return;
      if (this.returned.length) return;
      // Letting go: what settled goes back as soon as nothing is in flight, not after a wait for
      // company (a turn's end waits for it before the next lease starts).
      if (this.releasing && settled && this.inFlight === 0) return;
      if (settled >= HAND_BACK_PAGES || this.settledLinkBytes >= HAND_BACK_LINK_BYTES) return;
      if (settled && (this.hostAskedToWait || this.creditsOut)) return;
      if (settled && now - this.lastPullAt >= HAND_BACK_MS) return;
      // The lease ran out with URLs waiting, or is due to be renewed while pages are held.
      const renews = this.holding.size > 0 && this.state === 'go' && this.leaseMs > 0;
      const renewAt = renews ? this.leaseFrom + this.leaseMs * LEASE_RENEW : Infinity;
      if (renews && (now >= renewAt || !this.leaseRuns())) return;
      // Running low: the next URLs are asked for while the slots still have work.
      if (settled && this.state === 'go' && this.waiting.length < 2 * this.maxInFlightHere()) return;
      // Nothing here at all: asked again after the crawl's pause (a delay, Retry-After, the end).
      if (!this.holding.size && now - idleSince >= pullAgainMs) return;
      const timeout = Math.min(
        settled
          ? HAND_BACK_MS - (now - this.lastPullAt)
          : !this.holding.size
            ? pullAgainMs - (now - idleSince)
            : HAND_BACK_MS,
        renewAt - now,
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(1, timeout));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = null;
    }
  }

  /** The pages this lease can have in flight at once here. */
  private maxInFlightHere(): number {
    return Math.min(this.maxInFlight, this.perHost * Math.max(1, this.hostsInFlight.size));
  }

  private signal(): void {
    this.wake?.();
  }

  /** Waits for the pages in flight (a lost lease: their results are not handed back). */
  private async drain(): Promise<void> {
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 20));
  }
}
