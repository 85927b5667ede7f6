/**
 * Plans and what they include. The spec leaves the per-plan defaults open; these are ours
 * (docs/decisions.md). Billing owns who is on which plan; the gateway reads `rpm` per request.
 */
export const PLANS = {
  free: { rpm: 60, monthlyCredits: 0, subAccounts: 0 },
  starter: { rpm: 300, monthlyCredits: 10_000, subAccounts: 0 },
  growth: { rpm: 1000, monthlyCredits: 100_000, subAccounts: 10 },
  scale: { rpm: 5000, monthlyCredits: 1_000_000, subAccounts: 100 },
  /** The operator's own workspaces on a self-hosted deployment (and the benchmarks). */
  unmetered: { rpm: 1_000_000, monthlyCredits: 0, subAccounts: 1000 },
} as const;
export type PlanName = keyof typeof PLANS;

export const planOf = (name: string): (typeof PLANS)[PlanName] =>
  PLANS[(Object.hasOwn(PLANS, name) ? name : 'free') as PlanName];
