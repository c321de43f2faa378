/**
 * Tag management (issue 27 #7) against a simple model: random sequences of tagging, renames,
 * merges, deletes and colours; after every step the archive's tags, counts and colours, each
 * item's taggings (author and time) and what the change did not name (notes, overrides, saved
 * sets' other fields) equal the model's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TAG_COLOURS, type TagColour } from '../../shared/contract-tags';
import { openArchive, type Archive } from './index';
import { post } from './test-fixtures';

const ITEMS = ['1', '2', '3'];
const NAMES = ['lead', 'Lead', 'spam', 'SPAM', 'todo', 'x'];
const ref = (id: string) => ({ platform: 'photo_net', kind: 'post', id });
const fold = (s: string) => s.toLowerCase();

type Op =
  | { op: 'add'; item: string; tag: string; who: string }
  | { op: 'rename'; tag: string; to: string }
  | { op: 'merge'; from: string[]; into: string }
  | { op: 'delete'; tag: string }
  | { op: 'color'; tag: string; color: TagColour | null }
  | { op: 'dry'; tag: string; to: string };

const name = fc.constantFrom(...NAMES);
/** a tag by name, or mostly `#k`: the k-th tag that exists when the op runs (another spelling when k is odd), so most ops apply */
const some = fc.oneof({ weight: 1, arbitrary: name }, { weight: 3, arbitrary: fc.nat(9).map((k) => `#${k}`) });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('add' as const),
      item: fc.constantFrom(...ITEMS),
      tag: name,
      who: fc.constantFrom('ana', 'ben'),
    }),
  },
  fc.record({ op: fc.constant('rename' as const), tag: some, to: fc.oneof(name, some) }),
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('merge' as const), from: fc.array(some, { minLength: 1, maxLength: 3 }), into: some }),
  },
  fc.record({ op: fc.constant('delete' as const), tag: some }),
  fc.record({ op: fc.constant('color' as const), tag: some, color: fc.constantFrom<TagColour | null>(null, ...TAG_COLOURS) }),
  fc.record({ op: fc.constant('dry' as const), tag: some, to: some }),
);

/** `#k` → the k-th existing tag's name (odd k: in capitals) */
function pick(m: Model, s: string): string {
  if (!s.startsWith('#')) return s;
  const names = [...m.tags.values()].map((t) => t.name);
  if (names.length === 0) return 'none';
  const k = Number(s.slice(1));
  const n = names[k % names.length];
  return k % 2 ? n.toUpperCase() : n;
}

function resolve(m: Model, o: Op): Op {
  switch (o.op) {
    case 'add':
      return o;
    case 'merge':
      return { ...o, from: o.from.map((f) => pick(m, f)), into: pick(m, o.into) };
    case 'rename':
    case 'dry':
      return { ...o, tag: pick(m, o.tag), to: pick(m, o.to) };
    default:
      return { ...o, tag: pick(m, o.tag) };
  }
}

/** The model: tags by folded name, and each item's taggings by tag id. */
interface Model {
  tags: Map<number, { name: string; color: TagColour | null; createdAt: number }>;
  on: Map<string, Map<number, { at: number; author: string }>>;
  next: number;
}

function byName(m: Model, n: string): number | undefined {
  for (const [id, t] of m.tags) if (fold(t.name) === fold(n)) return id;
  return undefined;
}

