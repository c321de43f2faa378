/**
 * Issue 24 #1: a patch changes only what it names. Every update method of the contract, driven
 * through the doors' `dispatch` (the composed app against the in-process sandbox), over random
 * subsets of its fields: what the patch names is set, everything else stays as it was.
 *
 * The reported cases come first (Pause, Resume, "Edit budgets…" as the app sends them): each
 * wiped the list's watches and alert before the fix.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema, watchlistInput, type KeyInfo, type Settings, type WatchlistInfo } from '../shared/contract';
import type { LabelCondition } from '../shared/query';
import { settingBounds } from '../shared/settings';
import { startTestApp, type TestApp } from './test-app';
import { appWatchFactory } from './watch';

const WATCHES = [
  { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice' } },
  { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'bob' } },
  { platform: 'micro_net', endpoint: 'user/tweets', params: { handle: 'carol' } },
  { platform: 'video_net', endpoint: 'channel/videos', params: { handle: 'dave' } },
  { platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } },
];
const ALERTS: LabelCondition[] = [
  { family: 'intent', field: 'label', op: 'eq', value: 'complaining' },
  { family: 'sentiment', field: 'label', op: 'eq', value: 'negative' },
  { family: 'sponsored', field: 'p', op: 'gte', value: 0.8 },
];

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ seed: 5, balance: 100_000 }, 'loupe-patch-', { watch: appWatchFactory({ scheduler: false }) });
});
afterAll(async () => {
  await t?.close();
});

const list = async (id: string): Promise<WatchlistInfo> => {
  const l = (await t.call<WatchlistInfo[]>('watchlists.list')).find((x) => x.id === id);
  if (!l) throw new Error(`no list ${id}`);
  return l;
};

/** A list with everything set: watches, alert, schedule, budgets, depth. */
async function fullList(name: string): Promise<WatchlistInfo> {
  return t.call<WatchlistInfo>('watchlists.create', {
    name,
    schedule: { everyHours: 6 },
    budgetPerRun: 500,
    budgetPerMonth: 4000,
    alert: [ALERTS[0]],
    watches: WATCHES.slice(0, 3),
    firstRunPages: 3,
  });
}

/** What a user configured on a list (the derived fields — forecast, next run — aside). */
function configured(l: WatchlistInfo) {
  return {
    name: l.name,
    schedule: l.schedule,
    budgetPerRun: l.budgetPerRun,
    budgetPerMonth: l.budgetPerMonth,
    paused: l.paused,
    alert: l.alert,
    firstRunPages: l.firstRunPages,
    watches: l.watches.map((w) => ({ watchId: w.watchId, platform: w.platform, endpoint: w.endpoint, params: w.params, label: w.label })),
    lastRunAt: l.lastRunAt,
    newSinceSeen: l.newSinceSeen,
  };
}

describe('watchlists.update: the reported cases', () => {
  it('Pause and Resume change the paused flag and nothing else', async () => {
    const l = await fullList('pause');
    const before = configured(l);
    await t.call('watchlists.update', { id: l.id, patch: { paused: true } });
    expect(configured(await list(l.id))).toEqual({ ...before, paused: true });
    await t.call('watchlists.update', { id: l.id, patch: { paused: false } });
    expect(configured(await list(l.id))).toEqual(before);
  });

  it('"Edit budgets…" → Save (what the app sends) keeps the watches and the alert', async () => {
    const l = await fullList('edit');
    const before = configured(l);
    // WatchlistsView's Edit dialog, a budget changed
    await t.call('watchlists.update', { id: l.id, patch: { budgetPerRun: 700 } });
    expect(configured(await list(l.id))).toEqual({ ...before, budgetPerRun: 700 });
    // the same dialog as it sent every field before (unchanged values): still nothing else moves
    await t.call('watchlists.update', {
      id: l.id,
      patch: { name: l.name, budgetPerRun: 700, budgetPerMonth: 4000, firstRunPages: 3, schedule: { everyHours: 6 } },
    });
    expect(configured(await list(l.id))).toEqual({ ...before, budgetPerRun: 700 });
  });

  it('an empty patch changes nothing; a field it does not know is refused, not ignored', async () => {
    const l = await fullList('empty');
    const before = configured(l);
    await t.call('watchlists.update', { id: l.id, patch: {} });
    expect(configured(await list(l.id))).toEqual(before);
    await expect(t.call('watchlists.update', { id: l.id, patch: { pasued: true } })).rejects.toThrow(/validation.*pasued/);
    expect(configured(await list(l.id))).toEqual(before);
  });
});

