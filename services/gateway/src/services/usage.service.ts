import type { billingV1, scrapeV1 } from '@tidemark/contracts';
import type { RpcClient } from '@tidemark/rpc';

export interface UsageTotals {
  pages: number;
  browserPages: number;
  blockedPages: number;
  /** What the pages cost (the credits on their rows). */
  pageCredits: number;
  /** Every credit charged (pages, sitemap files, ...), and what for. */
  creditsUsed: number;
  creditsGranted: number;
  usedByReason: Record<string, number>;
}

export interface UsageView {
  days: (UsageTotals & { day: string })[];
  month: UsageTotals & { start: string };
  credits: { granted: number; used: number; remaining: number };
  plan: string;
}

const DAYS = 30;
const DAY_MS = 86_400_000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const empty = (): UsageTotals => ({
  pages: 0,
  browserPages: 0,
  blockedPages: 0,
  pageCredits: 0,
  creditsUsed: 0,
  creditsGranted: 0,
  usedByReason: {},
});
const add = (into: UsageTotals, d: UsageTotals) => {
  into.pages += d.pages;
  into.browserPages += d.browserPages;
  into.blockedPages += d.blockedPages;
  into.pageCredits += d.pageCredits;
  into.creditsUsed += d.creditsUsed;
  into.creditsGranted += d.creditsGranted;
  for (const [reason, n] of Object.entries(d.usedByReason))
    into.usedByReason[reason] = (into.usedByReason[reason] ?? 0) + n;
};

/**
 * GET /v1/me/usage: pages per day from scrape (the rows it wrote) beside credits per day from
 * billing (the ledger), for the last 30 UTC days and this month; each service answers for what
 * it owns.
 */
export class UsageService {
  constructor(
    private readonly billing: RpcClient<billingV1.BillingServiceClient>,
    private readonly scrape: RpcClient<scrapeV1.ScrapeServiceClient>,
  ) {}

  async usage(workspaceId: string, now = new Date()): Promise<UsageView> {
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const first = new Date(today - (DAYS - 1) * DAY_MS);
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const sinceDay = dayOf(first < monthStart ? first : monthStart);
    const [pages, credits, balance] = await Promise.all([
      this.scrape.call('pageUsage', { workspaceId, sinceDay }),
      this.billing.call('usage', { workspaceId, sinceDay }),
      this.billing.call('balance', { workspaceId }),
    ]);

    const byDay = new Map<string, UsageTotals>();
    const at = (day: string) => byDay.get(day) ?? byDay.set(day, empty()).get(day)!;
    for (const p of pages.days)
      Object.assign(at(p.day), {
        pages: p.pages,
        browserPages: p.browserPages,
        blockedPages: p.blockedPages,
        pageCredits: p.credits,
      });
    for (const c of credits.days)
      Object.assign(at(c.day), { creditsUsed: c.used, creditsGranted: c.granted, usedByReason: c.usedByReason });

    const month = { start: dayOf(monthStart), ...empty() };
    for (const [day, totals] of byDay) if (day >= month.start) add(month, totals);
    const days = Array.from({ length: DAYS }, (_, i) => {
      const day = dayOf(new Date(first.getTime() + i * DAY_MS));
      return { day, ...(byDay.get(day) ?? empty()) };
    });
    return {
      days,
      month,
      credits: { granted: balance.granted, used: balance.used, remaining: balance.remaining },
      plan: balance.plan,
    };
  }
}
