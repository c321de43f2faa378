/**
 * Issue 27 #1: the alert inbox — what matched, in which run of which list, its items one query
 * away, read/unread — spike alerts (far more new items than the list's history expects), and
 * delivery to a webhook as Slack-compatible JSON, against a receiver on loopback.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import type { RunRow, WatchlistRow } from '../archive/watchlists';
import { alertDeliverer, postWebhook, type SlackPayload } from './alert-delivery';
import type { LoupeEvent, Settings } from '../../shared/contract';
import { storedDefaults } from '../../shared/settings';
import { raiseAlerts, SPIKE_FACTOR, SPIKE_MIN_EXTRA } from './alerts';
import { inboxMethods } from './inbox';
import { watchEnvs } from './test-env';
import type { RaisedAlert } from './types';

const watchEnv = watchEnvs();
const HOUR = 3_600_000;

describe('the alert inbox (issue 27 #1)', () => {
  it('a run whose new items match the alert leaves an inbox row: its list, its run, its items one query away; read and unread', async () => {
    const e = await watchEnv({ seed: 51 });
    const alert = [{ family: 'sponsored', field: 'p', op: 'gte' as const, value: 0 }];
    const l = await e.watch.create({
      name: 'Brand',
      watches: [{ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice' } }],
      alert,
    });
    const quiet = await e.watch.create({
      name: 'No alert',
      watches: [{ platform: 'micro_net', endpoint: 'user/tweets', params: { handle: 'bob.runs' } }],
    });
    const runs = [await e.watch.run(l.id, { approved: true }), await e.watch.run(quiet.id, { approved: true })];
    e.sb.admin.advance(40 * 3600);
    runs.push(await e.watch.run(l.id, { approved: true }));
    const inbox = inboxMethods(e.archive.watchlists, e.clock);

    const { alerts, unread } = await inbox['watchlists.alerts']({ unreadOnly: false, limit: 200 });
    const alerting = runs.filter((r) => (r.alerts ?? 0) > 0);
    expect(alerting.length).toBeGreaterThan(0);
    const labels = alerts.filter((a) => a.kind === 'labels');
    expect(labels.map((a) => a.runId).sort()).toEqual(alerting.map((r) => r.runId).sort());
    expect(unread).toBe(alerts.length);
    for (const a of labels) {
      const run = runs.find((r) => r.runId === a.runId)!;
      expect(a.watchlistId).toBe(l.id);
      expect(a.watchlistName).toBe('Brand');
      expect(a.items).toBe(run.alerts);
      expect(a.summary).toContain('“Brand”');
      expect(a.summary).toContain('(Sponsored likelihood it is paid ≥ 0)');
      expect(a.read).toBe(false);
      // the items it is about, one query away: exactly the run's matches
      expect(e.archive.count(a.query)).toBe(a.items);
    }
    // newest first
    expect(alerts.map((a) => a.at)).toEqual([...alerts.map((a) => a.at)].sort((x, y) => y - x));

    const first = alerts[0].alertId;
    expect(await inbox['watchlists.alertsRead']({ ids: [first], read: true })).toEqual({ changed: 1, unread: alerts.length - 1 });
    expect(await inbox['watchlists.alertsRead']({ ids: [first], read: true })).toEqual({ changed: 0, unread: alerts.length - 1 });
    expect((await inbox['watchlists.alerts']({ unreadOnly: true, limit: 200 })).alerts.map((a) => a.alertId)).not.toContain(first);
    expect(await inbox['watchlists.alertsRead']({ ids: [first], read: false })).toEqual({ changed: 1, unread: alerts.length });
    expect((await inbox['watchlists.alertsRead']({ all: true, read: true })).unread).toBe(0);

    // a list's alerts go with it
    await e.watch.remove(l.id);
    expect((await inbox['watchlists.alerts']({ unreadOnly: false, limit: 200 })).alerts).toEqual([]);
  });
});

let lists = 0;
/** A new list and its runs in `a`, each run with one watch's new items (the first a baseline). */
function history(a: Archive, newPerRun: number[], gapsHours: number[]) {
  const store = a.watchlists;
  const id = `L${++lists}`;
  const l: WatchlistRow = {
    id,
    name: 'Spiky',
    schedule: null,
    budgetPerRun: null,
    budgetPerMonth: null,
    paused: false,
    alert: null,
    firstRunPages: 1,
    seenAt: 0,
    createdAt: 0,
    updatedAt: 0,
  };
  store.insertList(l);
  let at = 1_000_000_000_000;
  const runs: RunRow[] = [];
  newPerRun.forEach((n, i) => {
    if (i > 0) at += gapsHours[i - 1] * HOUR;
    const r: RunRow = {
      runId: `${id}r${i}`,
      watchlistId: id,
      trigger: 'manual',
      startedAt: at,
      finishedAt: at + 1000,
      status: 'done',
      creditsSpent: 20,
      newItems: n,
      alerts: 0,
      message: null,
      estimate: null,
    };
    store.insertRun(r);
    store.putRunWatch({
      runId: r.runId,
      watchId: `${id}w`,
      pages: 1,
      credits: 20,
      newItems: n,
      itemsSeen: Math.max(n, 1),
      firstRun: i === 0,
      stopReason: null,
      complete: true,
      gap: null,
      walkIds: [],
    });
    runs.push(r);
  });
  return { store, l, runs };
}

