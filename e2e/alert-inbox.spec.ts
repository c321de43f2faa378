/**
 * Issue 27 #1 end to end: an alert set on a list that was made without one (as an imported list
 * is), with the Library's label picker; runs fill the alert inbox (what matched, in which run of
 * which list), its items one click away, read / unread; and each alert is posted to a webhook
 * receiver on loopback as Slack-compatible JSON.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect, shot } from './fixtures';
import { api } from './page-helpers';
import type { AlertInfo, WatchlistInfo, WatchRunInfo } from '../src/shared/contract';

test('set an alert with the label picker; the inbox names list and run, opens the items, reads and unreads; the webhook gets each alert', async ({
  page,
  sandboxAdmin,
}) => {
  const posts: Array<{ text: string; loupe: { watchlist: { name: string }; items: number } }> = [];
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      posts.push(JSON.parse(body) as (typeof posts)[number]);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  try {
    const l = await api<WatchlistInfo>(page, 'watchlists.create', {
      name: 'Brand care',
      watches: [{ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'watched_brand' } }],
      budgetPerRun: 100_000,
    });
    await page.getByTestId('nav-watchlists').click();
    await page.getByTestId('watchlist-item').first().click();
    await expect(page.getByTestId('watchlist-alert')).toContainText('Alert: none');

    // the Library's picker: chosen, not typed as API names
    await page.getByTestId('watchlist-edit-alert').click();
    const dialog = page.getByTestId('alert-dialog');
    await dialog.getByTestId('add-label-condition').click();
    await dialog.getByLabel('label family').selectOption('sponsored');
    await dialog.getByLabel('label field').selectOption('p');
    await dialog.getByLabel('operator').selectOption('gte');
    await dialog.getByLabel('value (0–1)').fill('0.1');
    await dialog.getByLabel('value (0–1)').press('Enter');
    await expect(dialog.getByTestId('alert-draft')).toContainText('Sponsored likelihood it is paid ≥ 0.1');
    await dialog.getByTestId('alert-save').click();
    await expect(page.getByTestId('watchlist-alert')).toContainText('Alert: Sponsored likelihood it is paid ≥ 0.1');
    const saved = (await api<WatchlistInfo[]>(page, 'watchlists.list')).find((x) => x.id === l.id)!;
    expect(saved.alert).toEqual([{ family: 'sponsored', field: 'p', op: 'gte', value: 0.1 }]);
    expect(saved.watches).toEqual(l.watches); // only the alert changed

    // Settings → Alerts: the webhook address, checked in local words before it is saved
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('alert-webhook').fill('hooks.example/abc');
    await expect(page.getByTestId('alert-webhook-problem')).toContainText('not a web address');
    await expect(page.getByTestId('alert-webhook-save')).toBeDisabled();
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/abc`;
    await page.getByTestId('alert-webhook').fill(hookUrl);
    await page.getByTestId('alert-webhook-save').click();
    await expect.poll(async () => (await api<{ alertWebhookUrl: string | null }>(page, 'settings.get')).alertWebhookUrl).toBe(hookUrl);
    await page.getByTestId('nav-watchlists').click();
    const runs = [await api<WatchRunInfo>(page, 'watchlists.run', { id: l.id, approved: true })];
    sandboxAdmin.advance(3 * 86_400);
    runs.push(await api<WatchRunInfo>(page, 'watchlists.run', { id: l.id, approved: true }));
    const alerting = runs.filter((r) => (r.alerts ?? 0) > 0);
    expect(alerting.length).toBeGreaterThan(0);

    // the inbox
    await expect(page.getByTestId('alerts-open')).toContainText(`${alerting.length} unread`);
    await page.getByTestId('alerts-open').click();
    const rows = page.getByTestId('alert-row');
    await expect(rows).toHaveCount(alerting.length);
    const newest = (await api<{ alerts: AlertInfo[] }>(page, 'watchlists.alerts', {})).alerts[0];
    await expect(rows.first()).toContainText('“Brand care”');
    await expect(rows.first()).toContainText('Sponsored likelihood it is paid ≥ 0.1');
    await expect(rows.first()).toHaveAttribute('data-read', 'false');
    await shot(page, 'alert-inbox');

    // its items, one click away: the run's matches in the list
    await rows.first().getByTestId('alert-show-items').click();
    await expect(page.getByTestId('watch-items-caption')).toContainText('Alert matches among the items new in the run started');
    await expect(page.getByTestId('row-count')).toContainText(`${newest.items} row${newest.items === 1 ? '' : 's'} loaded`);

    // read now; unread again; all read
    await page.getByTestId('alerts-open').click();
    await expect(rows.first()).toHaveAttribute('data-read', 'true');
    await expect(page.getByTestId('alert-unread')).toHaveText(`${alerting.length - 1} unread`);
    await rows.first().getByTestId('alert-toggle-read').click();
    await expect(rows.first()).toHaveAttribute('data-read', 'false');
    await page.getByTestId('alert-read-all').click();
    await expect(page.getByTestId('alert-unread')).toHaveText('0 unread');
    await expect(page.getByTestId('alerts-open')).not.toContainText('unread');

    // the webhook got each alert, Slack-compatible
    await expect.poll(() => posts.length).toBe(alerting.length);
    for (const p of posts) {
      expect(p.text).toContain('Brand care');
      expect(p.loupe.watchlist.name).toBe('Brand care');
    }
  } finally {
    await new Promise<void>((r) => hook.close(() => r()));
  }
});
