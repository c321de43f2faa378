import { describe, it, expect, afterEach } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openArchive, Archive, ArchiveVersionError, MIGRATIONS, latestVersion, migrate, currentOwner } from './index';
import type { JournalEntry, WalkState } from '../ports';
import type { LibraryQuery } from '../../shared/query';
import { envelope, JOURNAL_UNSAID, ledgerEntry, listResponse, post } from './test-fixtures';
import { testDb } from './testing';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'loupe-archive-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('opening and migrations', () => {
  it('creates the schema from empty, in WAL mode with foreign keys on', () => {
    const file = join(tmp(), 'loupe.db');
    const a = openArchive(file);
    expect(testDb(a).pragma('user_version', { simple: true })).toBe(latestVersion());
    expect(latestVersion()).toBe(MIGRATIONS.length);
    expect(testDb(a).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(testDb(a).pragma('foreign_keys', { simple: true })).toBe(1);
    expect(testDb(a).pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    const tables = (
      testDb(a).prepare("SELECT name FROM sqlite_master WHERE type IN ('table') ORDER BY name").all() as Array<{ name: string }>
    ).map((t) => t.name);
    for (const t of [
      'items',
      'item_labels',
      'calls',
      'journal',
      'responses',
      'provenance',
      'walks',
      'balance',
      'tags',
      'item_tags',
      'notes',
      'label_overrides',
      'result_sets',
      'items_fts',
    ]) {
      expect(tables).toContain(t);
    }
    a.close();
    // reopening applies nothing new and keeps data
    const b = openArchive(file);
    expect(testDb(b).pragma('user_version', { simple: true })).toBe(latestVersion());
    b.close();
  });

  it('refuses an archive from a newer Loupe and leaves the file unchanged', () => {
    const file = join(tmp(), 'loupe.db');
    const raw = new Database(file);
    raw.exec('CREATE TABLE future (x)');
    raw.pragma(`user_version = ${latestVersion() + 5}`);
    raw.close();
    const before = readFileSync(file);
    let err: unknown;
    try {
      openArchive(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ArchiveVersionError);
    expect((err as Error).message).toBe(
      `This archive was written by a newer Loupe (schema ${latestVersion() + 5}); this version understands up to ${latestVersion()}. Update Loupe or open another data folder.`,
    );
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('applies later migrations appended to the list, each in a transaction', () => {
    const db = new Database(':memory:');
    migrate(db);
    const extra = [
      ...MIGRATIONS,
      {
        version: MIGRATIONS.length + 1,
        name: 'later',
        up: (d: Database.Database) => d.exec('CREATE TABLE later_feature (id TEXT PRIMARY KEY)'),
      },
    ];
    expect(migrate(db, extra)).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length + 1 });
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 1);
    // a failing migration rolls back completely, user_version included
    const broken = [
      ...extra,
      {
        version: extra.length + 1,
        name: 'broken',
        up: (d: Database.Database) => {
          d.exec('CREATE TABLE half (x)');
          throw new Error('boom');
        },
      },
    ];
    expect(() => migrate(db, broken)).toThrow('boom');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 1);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('two processes opening a new archive at once apply each migration once (the version is read again under the write lock)', () => {
    const file = join(tmp(), 'loupe.db');
    const late = new Database(file);
    // `late` read the version before the other process migrated the file…
    const real = late.pragma.bind(late);
    let stale = true;
    late.pragma = ((src: string, o?: { simple?: boolean }) => {
      if (stale && src === 'user_version') {
        stale = false;
        return o?.simple ? 0 : [{ user_version: 0 }];
      }
      return real(src, o);
    }) as typeof late.pragma;
    openArchive(file).close(); // …which migrates it now
    expect(() => migrate(late)).not.toThrow();
    expect(real('user_version', { simple: true })).toBe(latestVersion());
    late.close();
  });
});

describe('label rows (migration 0004: integer field ids)', () => {
  it('re-keys the label rows of an archive written by schema 3; every label query reads them as before', () => {
    const file = join(tmp(), 'loupe.db');
    const old = new Database(file);
    migrate(old, MIGRATIONS.slice(0, 3));
    const item = old.prepare(
      'INSERT INTO items (platform, kind, id, raw, published_at, labels, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, 1, 1)',
    );
    const label = old.prepare('INSERT INTO item_labels (family, field, value, item_rid) VALUES (?, ?, ?, ?)');
    const rows: Array<[string, Record<string, Record<string, unknown>>]> = [
      ['1', { intent: { label: 'complaining', urgency: 2 }, sponsored: { p: 0.9, brand: null }, mention: { aspect: { price: 0.7 } } }],
      ['2', { intent: { label: 'other', urgency: 0 }, sponsored: { p: 0.2, brand: 'acme' } }],
      ['3', { intent: { label: null, urgency: 3 }, sponsored: { p: 0.6, brand: null } }],
    ];
    rows.forEach(([id, labels], k) => {
      const rid = Number(
        item.run('photo_net', 'post', id, JSON.stringify({ id, computed: { labels } }), 1000 + k, JSON.stringify(labels)).lastInsertRowid,
      );
      const v = (x: unknown) => (x === null ? Buffer.alloc(0) : typeof x === 'number' && Number.isInteger(x) ? BigInt(x) : x);
      label.run('intent', 'label', v(labels.intent.label), rid);
      label.run('intent', 'urgency', v(labels.intent.urgency), rid);
      label.run('sponsored', 'p', v(labels.sponsored.p), rid);
      label.run('sponsored', 'brand', v(labels.sponsored.brand), rid);
      if (labels.mention) label.run('mention', 'aspect.price', v((labels.mention.aspect as Record<string, unknown>).price), rid);
    });
    old.close();

    // each plan (materialised, probed per row) migrates its own copy of the schema-3 file
    for (const denseAt of [undefined, 1]) {
      const copy = join(tmp(), 'copy.db');
      copyFileSync(file, copy);
      const a = openArchive(copy, { denseAt });
      expect(testDb(a).pragma('user_version', { simple: true })).toBe(latestVersion());
      const cols = (testDb(a).prepare('PRAGMA table_info(item_labels)').all() as Array<{ name: string }>).map((c) => c.name);
      expect(cols).toEqual(['ff', 'value', 'item_rid']);
      expect(testDb(a).prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'item_labels_item'").get()).toEqual({ n: 0 });
      expect(testDb(a).prepare('SELECT count(*) AS n FROM label_fields').get()).toEqual({ n: 5 });
      const q = (labels: LibraryQuery['labels'], sort?: LibraryQuery['sort']) =>
        a.query({ labels, sort, limit: 100 }).rows.map((r) => r.id);
      expect(q([{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }])).toEqual(['1']);
      expect(q([{ family: 'intent', field: 'label', op: 'neq', value: 'complaining' }]).sort()).toEqual(['2', '3']); // null (unsure) is another value
      expect(q([{ family: 'sponsored', field: 'p', op: 'gte', value: 0.5 }]).sort()).toEqual(['1', '3']);
      expect(q([{ family: 'intent', field: 'urgency', op: 'gte', value: 2 }]).sort()).toEqual(['1', '3']);
      expect(q([{ family: 'sponsored', field: 'brand', op: 'eq', value: 'acme' }])).toEqual(['2']);
      expect(q([{ family: 'mention', field: 'aspect.price', op: 'gt', value: 0.5 }])).toEqual(['1']);
      expect(q([], { field: 'label:sponsored.p', dir: 'desc' })).toEqual(['1', '3', '2']);
      expect(q([], { field: 'label:intent.label', dir: 'asc' })).toEqual(['1', '2', '3']); // the null label sorts last
      expect(a.labelDistribution({}, 'intent', 'label')).toEqual([
        { bucket: 'complaining', value: 1, share: 1 / 3 },
        { bucket: 'other', value: 1, share: 1 / 3 },
        { bucket: 'null', value: 1, share: 1 / 3 },
      ]);
      // new rows join the re-keyed ones under the same field ids
      a.ingestItems([{ platform: 'photo_net', kind: 'post', record: { id: '4', computed: { labels: { sponsored: { p: 0.95 } } } } }]);
      expect(q([{ family: 'sponsored', field: 'p', op: 'gte', value: 0.9 }]).sort()).toEqual(['1', '4']);
      expect(testDb(a).prepare('SELECT count(*) AS n FROM label_fields').get()).toEqual({ n: 5 });
      a.close();
    }
  });

  it('two connections sharing a file agree on field ids, whichever meets a field first', () => {
    const file = join(tmp(), 'loupe.db');
    const a = openArchive(file);
    const b = openArchive(file);
    const rec = (id: string, labels: Record<string, Record<string, unknown>>) => ({
      platform: 'photo_net',
      kind: 'post',
      record: { id, computed: { labels } },
    });
    a.ingestItems([rec('1', { novel: { s: 0.9 } })]);
    b.ingestItems([rec('2', { novel: { s: 0.1 }, other: { t: 1 } })]); // b reads a's id, creates other.t
    a.ingestItems([rec('3', { other: { t: 2 } })]); // a reads b's id
    for (const c of [a, b]) {
      const ids = (family: string, field: string, value: number) =>
        c
          .query({ labels: [{ family, field, op: 'gte', value }] })
          .rows.map((r) => r.id)
          .sort();
      expect(ids('novel', 's', 0.5)).toEqual(['1']);
      expect(ids('novel', 's', 0)).toEqual(['1', '2']);
      expect(ids('other', 't', 1)).toEqual(['2', '3']);
    }
    expect(testDb(a).prepare('SELECT count(*) AS n FROM label_fields').get()).toEqual({ n: 2 });
    a.close();
    b.close();
  });

  it('a field id created in a transaction that rolls back is never reused for another field', () => {
    const a = openArchive(':memory:');
    const rec = (id: string, labels: Record<string, Record<string, unknown>>) => ({
      platform: 'photo_net',
      kind: 'post',
      record: { id, computed: { labels } },
    });
    // a caller's transaction ingests a new field, then fails: the field id it created is gone
    expect(() =>
      testDb(a).transaction(() => {
        a.ingestItems([rec('x', { novel: { score: 0.9 } })]);
        throw new Error('caller gave up');
      })(),
    ).toThrow('caller gave up');
    expect(a.query({}).rows).toEqual([]);
    // another field now takes the next free id, and the first field a new one
    a.ingestItems([rec('b', { other: { score: 0.2 } })]);
    a.ingestItems([rec('c', { novel: { score: 0.9 } })]);
    const ids = (family: string, op: 'gte' | 'lte', value: number) =>
      a.query({ labels: [{ family, field: 'score', op, value }] }).rows.map((r) => r.id);
    expect(ids('other', 'gte', 0.5)).toEqual([]);
    expect(ids('other', 'lte', 0.5)).toEqual(['b']);
    expect(ids('novel', 'gte', 0.5)).toEqual(['c']);
    expect(a.labelDistribution({}, 'novel', 'score').reduce((n, p) => n + p.value, 0)).toBe(1);
    a.close();
  });
});

describe('items: upsert, merge, ids', () => {
  it('stores one row per (platform, kind, id); a later fetch updates counts and labels', () => {
    const a = openArchive(':memory:');
    const first = a.storeResponse(
      listResponse(
        'c1',
        'photo_net',
        'profile/posts',
        [
          post({ id: '1', likes: 5, views: null, labels: { intent: { label: 'complaining', confidence: 0.8 } } }),
          post({ id: '2', likes: 1 }),
        ],
        { fetchedAt: 1_000 },
      ),
      'profile',
      null,
    );
    expect(first.newItems).toBe(2);
    expect(first.items).toEqual([
      { platform: 'photo_net', kind: 'post', id: '1' },
      { platform: 'photo_net', kind: 'post', id: '2' },
    ]);
    const second = a.storeResponse(
      listResponse(
        'c2',
        'photo_net',
        'profile/posts',
        [post({ id: '1', likes: 9, views: 100, labels: { intent: { label: 'switching_away', confidence: 0.9 } } })],
        { fetchedAt: 2_000 },
      ),
      'profile',
      null,
    );
    expect(second.newItems).toBe(0);
    expect(a.count({})).toBe(2);
    // same id on another platform or kind is another item
    a.ingestItems([{ platform: 'micro_net', kind: 'post', record: post({ id: '1' }) }]);
    expect(a.count({})).toBe(3);
    const it1 = a.getItem('photo_net', 'post', '1')!;
    expect(it1.engagement.likes).toBe(9);
    expect(it1.engagement.views).toBe(100);
    expect(it1.labels?.intent).toEqual({ label: 'switching_away', confidence: 0.9 });
    expect(it1.firstSeenAt).toBe(1_000);
    expect(it1.lastSeenAt).toBe(2_000);
    expect(it1.seenCount).toBe(2);
    expect(a.count({ labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }] })).toBe(0);
    expect(a.count({ labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'switching_away' }] })).toBe(1);
    a.close();
  });

  it('a later answer with judgments off or null fields never wipes known labels or counts', () => {
    const a = openArchive(':memory:');
    a.storeResponse(
      listResponse('c1', 'photo_net', 'p', [
        post({ id: '1', likes: 5, labels: { sponsored: { p: 0.7 }, intent: { label: 'promoting' } }, relevance: 0.9 }),
      ]),
      's',
      null,
    );
    a.storeResponse(
      listResponse('c2', 'photo_net', 'p', [post({ id: '1', likes: null, noComputed: true, text: null })], { fetchedAt: 3_000 }),
      's',
      null,
    );
    a.storeResponse(listResponse('c3', 'photo_net', 'p', [post({ id: '1', likes: 6, labels: null })], { fetchedAt: 4_000 }), 's', null);
    // a partial judgment replaces only the families it carries
    a.storeResponse(
      listResponse('c4', 'photo_net', 'p', [post({ id: '1', labels: { sponsored: { p: 0.2 } } })], { fetchedAt: 5_000 }),
      's',
      null,
    );
    const it = a.getItem('photo_net', 'post', '1')!;
    expect(it.engagement.likes).toBe(6);
    expect(it.text).toBe('post 1');
    expect(it.labels).toEqual({ sponsored: { p: 0.2 }, intent: { label: 'promoting' } });
    expect(it.relevance).toBe(0.9);
    expect((it.record.computed as { labels: unknown }).labels).toEqual({ sponsored: { p: 0.2 }, intent: { label: 'promoting' } });
    expect(a.count({ labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'promoting' }] })).toBe(1);
    expect(a.count({ labels: [{ family: 'sponsored', field: 'p', op: 'gte', value: 0.5 }] })).toBe(0);
    expect(a.count({ labels: [{ family: 'sponsored', field: 'p', op: 'lt', value: 0.5 }] })).toBe(1);
    expect(it.seenCount).toBe(4);
    a.close();
  });

  it('keeps counts null when unknown, 0 when zero', () => {
    const a = openArchive(':memory:');
    a.ingestItems([{ platform: 'photo_net', kind: 'post', record: post({ id: '1', likes: 0, views: null }) }]);
    const it = a.getItem('photo_net', 'post', '1')!;
    expect(it.engagement.likes).toBe(0);
    expect(it.engagement.views).toBeNull();
    expect(a.count({ engagement: [{ field: 'views', max: 10 }] })).toBe(0);
    expect(a.count({ engagement: [{ field: 'likes', max: 0 }] })).toBe(1);
    a.close();
  });

  it('ids above 2^53 round-trip as exact strings', () => {
    const a = openArchive(':memory:');
    const big = '18446744073709551617123';
    const near = '9007199254740993'; // 2^53 + 1
    a.ingestItems([
      { platform: 'micro_net', kind: 'post', record: post({ id: big, parent_id: near, author: { id: '9007199254740995' } }) },
      { platform: 'micro_net', kind: 'post', record: post({ id: near }) },
    ]);
    const it = a.getItem('micro_net', 'post', big)!;
    expect(it.id).toBe(big);
    expect(it.parentId).toBe(near);
    expect(it.author.id).toBe('9007199254740995');
    expect(a.getItem('micro_net', 'post', '9007199254740992')).toBeUndefined();
    expect(a.getItem('micro_net', 'post', near)!.id).toBe(near);
    const ids = a.query({ sort: { field: 'first_seen_at', dir: 'asc' } }).rows.map((r) => r.id);
    expect(ids.sort()).toEqual([big, near].sort());
    expect([...a.iterateExportRows({})].map((r) => r.id).sort()).toEqual([big, near].sort());
    a.close();
  });

  it('stores single-object answers (data.post, data.profile with author.id) and list kinds', () => {
    const a = openArchive(':memory:');
    const single = {
      callId: 'c1',
      platform: 'photo_net',
      endpoint: 'post',
      paramsHash: 'hp',
      fetchedAt: 10,
      envelope: envelope('photo_net', 'post', { post: post({ id: '77' }) }),
    };
    expect(a.storeResponse(single, 'explorer', null)).toEqual({ items: [{ platform: 'photo_net', kind: 'post', id: '77' }], newItems: 1 });
    const prof = {
      callId: 'c2',
      platform: 'photo_net',
      endpoint: 'profile',
      paramsHash: 'hq',
      fetchedAt: 10,
      envelope: envelope('photo_net', 'profile', {
        profile: { author: { id: '555', username: 'bob', display_name: 'Bob', bio: 'coffee nerd', followers: 10 } },
      }),
    };
    expect(a.storeResponse(prof, 'profile', null).items).toEqual([{ platform: 'photo_net', kind: 'profile', id: '555' }]);
    expect(a.getItem('photo_net', 'profile', '555')!.author.username).toBe('bob');
    expect(a.count({ text: 'nerd' })).toBe(1);
    const groups = listResponse('c3', 'social_net', 'search/groups', [{ id: 'g1', name: 'Espresso lovers' }], { kind: 'group' });
    expect(a.storeResponse(groups, 'search', null).items).toEqual([{ platform: 'social_net', kind: 'group', id: 'g1' }]);
    expect(a.count({ kinds: ['group'], text: 'espresso' })).toBe(1);
    // a transcript without an id is not an item; the answer is still stored
    const tr = {
      callId: 'c4',
      platform: 'video_net',
      endpoint: 'transcript',
      paramsHash: 'ht',
      fetchedAt: 10,
      envelope: envelope('video_net', 'transcript', { transcript: { language: 'en', text: 'hi', segments: [] } }),
    };
    expect(a.storeResponse(tr, 'explorer', null)).toEqual({ items: [], newItems: 0 });
    expect(a.findFreshResponse('video_net', 'transcript', 'ht', 0)?.callId).toBe('c4');
    a.close();
  });

  it('links provenance: which calls returned an item, when and at what cost', () => {
    const a = openArchive(':memory:');
    a.recordAttempt(
      ledgerEntry({ callId: 'c1', attempt: 1, status: 503, errorType: 'SERVICE_UNAVAILABLE', creditsUsed: 0, requestId: 'r_fail' }),
    );
    a.recordAttempt(ledgerEntry({ callId: 'c1', attempt: 2, status: 200, creditsUsed: 3, requestId: 'r_ok' }));
    a.storeResponse(
      listResponse('c1', 'photo_net', 'profile/posts', [post({ id: '1' }), post({ id: '2' })], {
        fetchedAt: 1_000,
        unavailable: ['engagement.saves'],
      }),
      'search',
      'w1',
    );
    a.storeResponse(listResponse('c2', 'photo_net', 'profile/posts', [post({ id: '2' })], { fetchedAt: 2_000 }), 'watch:7', null);
    const calls = a.itemCalls('photo_net', 'post', '2');
    expect(calls.map((c) => [c.callId, c.at, c.position, c.source])).toEqual([
      ['c2', 2_000, 0, 'watch:7'],
      ['c1', 1_000, 1, 'search'],
    ]);
    expect(calls[1]).toMatchObject({ requestId: 'r_ok', creditsUsed: 3, walkId: 'w1', endpoint: 'profile/posts' });
    expect(calls[0]).toMatchObject({ requestId: null, creditsUsed: 0 });
    const item = a.getItem('photo_net', 'post', '1')!;
    expect(item.provenance).toHaveLength(1);
    expect(item.unavailable).toEqual(['engagement.saves']);
    a.close();
  });
});