// ───────────────────────── every subset of every field ─────────────────────────

const arbSchedule = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 1, max: 744 }).map((everyHours) => ({ everyHours })),
  fc.constantFrom('0 */6 * * *', '15 3 * * 1').map((cron) => ({ cron })),
);
const arbBudget = fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null });
const arbWatch = fc
  .record({ w: fc.constantFrom(...WATCHES), label: fc.option(fc.constantFrom('Main feed', 'Rival'), { nil: undefined }) })
  .map(({ w, label }) => ({ ...w, ...(label ? { label } : {}) }));
const arbWatches = fc.uniqueArray(arbWatch, { maxLength: 4, selector: (w) => JSON.stringify([w.platform, w.endpoint, w.params]) });
const arbAlert = fc.option(fc.uniqueArray(fc.constantFrom(...ALERTS), { minLength: 1, maxLength: 3 }), { nil: null });
const listFields = {
  name: fc.constantFrom('Brands', 'Rivals', 'Kettles 2'),
  schedule: arbSchedule,
  budgetPerRun: arbBudget,
  budgetPerMonth: arbBudget,
  alert: arbAlert,
  watches: arbWatches,
  firstRunPages: fc.integer({ min: 1, max: 100 }),
};
/** a random subset of the fields, each with a random value */
const arbPatch = fc.record({ ...listFields, paused: fc.boolean() }, { requiredKeys: [] });

type Watch = { platform: string; endpoint: string; params: Record<string, string>; label?: string };
/**
 * What a named field reads back as. A watch the patch gives without a label keeps the label it
 * had (the label is not named), or is labelled by its target when new.
 */
function expected(field: string, value: unknown, had: Watch[] = []): unknown {
  if (field === 'watches')
    return (value as Watch[]).map((w) => {
      const was = had.find(
        (x) => x.platform === w.platform && x.endpoint === w.endpoint && JSON.stringify(x.params) === JSON.stringify(w.params),
      );
      return {
        platform: w.platform,
        endpoint: w.endpoint,
        params: w.params,
        label: w.label ?? was?.label ?? `${w.platform}/${w.endpoint}`,
      };
    });
  return value;
}

describe('watchlists.update: any patch over any list', () => {
  it('the generators cover every field of a watchlist', () => {
    expect(Object.keys(listFields).sort()).toEqual(Object.keys(watchlistInput.shape).sort());
  });

  it('sets exactly the fields the patch names', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record(listFields), arbPatch, async (whole, patch) => {
        const l = await t.call<WatchlistInfo>('watchlists.create', whole);
        const before = configured(l);
        await t.call('watchlists.update', { id: l.id, patch });
        const after = configured(await list(l.id));
        for (const [field, was] of Object.entries(before)) {
          const now = after[field as keyof typeof after];
          if (!(field in patch)) {
            expect(now, `${field} was not named`).toEqual(was);
          } else if (field === 'watches') {
            expect((now as typeof before.watches).map(({ watchId: _, ...w }) => w)).toEqual(expected(field, patch.watches, before.watches));
            // a watch the patch keeps keeps its id (its marker and held items)
            for (const w of before.watches) {
              const kept = (now as typeof before.watches).find(
                (x) => x.platform === w.platform && x.endpoint === w.endpoint && JSON.stringify(x.params) === JSON.stringify(w.params),
              );
              if (kept) expect(kept.watchId).toBe(w.watchId);
            }
          } else {
            expect(now, `${field} was named`).toEqual(expected(field, patch[field as keyof typeof patch]));
          }
        }
        await t.call('watchlists.remove', { id: l.id });
      }),
      { numRuns: 40 },
    );
  });

  it('watchlists.addWatch appends: the list and its other watches stay as they were', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record(listFields), async (whole) => {
        const l = await t.call<WatchlistInfo>('watchlists.create', { ...whole, watches: whole.watches.slice(0, 3) });
        const before = configured(l);
        const extra = { platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'teapot' } };
        await t.call('watchlists.addWatch', { id: l.id, watch: extra });
        const after = configured(await list(l.id));
        expect({ ...after, watches: after.watches.slice(0, -1) }).toEqual(before);
        expect(after.watches.at(-1)).toMatchObject(extra);
        await t.call('watchlists.remove', { id: l.id });
      }),
      { numRuns: 15 },
    );
  });
});