/** Applies an op to the model; returns false when the archive must refuse it. */
function apply(m: Model, o: Op, now: number): boolean {
  switch (o.op) {
    case 'add': {
      let id = byName(m, o.tag);
      if (id === undefined) m.tags.set((id = m.next++), { name: o.tag, color: null, createdAt: now });
      const on = m.on.get(o.item) ?? new Map();
      if (!on.has(id)) on.set(id, { at: now, author: o.who });
      m.on.set(o.item, on);
      return true;
    }
    case 'rename': {
      const id = byName(m, o.tag);
      const other = byName(m, o.to);
      if (id === undefined || (other !== undefined && other !== id)) return false;
      m.tags.get(id)!.name = o.to;
      return true;
    }
    case 'merge': {
      const into = byName(m, o.into);
      const ids = o.from.map((f) => byName(m, f));
      if (into === undefined || ids.some((i) => i === undefined || i === into)) return false;
      const from = new Set(ids as number[]);
      for (const on of m.on.values()) {
        const mine = [...on.entries()].filter(([id]) => from.has(id)).sort((a, b) => a[1].at - b[1].at || a[0] - b[0]);
        if (mine.length && !on.has(into)) on.set(into, mine[0][1]);
        for (const [id] of mine) on.delete(id);
      }
      for (const id of from) m.tags.delete(id);
      return true;
    }
    case 'delete': {
      const id = byName(m, o.tag);
      if (id === undefined) return false;
      m.tags.delete(id);
      for (const on of m.on.values()) on.delete(id);
      return true;
    }
    case 'color': {
      const id = byName(m, o.tag);
      if (id === undefined) return false;
      m.tags.get(id)!.color = o.color;
      return true;
    }
    case 'dry':
      return byName(m, o.tag) !== undefined;
  }
}

function run(a: Archive, o: Op, who: { name: string }): void {
  switch (o.op) {
    case 'add':
      who.name = o.who;
      return a.addTag(ref(o.item), o.tag);
    case 'rename':
      return void a.tags.rename(o.tag, o.to);
    case 'merge':
      return void a.tags.merge(o.from, o.into);
    case 'delete':
      return void a.tags.delete(o.tag);
    case 'color':
      return void a.tags.color(o.tag, o.color);
    case 'dry':
      // a dry run of each kind writes nothing
      a.tags.delete(o.tag, true);
      a.tags.rename(o.tag, o.tag.toUpperCase(), true);
      return;
  }
}

function check(a: Archive, m: Model): void {
  const live = [...m.tags.values()];
  const count = (id: number) => [...m.on.values()].filter((on) => on.has(id)).length;
  expect(
    a.tags
      .list()
      .map((t) => ({ tag: t.tag, count: t.count, color: t.color, createdAt: t.createdAt }))
      .sort((x, y) => x.tag.localeCompare(y.tag)),
  ).toEqual(
    [...m.tags.entries()]
      .map(([id, t]) => ({ tag: t.name, count: count(id), color: t.color, createdAt: t.createdAt }))
      .sort((x, y) => x.tag.localeCompare(y.tag)),
  );
  expect(live.length).toBe(new Set(live.map((t) => fold(t.name))).size);
  for (const item of ITEMS) {
    const got = a.getItem('photo_net', 'post', item)!;
    const taggings = got.annotationLog.filter((e) => e.kind === 'tag').map((e) => ({ tag: e.name, at: e.at, author: e.author }));
    const want = [...(m.on.get(item) ?? new Map()).entries()].map(([id, t]) => ({ tag: m.tags.get(id)!.name, at: t.at, author: t.author }));
    expect(taggings.sort((x, y) => x.tag.localeCompare(y.tag))).toEqual(want.sort((x, y) => x.tag.localeCompare(y.tag)));
    expect(new Set(got.tags.map(fold)).size).toBe(got.tags.length); // never an item's tag twice
    // what no op names stays: the note and the override seeded first
    expect(got.note).toBe(`note ${item}`);
    expect(got.overrides).toEqual({ intent: { label: 'other' } });
  }
}

function seeded(clock: () => number, who: { name: string }): Archive {
  const a = openArchive(':memory:', { clock, author: () => who.name });
  a.ingestItems(
    ITEMS.map((id) => ({ platform: 'photo_net', kind: 'post', record: post({ id }) })),
    { callId: 'seed', source: 'seed' },
  );
  for (const id of ITEMS) {
    a.setNote(ref(id), `note ${id}`);
    a.overrideLabel(ref(id), 'intent', 'label', 'other');
  }
  return a;
}

