/**
 * The spend policy, in one place for every door (the core's estimates, the CLI, the renderer's
 * confirm dialogs, watchlist runs and imports): when spending needs the user's yes.
 *
 * - **Ask above N credits**: a spend whose ceiling (`creditsMax`) is over the user's threshold
 *   (Settings → `askAboveCredits`) is asked about first; no threshold (null) never asks.
 * - **An explicit budget replaces the threshold** where the caller says so (a watchlist's per-run
 *   budget, the CLI's `--max-credits`): the budget is what the user already agreed to spend.
 * - **Budget checks**, in order: over the budget, over what is left of the month's budget, over the
 *   balance, over the threshold. The first that applies is the reason.
 *
 * Pure functions (the renderer decides locally with the same rule the core uses).
 */

/** The one "ask the user above N credits" rule. */
export function aboveAsk(creditsMax: number, askAbove: number | null | undefined): boolean {
  return askAbove !== null && askAbove !== undefined && creditsMax > askAbove;
}

/** The limit a spend is checked against: an explicit budget replaces the ask threshold. */
export function spendLimit(budget: number | null | undefined, askAbove: number | null | undefined): number | null {
  return budget ?? askAbove ?? null;
}

export type SpendStop =
  | { why: 'budget'; limit: number }
  | { why: 'month'; limit: number }
  | { why: 'balance'; limit: number }
  | { why: 'threshold'; limit: number };

export interface SpendChecks {
  /** the per-run budget (null: none) */
  budget?: number | null;
  /** what is left of the month's budget (null: no monthly budget) */
  monthLeft?: number | null;
  /** the balance, when a spend over it needs a look (null: unknown / not checked) */
  balance?: number | null;
  /** the user's threshold (Settings → askAboveCredits) */
  askAbove?: number | null;
  /** true: a budget, when set, replaces the threshold (a budgeted watchlist run does not ask) */
  budgetReplacesAsk?: boolean;
}

/** Why a spend of up to `creditsMax` needs the user's yes, or null when it can go ahead. */
export function spendStop(creditsMax: number, c: SpendChecks): SpendStop | null {
  const budget = c.budget ?? null;
  if (budget !== null && creditsMax > budget) return { why: 'budget', limit: budget };
  if (c.monthLeft != null && creditsMax > c.monthLeft) return { why: 'month', limit: c.monthLeft };
  if (c.balance != null && creditsMax > c.balance) return { why: 'balance', limit: c.balance };
  if (c.budgetReplacesAsk && budget !== null) return null;
  if (aboveAsk(creditsMax, c.askAbove)) return { why: 'threshold', limit: c.askAbove as number };
  return null;
}
