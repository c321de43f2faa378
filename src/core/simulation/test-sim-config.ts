/**
 * The simulation's configuration and annotation ops (issue 24): watchlists (create, edit any
 * subset of fields, pause, resume, add watches, import, remove, run), tags, notes, overrides,
 * saved sets, exports, settings. Not shipped.
 */
import fc from 'fast-check';
import type { ExportJob, WatchlistInfo, WatchRunInfo } from '../../shared/contract';
import type { WatchImportResult } from '../../shared/contract-watch-import';
import { until } from './test-sim-env';
import { canon, itemKey, listOf, type ListModel, type SimModel } from './test-sim-model';
import { nth, Op, pick, refreshItems, target, type SimCommand } from './test-sim-op';

/** the watches of `a` that `b` does not have (as multisets) */
function minus<T>(a: T[], b: T[]): T[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(canon(x), (left.get(canon(x)) ?? 0) + 1);
  return a.filter((x) => {
    const n = left.get(canon(x)) ?? 0;
    if (n > 0) left.set(canon(x), n - 1);
    return n === 0;
  });
}

const watchArb = target.map((t) => ({ platform: t.platform, endpoint: t.endpoint, params: { ...t.params } }));
const nameArb = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,13}[A-Za-z0-9]$/);
const scheduleArb = fc.option(
  fc.integer({ min: 1, max: 72 }).map((h) => ({ everyHours: h })),
  { nil: null },
);
const budgetArb = fc.option(fc.integer({ min: 0, max: 3000 }), { nil: null });
const alertArb = fc.option(
  fc.constantFrom(
    [{ family: 'intent', field: 'label', op: 'eq' as const, value: 'complaining' }],
    [{ family: 'sponsored', field: 'p', op: 'gte' as const, value: 0.8 }],
  ),
  { nil: null },
);

const hasList = (m: Readonly<SimModel>) => m.lists.size > 0;
const hasItem = (m: Readonly<SimModel>) => m.items.length > 0;

/** The analyst's lists and their watches (the order of the ops is part of a replay path). */
export function configOps(): Array<fc.Arbitrary<SimCommand>> {
  return [...listOps(), ...runOps()];
}

function listOps(): Array<fc.Arbitrary<SimCommand>> {
  const create = fc
    .record({
      name: nameArb,
      schedule: scheduleArb,
      budgetPerRun: budgetArb,
      budgetPerMonth: budgetArb,
      alert: alertArb,
      watches: fc.array(watchArb, { maxLength: 3 }),
      firstRunPages: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    })
    .map(
      (a) =>
        new Op('createList', a, async (m, env) => {
          const info = await env.call<WatchlistInfo>('watchlists.create', a);
          const l = listOf(info);
          m.lists.set(info.id, { ...l, firstRunPages: l.firstRunPages });
        }),
    );
  const patchArb = fc.record(
    {
      name: nameArb,
      schedule: scheduleArb,
      budgetPerRun: budgetArb,
      budgetPerMonth: budgetArb,
      alert: alertArb,
      paused: fc.boolean(),
      firstRunPages: fc.integer({ min: 1, max: 3 }),
      watches: fc.array(watchArb, { maxLength: 3 }),
    },
    { requiredKeys: [] },
  );
  const edit = fc.tuple(pick, patchArb).map(
    ([i, patch]) =>
      new Op(
        'editList',
        patch,
        async (m, env) => {
          const l = nth(m.lists, i) as ListModel;
          const info = await env.call<WatchlistInfo>('watchlists.update', { id: l.id, patch });
          const got = listOf(info);
          const next: ListModel = { ...l };
          for (const k of Object.keys(patch) as Array<keyof typeof patch>) {
            if (k === 'watches')
              next.watches = got.watches; // the analyst replaced them: labels are the app's
            else (next as unknown as Record<string, unknown>)[k] = patch[k];
          }
          m.lists.set(l.id, next);
        },
        hasList,
      ),
  );
  const pause = fc.tuple(pick, fc.boolean()).map(
    ([i, paused]) =>
      new Op(
        paused ? 'pause' : 'resume',
        { paused },
        async (m, env) => {
          const l = nth(m.lists, i) as ListModel;
          await env.call('watchlists.update', { id: l.id, patch: { paused } });
          m.lists.set(l.id, { ...l, paused });
        },
        hasList,
      ),
  );
  const addWatch = fc.tuple(pick, watchArb).map(
    ([i, w]) =>
      new Op(
        'addWatch',
        w,
        async (m, env) => {
          const l = nth(m.lists, i) as ListModel;
          const info = await env.call<WatchlistInfo>('watchlists.addWatch', { id: l.id, watch: w });
          const got = listOf(info);
          // the new watch is the one the list did not have (its label is the app's); the others as they were
          const added = got.watches.find(
            (x) =>
              canon({ ...x, label: '' }) === canon({ ...w, label: '' }) &&
              got.watches.filter((y) => canon(y) === canon(x)).length > l.watches.filter((y) => canon(y) === canon(x)).length,
          );
          m.lists.set(l.id, {
            ...l,
            watches: added ? [...l.watches, added] : [...l.watches, { ...w, label: '(the app added no such watch)' }],
          });
        },
        hasList,
      ),
  );
  const remove = pick.map(
    (i) =>
      new Op(
        'removeList',
        {},
        async (m, env) => {
          const l = nth(m.lists, i) as ListModel;
          await env.call('watchlists.remove', { id: l.id });
          m.lists.delete(l.id);
        },
        hasList,
      ),
  );
  return [create, edit, pause, addWatch, remove];
}

