/**
 * Issue 14 #8: "Watch this" asks the budget (per run, per month: blank says "no limit"), the schedule
 * and how deep the first run reads — newest page, N pages, everything, or since a date on
 * date-ordered feeds — with the first run's estimate, before anything is created.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { Catalogue } from '../../../shared/api-types';
import fc from 'fast-check';
import { editPatch, WatchlistDialog, type WatchlistForm } from './WatchlistDialog';
import { queryKeys } from '../queries/keys';

function render(
  catalogue: Partial<Catalogue> | null,
  target = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'nasa' } },
) {
  const qc = new QueryClient();
  if (catalogue) qc.setQueryData(queryKeys.method('catalogue.get', { force: false }), catalogue);
  return renderToStaticMarkup(
    createElement(
      QueryClientProvider,
      { client: qc },
      createElement(WatchlistDialog, {
        title: 'Watch @nasa',
        okLabel: 'Create watchlist (free)',
        initial: { name: '@nasa', everyHours: 24, budgetPerRun: null, budgetPerMonth: null, firstRunPages: 1, since: null },
        target,
        onCancel: () => {},
        onSubmit: () => {},
      }),
    ),
  );
}

const feed = {
  platform: 'photo_net',
  path: 'profile/posts',
  params: ['handle', 'since', 'stop_at_id', 'cursor'].map((name) => ({
    name,
    required: name === 'handle',
    in: 'query',
    type: 'string',
    description: '',
  })),
};

describe('the watchlist dialog', () => {
  it('asks budgets (blank = no limit, said so), schedule and first-run depth, with the estimate line', () => {
    const html = render({ endpoints: [feed] as unknown as Catalogue['endpoints'] });
    expect(html).toMatch(/data-testid="wl-budget-run"/);
    expect(html).toMatch(/data-testid="wl-budget-month"/);
    expect(html).toMatch(/placeholder="no limit"/);
    // scheduled without a per-run budget: said when the schedule is set, in words (issue 27 #20)
    expect(html).toMatch(/Runs every day go ahead by themselves only within a budget per run/);
    expect(html).toMatch(/skipped as needing approval/);
    for (const d of ['newest', 'pages', 'all', 'since']) expect(html).toContain(`data-testid="wl-depth-${d}"`);
    expect(html).toMatch(/data-testid="wl-estimate"/);
    expect(html).toMatch(/Nothing is spent until it runs/);
    expect(html).toMatch(/role="dialog"/);
  });
  it('offers "since a date" only on date-ordered feeds', () => {
    const html = render({
      endpoints: [{ ...feed, params: feed.params.filter((p) => p.name !== 'stop_at_id') }] as unknown as Catalogue['endpoints'],
    });
    expect(html).not.toContain('data-testid="wl-depth-since"');
  });
});

describe('"Edit budgets…" sends only what changed (issue 24 #1)', () => {
  const form = fc.record({
    name: fc.constantFrom('Brands', 'Rivals'),
    everyHours: fc.option(fc.integer({ min: 1, max: 744 }), { nil: null }),
    budgetPerRun: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: null }),
    budgetPerMonth: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: null }),
    firstRunPages: fc.integer({ min: 1, max: 100 }),
    since: fc.constant(null),
  });
  it('a field is in the patch exactly when the user changed it; a cron schedule is never touched', () => {
    fc.assert(
      fc.property(form, form, fc.boolean(), (initial: WatchlistForm, f: WatchlistForm, cron) => {
        const p = editPatch(initial, f, cron);
        const changed = (['name', 'budgetPerRun', 'budgetPerMonth', 'firstRunPages'] as const).filter((k) => f[k] !== initial[k]);
        if (!cron && f.everyHours !== initial.everyHours) expect(p.schedule).toEqual(f.everyHours ? { everyHours: f.everyHours } : null);
        expect(Object.keys(p).sort()).toEqual([...changed, ...(!cron && f.everyHours !== initial.everyHours ? ['schedule'] : [])].sort());
        for (const k of changed) expect(p[k]).toBe(f[k]);
      }),
    );
  });
});