describe('settings.update: any part of the settings', () => {
  const whole = (b: string) => {
    const n = (name: string) => fc.integer({ min: settingBounds(name).min ?? 0, max: settingBounds(name).max ?? 100_000 });
    return {
      baseUrl: fc.constantFrom(null, `http://127.0.0.1:9/${b}`),
      rateLimit: fc.record({ requests: n('rateLimit'), windowSeconds: fc.integer({ min: 1, max: 3600 }) }),
      maxInFlight: n('maxInFlight'),
      askAboveCredits: n('askAboveCredits'),
      maxWaitSeconds: n('maxWaitSeconds'),
      attemptTimeoutSeconds: n('attemptTimeoutSeconds'),
      theme: fc.constantFrom('system', 'light', 'dark'),
      remoteImages: fc.constantFrom('on-request', 'always'),
      authorName: fc.constantFrom(null, `Ana ${b}`, 'Ben'),
      alertWebhookUrl: fc.constantFrom(null, `https://hooks.example/${b}`, 'http://127.0.0.1:9/hook'),
      alertEmail: fc.constantFrom(
        null,
        {
          host: `smtp-${b}.example.org`,
          port: 587,
          security: 'starttls' as const,
          user: 'ana',
          from: 'a@example.org',
          to: [`${b}@example.org`],
        },
        {
          host: '127.0.0.1',
          port: 2525,
          security: 'none' as const,
          user: null,
          from: 'a@example.org',
          to: ['x@example.org', 'y@example.org'],
        },
      ),
    };
  };
  let s: TestApp;
  beforeAll(async () => {
    s = await startTestApp({ seed: 5 }, 'loupe-settings-');
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the generators cover every setting', () => {
    expect(Object.keys(whole('a')).sort()).toEqual(Object.keys(settingsSchema.shape).sort());
  });

  it('sets exactly the settings it names', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record(whole('a')), fc.record(whole('b'), { requiredKeys: [] }), async (start, patch) => {
        await s.call('settings.update', start);
        expect(await s.call<Settings>('settings.get')).toEqual(start);
        const answered = await s.call<Settings>('settings.update', patch);
        const after = await s.call<Settings>('settings.get');
        expect(answered).toEqual(after);
        expect(after).toEqual({ ...start, ...patch });
      }),
      { numRuns: 40 },
    );
    await s.call('settings.update', { baseUrl: null });
  });
});

describe('keys: retire and use change only the key and the field they name', () => {
  it('any sequence of retire / un-retire / use', async () => {
    const k = await startTestApp({ seed: 5 }, 'loupe-keys-');
    try {
      const names = ['alpha', 'beta', 'gamma'];
      for (const name of names) await k.call('keys.add', { name, key: `sdr_test_${name.padEnd(43, 'x')}`, activate: name === 'alpha' });
      const start = await k.call<KeyInfo[]>('keys.list');
      const op = fc.oneof(
        fc.record({
          m: fc.constant('keys.retire' as const),
          name: fc.constantFrom(...names),
          retiring: fc.option(fc.boolean(), { nil: undefined }),
        }),
        fc.record({ m: fc.constant('keys.use' as const), name: fc.constantFrom(...names) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 8 }), async (ops) => {
          // from the start state (a failed sequence leaves its own behind)
          for (const n of names) await k.call('keys.retire', { name: n, retiring: false });
          await k.call('keys.use', { name: 'alpha' });
          // `active` is derived: in the pool (not retiring, not refused); `use` also takes a key out of retirement
          const model = new Map(start.map((x) => [x.name, { retiring: false }]));
          for (const o of ops) {
            if (o.m === 'keys.retire') {
              await k.call(o.m, { name: o.name, ...('retiring' in o && o.retiring !== undefined ? { retiring: o.retiring } : {}) });
              model.get(o.name)!.retiring = 'retiring' in o && o.retiring !== undefined ? o.retiring : true;
            } else {
              await k.call(o.m, { name: o.name });
              model.get(o.name)!.retiring = false;
            }
            const now = await k.call<KeyInfo[]>('keys.list');
            expect(now.map((x) => x.name)).toEqual(start.map((x) => x.name));
            for (const x of now) {
              const was = start.find((y) => y.name === x.name)!;
              const m = model.get(x.name)!;
              expect(x).toEqual({ ...was, retiring: m.retiring, active: !m.retiring });
            }
          }
        }),
        { numRuns: 15 },
      );
    } finally {
      await k.close();
    }
  });
});