describe('spike alerts (issue 27 #1)', () => {
  it('a run far above what the list’s history expects raises a spike, and only then', () => {
    const a = openArchive(':memory:');
    const seen = { spike: 0, none: 0 };
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 2, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 48 }), { minLength: 7, maxLength: 7 }),
        fc.integer({ min: 0, max: 400 }),
        (earlier, gaps, last) => {
          const h = history(a, [50, ...earlier, last], gaps);
          const run = h.runs[h.runs.length - 1];
          // independently: items that arrived after the baseline, per hour over the earlier runs
          const span = (h.runs[h.runs.length - 2].startedAt - h.runs[0].startedAt) / HOUR;
          const expected = (earlier.reduce((x, y) => x + y, 0) / span) * ((run.startedAt - h.runs[h.runs.length - 2].startedAt) / HOUR);
          const raised = raiseAlerts(h.store, h.l, run, [], run.finishedAt!);
          const spike = span >= 1 && last >= SPIKE_FACTOR * expected && last - expected >= SPIKE_MIN_EXTRA;
          expect(raised.map((x) => x.kind)).toEqual(spike ? ['spike'] : []);
          seen[spike ? 'spike' : 'none']++;
          if (spike) {
            expect(raised[0].items).toBe(last);
            expect(raised[0].expected).toBeCloseTo(expected, 6);
            expect(h.store.alerts.list({ limit: 500 }).filter((x) => x.watchlistId === h.l.id).length).toBe(1);
          }
        },
      ),
      { numRuns: 60, seed: 27 },
    );
    a.close();
    expect(seen.spike).toBeGreaterThan(5); // both sides of the rule were tried
    expect(seen.none).toBeGreaterThan(5);
  });

  it('a baseline is no spike, nor a run with too little history', () => {
    const a = openArchive(':memory:');
    const h = history(a, [500], []);
    expect(raiseAlerts(h.store, h.l, h.runs[0], [], 0)).toEqual([]);
    const two = history(a, [5, 900], [24]);
    expect(raiseAlerts(two.store, two.l, two.runs[1], [], 0)).toEqual([]); // one earlier run: no rate yet
    a.close();
  });
});

/** A webhook receiver on loopback that records what it is sent and answers `status`. */
async function receiver(status = 200) {
  const got: Array<{ body: unknown; type: string | undefined }> = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown, type: req.headers['content-type'] });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'no_service');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T000/B000/secret-path`;
  return { got, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const sample: RaisedAlert = {
  alertId: 'a1',
  watchlistId: 'L',
  listName: 'Brand <team>',
  runId: 'r1',
  kind: 'labels',
  at: Date.UTC(2026, 10, 27, 8),
  items: 2,
  expected: null,
  summary: '2 new items in “Brand <team>” match the alert (sentiment label = negative).',
  readAt: null,
  sample: ['It broke & I want a refund <@U123>', 'Never again'],
};

describe('alert delivery to a webhook (issue 27 #1)', () => {
  it('posts Slack-compatible JSON to a local receiver: text with the list and what matched, escaped; the facts for a program', async () => {
    const r = await receiver();
    try {
      await postWebhook(r.url, [sample, { ...sample, alertId: 'a2', kind: 'spike', items: 90, expected: 12, sample: [] }]);
      expect(r.got.length).toBe(2);
      expect(r.got[0].type).toBe('application/json');
      const p = r.got[0].body as SlackPayload;
      expect(typeof p.text).toBe('string');
      expect(p.text).toContain('Brand &lt;team&gt;');
      expect(p.text).toContain('match the alert');
      expect(p.text).toContain('• It broke &amp; I want a refund &lt;@U123&gt;'); // no mention, no link from a stranger's post
      expect(p.loupe).toMatchObject({
        kind: 'labels',
        watchlist: { id: 'L', name: 'Brand <team>' },
        runId: 'r1',
        items: 2,
        at: '2026-11-27T08:00:00.000Z',
      });
      expect((r.got[1].body as SlackPayload).loupe).toMatchObject({ kind: 'spike', items: 90, expected: 12 });
    } finally {
      await r.close();
    }
  });

  it('a receiver that refuses, or none: a notice names the host only, the alert stays; no address: nothing is sent', async () => {
    const r = await receiver(404);
    const events: LoupeEvent[] = [];
    const settings = (url: string | null): Settings => ({ ...storedDefaults(), alertWebhookUrl: url }) as Settings;
    try {
      await alertDeliverer({ settings: () => settings(r.url), emit: (e) => events.push(e) })([sample]);
      expect(r.got.length).toBe(1);
      const notice = events.find((e): e is Extract<LoupeEvent, { type: 'notice' }> => e.type === 'notice');
      expect(notice?.message).toContain('HTTP 404');
      expect(notice?.message).toContain('127.0.0.1');
      expect(notice?.message).not.toContain('secret-path');
      await alertDeliverer({ settings: () => settings(null), emit: (e) => events.push(e) })([sample]);
      expect(r.got.length).toBe(1);
    } finally {
      await r.close();
    }
    // nobody listening any more
    events.length = 0;
    await alertDeliverer({ settings: () => settings(r.url), emit: (e) => events.push(e) })([sample]);
    expect(events.length).toBe(1);
    expect((events[0] as { message: string }).message).toContain('could not be reached');
  });
});