function runOps(): Array<fc.Arbitrary<SimCommand>> {
  const importArb = fc.record({
    into: fc.option(pick, { nil: null }),
    handles: fc.array(fc.stringMatching(/^[a-z][a-z0-9_.]{2,10}$/), { minLength: 1, maxLength: 4 }),
    at: fc.boolean(),
  });
  const importOp = importArb.map(
    (a) =>
      new Op('importList', a, async (m, env) => {
        const into = a.into !== null ? nth(m.lists, a.into) : undefined;
        const text = a.handles.map((h) => (a.at ? `@${h}` : h)).join('\n');
        const r = await env.call<WatchImportResult<WatchlistInfo>>('watchlists.import', {
          text,
          platform: 'photo_net',
          endpoint: 'profile/posts',
          list: into ? { id: into.id } : { name: `Import ${a.handles[0]}` },
        });
        const got = listOf(r.watchlist);
        if (into) {
          // what the import did not name is unchanged: the list's own watches come first, as they were
          m.lists.set(into.id, { ...into, watches: [...into.watches, ...minus(got.watches, into.watches)] });
        } else m.lists.set(got.id, got);
      }),
  );
  const run = fc.tuple(pick, fc.boolean()).map(
    ([i, approved]) =>
      new Op(
        'runList',
        { approved },
        async (m, env) => {
          const l = nth(m.lists, i) as ListModel;
          const r = await env.attempt<WatchRunInfo>('watchlists.run', { id: l.id, approved });
          if (r.ok && r.result) m.runs.push({ listId: l.id, runId: r.result.runId, budgetPerRun: l.budgetPerRun });
          await refreshItems(m, env);
        },
        hasList,
      ),
  );
  // the scheduler's tick (scheduled runs have nobody to approve them: the per-run budget is the approval)
  const tick = fc.constant(null).map(
    () =>
      new Op(
        'scheduledTick',
        {},
        async (m, env) => {
          await env.call('watchlists.list'); // the service is built on first use
          const runs = await env.watch().tick();
          for (const r of runs)
            m.runs.push({ listId: r.watchlistId, runId: r.runId, budgetPerRun: m.lists.get(r.watchlistId)?.budgetPerRun ?? null });
          await refreshItems(m, env);
        },
        hasList,
      ),
  );
  return [importOp, run, run, tick];
}