describe('tag management against a model', () => {
  it('renames, merges, deletes and colours change only what they name', () => {
    // one archive for every run (opening one costs ~80 ms): each run starts with no tags
    let now = 1_000;
    const who = { name: 'ana' };
    const a = seeded(() => now, who);
    try {
      fc.assert(
        fc.property(fc.array(opArb, { minLength: 4, maxLength: 30 }), (ops) => {
          for (const t of a.tags.list()) a.tags.delete(t.tag);
          const m: Model = { tags: new Map(), on: new Map(), next: 1 };
          for (const op of ops) {
            const o = resolve(m, op);
            now += 1_000;
            const ok = apply(m, o, now);
            if (ok) run(a, o, who);
            else expect(() => run(a, o, who)).toThrow();
            check(a, m);
          }
        }),
        { numRuns: 60 },
      );
    } finally {
      a.close();
    }
  });

  it('a merge keeps the earliest tagging and the target’s own; says how many items it touches', () => {
    let now = 10;
    const who = { name: 'ana' };
    const a = seeded(() => now, who);
    a.addTag(ref('1'), 'a'); // 1: a (ana, 10)
    now = 20;
    who.name = 'ben';
    a.addTag(ref('1'), 'b'); // 1: b (ben, 20)
    a.addTag(ref('2'), 'b');
    now = 30;
    a.addTag(ref('2'), 'c'); // 2 carries the target already
    const dry = a.tags.merge(['a', 'b'], 'C', true);
    expect(dry).toEqual({ tag: 'c', items: 2, alreadyTagged: 1, savedSets: 0, dryRun: true });
    expect(a.tags.list().map((t) => t.tag)).toEqual(['a', 'b', 'c']);
    a.tags.merge(['a', 'b'], 'c');
    expect(a.getItem('photo_net', 'post', '1')!.annotationLog.filter((e) => e.kind === 'tag')).toMatchObject([
      { name: 'c', author: 'ana', at: 10 },
    ]);
    expect(a.getItem('photo_net', 'post', '2')!.annotationLog.filter((e) => e.kind === 'tag')).toMatchObject([
      { name: 'c', author: 'ben', at: 30 },
    ]);
    expect(a.tags.list()).toMatchObject([{ tag: 'c', count: 2 }]);
    a.close();
  });

  it('saved sets that filter by a renamed or merged tag follow it; their author and time stay', () => {
    let now = 5;
    const who = { name: 'ana' };
    const a = seeded(() => now, who);
    a.addTag(ref('1'), 'lead');
    a.addTag(ref('2'), 'hot');
    const s = a.saveResultSet('leads', { tags: ['Lead'], platforms: ['photo_net'] });
    a.saveResultSet('other', { tags: ['todo'] });
    now = 99;
    who.name = 'ben';
    expect(a.tags.rename('lead', 'prospect')).toMatchObject({ items: 1, savedSets: 1 });
    expect(a.listResultSets().find((r) => r.id === s.id)).toMatchObject({
      query: { tags: ['prospect'], platforms: ['photo_net'] },
      updatedAt: 5,
      author: 'ana',
    });
    expect(a.query({ tags: ['prospect'] }).rows.map((r) => r.id)).toEqual(['1']);
    a.tags.merge(['hot'], 'prospect');
    expect(a.listResultSets().find((r) => r.name === 'other')!.query).toEqual({ tags: ['todo'] });
    expect(a.count(a.listResultSets().find((r) => r.id === s.id)!.query)).toBe(2);
    a.addTag(ref('3'), 'x');
    expect(() => a.tags.rename('todo', 'y')).toThrow(/There is no tag “todo”/); // only a saved filter names it
    expect(() => a.tags.rename('x', 'PROSPECT')).toThrow(/“prospect” exists already: merge “x” into it/);
    expect(a.tags.rename('x', 'X')).toMatchObject({ tag: 'X', items: 1 }); // another spelling of itself
    expect(a.tags.list().map((t) => t.tag)).toEqual(['prospect', 'X']);
    a.close();
  });
});
