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
import { WatchlistDialog } from './WatchlistDialog';
import { queryKeys } from '../queries/keys';

function render(catalogue: Partial<Catalogue> | null, target = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'nasa' } }) {
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

const feed = { platform: 'photo_net', path: 'profile/posts', params: ['handle', 'since', 'stop_at_id', 'cursor'].map((name) => ({ name, required: name === 'handle', in: 'query', type: 'string', description: '' })) };

describe('the watchlist dialog', () => {
  it('asks budgets (blank = no limit, said so), schedule and first-run depth, with the estimate line', () => {
    const html = render({ endpoints: [feed] as unknown as Catalogue['endpoints'] });
    expect(html).toMatch(/data-testid="wl-budget-run"/);
    expect(html).toMatch(/data-testid="wl-budget-month"/);
    expect(html).toMatch(/placeholder="no limit"/);
    expect(html).toMatch(/No budget: each run asks above your confirmation threshold/);
    for (const d of ['newest', 'pages', 'all', 'since']) expect(html).toContain(`data-testid="wl-depth-${d}"`);
    expect(html).toMatch(/data-testid="wl-estimate"/);
    expect(html).toMatch(/Nothing is spent until it runs/);
    expect(html).toMatch(/role="dialog"/);
  });
  it('offers "since a date" only on date-ordered feeds', () => {
    const html = render({ endpoints: [{ ...feed, params: feed.params.filter((p) => p.name !== 'stop_at_id') }] as unknown as Catalogue['endpoints'] });
    expect(html).not.toContain('data-testid="wl-depth-since"');
  });
});