export function annotationOps(): Array<fc.Arbitrary<SimCommand>> {
  const ann = (m: SimModel, i: number) => {
    const it = m.items[i % m.items.length];
    const k = itemKey(it);
    const a = m.annotations.get(k) ?? { tags: new Set<string>(), note: null, overrides: new Map<string, unknown>() };
    m.annotations.set(k, a);
    return { it, a };
  };
  const tag = fc.tuple(pick, fc.constantFrom('to-read', 'complaint', 'brand x'), fc.boolean()).map(
    ([i, tag, remove]) =>
      new Op(
        'tag',
        { tag, remove },
        async (m, env) => {
          const { it, a } = ann(m, i);
          await env.call('library.tag', { items: [it], tag, remove });
          if (remove) a.tags.delete(tag);
          else a.tags.add(tag);
        },
        hasItem,
      ),
  );
  const note = fc.tuple(pick, fc.option(fc.string({ maxLength: 40 }), { nil: null })).map(
    ([i, text]) =>
      new Op(
        'note',
        { text },
        async (m, env) => {
          const { it, a } = ann(m, i);
          await env.call('library.note', { item: it, note: text });
          // null or blank text removes the note (core/archive/annotations.ts `setNote`)
          a.note = text === null || text.trim() === '' ? null : text;
        },
        hasItem,
      ),
  );
  const override = fc.tuple(pick, fc.option(fc.constantFrom('complaining', 'promoting', 'other'), { nil: null })).map(
    ([i, value]) =>
      new Op(
        'override',
        { value },
        async (m, env) => {
          const { it, a } = ann(m, i);
          if (it.kind !== 'post') return;
          if (value === null) {
            await env.call('library.override', { item: it, family: 'intent', field: 'label', value: null, clear: true });
            a.overrides.delete('intent.label');
          } else {
            await env.call('library.override', { item: it, family: 'intent', field: 'label', value });
            a.overrides.set('intent.label', value);
          }
        },
        hasItem,
      ),
  );
  const saveSet = fc.tuple(nameArb, fc.option(fc.string({ maxLength: 30 }), { nil: undefined })).map(
    ([name, note]) =>
      new Op('saveSet', { name, note }, async (m, env) => {
        const r = await env.call<{ id: string }>('library.saveResultSet', { name, query: {}, ...(note !== undefined ? { note } : {}) });
        m.sets.set(r.id, { name, note: note === undefined || note === '' ? null : note });
      }),
  );
  const exportOp = fc.constantFrom('csv', 'jsonl', 'json').map(
    (format) =>
      new Op('export', { format }, async (_m, env) => {
        const job = await env.call<ExportJob>('export.start', { query: {}, format });
        let last = job;
        await until('the export to finish', async () => {
          last = (await env.call<ExportJob | null>('export.get', { exportId: job.exportId })) ?? last;
          return last.status !== 'running';
        });
        if (last.status !== 'done') throw new Error(`export ${format} ended ${last.status}: ${last.error}`);
        const n = await env.call<number>('library.count', {});
        if (last.rows !== n) throw new Error(`export ${format} wrote ${last.rows} rows of ${n}`);
      }),
  );
  const settings = fc
    .record(
      {
        askAboveCredits: fc.integer({ min: 0, max: 5000 }),
        maxWaitSeconds: fc.integer({ min: 60, max: 900 }),
        theme: fc.constantFrom('system', 'light', 'dark'),
        maxInFlight: fc.integer({ min: 1, max: 10 }),
      },
      { requiredKeys: [] },
    )
    .map(
      (patch) =>
        new Op('settings', patch, async (m, env) => {
          if (!m.settings) m.settings = { ...(await env.call<Record<string, unknown>>('settings.get')) };
          await env.call('settings.update', patch);
          Object.assign(m.settings, patch);
        }),
    );
  return [tag, note, override, saveSet, exportOp, settings];
}
