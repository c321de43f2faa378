/**
 * Issue 27 #1 in the app: Settings → Alerts → E-mail filled in, saved, "Send test e-mail" with a
 * clear result (a receiver on loopback gets it; nobody listening says why); a watchlist run's alert
 * arrives by e-mail naming the list and the run. The password field is cleared at once and never
 * shown again.
 */
import { test, expect } from './fixtures';
import { api } from './page-helpers';
import { decodeBody, decodeWords, parse, receiver } from '../src/core/watch/test-smtp';
import type { WatchlistInfo, WatchRunInfo } from '../src/shared/contract';

test('set the SMTP server in Settings, send a test e-mail, get a run’s alert by e-mail; a failure says why', async ({
  page,
  sandboxAdmin,
}) => {
  const r = await receiver();
  try {
    await page.getByTestId('nav-settings').click();
    // no encryption to another host: said in local words, Save disabled
    await page.getByTestId('alert-email-host').fill('smtp.example.org');
    await page.getByTestId('alert-email-security').selectOption('none');
    await page.getByTestId('alert-email-from').fill('loupe@example.org');
    await page.getByTestId('alert-email-to').fill('team@example.org');
    await expect(page.getByTestId('alert-email-problem')).toContainText('only to a server on this computer');
    await expect(page.getByTestId('alert-email-save')).toBeDisabled();
    await page.getByTestId('alert-email-host').fill('127.0.0.1');
    await page.getByTestId('alert-email-port').fill(String(r.port));
    await page.getByTestId('alert-email-password').fill('not-needed-here');
    await page.getByTestId('alert-email-save').click();
    await expect(page.getByTestId('alert-email-password')).toHaveValue('');
    await expect.poll(async () => (await api<{ alertEmail: { port: number } | null }>(page, 'settings.get')).alertEmail?.port).toBe(r.port);

    await page.getByTestId('alert-email-test').click();
    await expect(page.getByTestId('alert-email-result')).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('alert-email-result')).toContainText('Sent to team@example.org');
    expect(r.got.length).toBe(1);
    expect(decodeWords(parse(r.got[0].raw).headers.find(([k]) => k === 'subject')![1])).toBe('Loupe · test e-mail');

    // a run's alert arrives by e-mail
    const l = await api<WatchlistInfo>(page, 'watchlists.create', {
      name: 'Brand care',
      watches: [{ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'watched_brand' } }],
      budgetPerRun: 100_000,
      alert: [{ family: 'sponsored', field: 'p', op: 'gte', value: 0 }],
    });
    const runs = [await api<WatchRunInfo>(page, 'watchlists.run', { id: l.id, approved: true })];
    sandboxAdmin.advance(2 * 86_400);
    runs.push(await api<WatchRunInfo>(page, 'watchlists.run', { id: l.id, approved: true }));
    const alerting = runs.filter((x) => (x.alerts ?? 0) > 0);
    expect(alerting.length).toBeGreaterThan(0);
    await expect.poll(() => r.got.length).toBe(1 + alerting.length);
    const mail = r.got[1];
    expect(decodeWords(parse(mail.raw).headers.find(([k]) => k === 'subject')![1])).toMatch(/^Loupe · Brand care: \d+ new items? match/);
    expect(decodeBody(mail.raw, parse(mail.raw).body)).toContain(`Run: ${alerting[0].runId}`);
  } finally {
    await r.close();
  }
  // nobody listening now: the test says why
  await page.getByTestId('alert-email-test').click();
  await expect(page.getByTestId('alert-email-result')).toHaveAttribute('data-ok', 'false');
  await expect(page.getByTestId('alert-email-result')).toContainText('could not be reached');
});