describe('core store round trips', () => {
  it('journal: begin, find by opKey, pending, finish', () => {
    const a = openArchive(':memory:');
    const e: JournalEntry = {
      callId: 'c1',
      opKey: 'walk:w1:page:0',
      idempotencyKey: 'k-1',
      platform: 'photo_net',
      endpoint: 'profile/posts',
      params: '{"handle":"x"}',
      paramsHash: 'h',
      state: 'pending',
      createdAt: 5,
      finishedAt: null,
      keyName: 'team-2',
    };
    a.beginJournal(e);
    a.beginJournal({ ...e, callId: 'c2', opKey: 'one-off', createdAt: 6 });
    // read back with the readings before its key and an earlier lost one's (0016, 0020), free-call flags (0023) and counts (0026)
    const none = { ...Object.fromEntries(JOURNAL_UNSAID.map((k) => [k, null])), owner: 'this' };
    expect(a.findJournal('walk:w1:page:0')).toEqual({ ...e, ...none });
    expect(a.findJournal('nope')).toBeUndefined();
    expect(a.pendingJournal().map((j) => j.callId)).toEqual(['c1', 'c2']);
    a.finishJournal('c1', 'done', 9);
    expect(a.findJournal('walk:w1:page:0')).toEqual({ ...e, state: 'done', finishedAt: 9, ...none });
    // both readings are kept as written
    const lossBefore = { balance: 100, at: 3, ledgerId: 0 };
    a.beginJournal({ ...e, callId: 'c4', opKey: 'moved-on', before: { balance: 80, at: 4, ledgerId: 1 }, lossBefore });
    expect(a.findJournal('moved-on')).toMatchObject({ before: { balance: 80, at: 4, ledgerId: 1 }, lossBefore });
    expect(
      a
        .pendingJournal()
        .map((j) => j.callId)
        .sort(),
    ).toEqual(['c2', 'c4']);
    // a second logical call may not reuse an opKey
    expect(() => a.beginJournal({ ...e, callId: 'c3' })).toThrow();
    a.close();
  });

  it('ledger: every attempt is a row, returned as written', () => {
    const a = openArchive(':memory:');
    const e1 = ledgerEntry({
      dryRun: true,
      creditsUsed: 0,
      walkId: 'w1',
      cached: true,
      freeCall: true,
      idempotentReplay: true,
      keyName: 'team-2',
    });
    const id1 = a.recordAttempt(e1);
    const id2 = a.recordAttempt(ledgerEntry({ attempt: 2, status: null, errorType: 'NETWORK', creditsRemaining: null, requestId: null }));
    expect(id2).toBeGreaterThan(id1);
    expect(a.listLedger({ limit: 1 })[0].keyName).toBeNull(); // an unnamed key
    expect(a.lastUsedByKey()).toEqual(new Map([['team-2', e1.startedAt]]));
    const rows = a.listLedger({ limit: 10 });
    expect(rows.map((r) => r.id)).toEqual([id2, id1]);
    expect(rows[1]).toEqual({ ...e1, id: id1 });
    expect(rows[0].status).toBeNull();
    expect(a.listLedger({ beforeId: id2 }).map((r) => r.id)).toEqual([id1]);
    const cols = (testDb(a).prepare('PRAGMA table_info(calls)').all() as Array<{ name: string }>).map((c) => c.name);
    expect(cols.some((c) => /api_?key|secret|token/i.test(c))).toBe(false);
    a.close();
  });

  it('walks: save, update, get, list by status', () => {
    const a = openArchive(':memory:');
    const w: WalkState = {
      walkId: 'w1',
      platform: 'photo_net',
      endpoint: 'profile/posts',
      params: '{"handle":"x"}',
      cursorParam: 'cursor',
      cursor: null,
      pagesDone: 0,
      creditsSpent: 0,
      itemsSeen: 0,
      status: 'running',
      stopReason: null,
      source: 'profile',
      createdAt: 1,
      updatedAt: 1,
      error: null,
    };
    a.saveWalk(w);
    a.saveWalk({ ...w, walkId: 'w2', status: 'done', stopReason: 'end', updatedAt: 3 });
    const w1b = { ...w, cursor: 'sdr_cur_abc', pagesDone: 2, creditsSpent: 6, itemsSeen: 24, status: 'paused' as const, updatedAt: 5 };
    a.saveWalk(w1b);
    // read back with the process that saved it (migration 0005), no restart yet (migration 0015)
    expect(a.getWalk('w1')).toEqual({ ...w1b, restarts: 0, rewalkAt: null, owner: currentOwner() });
    // a restarted walk re-reading its held pages (migration 0015)
    a.saveWalk({ ...w1b, restarts: 2, rewalkAt: 1 });
    expect(a.getWalk('w1')).toMatchObject({ restarts: 2, rewalkAt: 1, pagesDone: 2 });
    a.saveWalk(w1b);
    expect(a.getWalk('zz')).toBeUndefined();
    expect(a.listWalks().map((x) => x.walkId)).toEqual(['w1', 'w2']);
    expect(a.listWalks({ status: ['done'] }).map((x) => x.walkId)).toEqual(['w2']);
    expect(a.listWalks({ status: ['running', 'paused'] }).map((x) => x.walkId)).toEqual(['w1']);
    a.close();
  });

  it('balance persists across reopen and never goes back in time', () => {
    const file = join(tmp(), 'loupe.db');
    const a = openArchive(file);
    expect(a.getBalance()).toBeUndefined();
    a.setBalance(500, 10);
    a.setBalance(480, 20);
    a.setBalance(999, 15); // an older answer arriving late
    a.close();
    const b = openArchive(file);
    expect(b.getBalance()).toEqual({ creditsRemaining: 480, at: 20 });
    b.close();
  });

  it('findFreshResponse: newest answer of the exact call inside the window', () => {
    const a = openArchive(':memory:');
    const mk = (callId: string, fetchedAt: number, hash = 'H') =>
      listResponse(callId, 'photo_net', 'profile/posts', [post({ id: callId })], { fetchedAt, paramsHash: hash });
    a.storeResponse(mk('old', 1_000), 's', null);
    a.storeResponse(mk('new', 5_000), 's', null);
    a.storeResponse(mk('other', 9_000, 'OTHER'), 's', null);
    expect(a.findFreshResponse('photo_net', 'profile/posts', 'H', 0)?.callId).toBe('new');
    expect(a.findFreshResponse('photo_net', 'profile/posts', 'H', 5_000)?.callId).toBe('new');
    expect(a.findFreshResponse('photo_net', 'profile/posts', 'H', 5_001)).toBeUndefined();
    expect(a.findFreshResponse('photo_net', 'profile/reels', 'H', 0)).toBeUndefined();
    const got = a.findFreshResponse('photo_net', 'profile/posts', 'H', 2_000)!;
    expect(got.fetchedAt).toBe(5_000);
    expect(got.envelope).toEqual(mk('new', 5_000).envelope);
    // bulk-ingested pseudo calls have no envelope and are never served
    a.ingestItems([{ platform: 'photo_net', kind: 'post', record: post({ id: 'x' }) }], {
      callId: 'bulk',
      source: 'import',
      endpoint: 'profile/posts',
      paramsHash: 'H',
      fetchedAt: 99_000,
    });
    expect(a.findFreshResponse('photo_net', 'profile/posts', 'H', 0)?.callId).toBe('new');
    a.close();
  });
});

describe('constructor', () => {
  it('Archive wraps an opened database', () => {
    const a = openArchive(':memory:');
    expect(a).toBeInstanceOf(Archive);
    a.close();
    expect(testDb(a).open).toBe(false);
  });
});
