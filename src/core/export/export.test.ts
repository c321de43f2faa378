import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { stringify } from 'csv-stringify/sync';
import { CSV_COLUMNS, csvRecord, exportRows, flattenForCsv, LABEL_FIELDS, unneutraliseCell } from './index';
import { workerEntry } from './csv-pool';
import { resolveColumns, rowCells, rowCsv } from './columns';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loupe-export-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const BIG_ID = '1234567890123456789'; // > 2^53: would become 1234567890123456800 as a number
const BIG_ID_2 = '9007199254740993'; // 2^53 + 1

function post(id: string, over: Partial<Record<string, unknown>> = {}, ann: Partial<ExportRow> = {}): ExportRow {
  const record: Record<string, unknown> = {
    id,
    url: `https://example.test/p/${id}`,
    kind: 'short',
    parent_id: null,
    content: {
      text: 'hello',
      media_urls: ['https://m.test/1.jpg', 'https://m.test/2, "x".jpg'],
      thumbnail_url: null,
      duration_seconds: 12.5,
    },
    author: { id: BIG_ID_2, username: 'alice', display_name: 'Alice', avatar_url: null, verified: true, followers: 1200 },
    engagement: { views: 10, likes: 0, comments: null, shares: 3, saves: null },
    flags: {
      nsfw: false,
      spoiler: null,
      pinned: false,
      likes_hidden: null,
      comments_hidden: null,
      shares_hidden: null,
      views_hidden: null,
      saves_hidden: null,
      deleted: false,
    },
    published_at: '2024-05-01T10:00:00Z',
    language: 'en',
    ext: { coauthors: [{ id: '1', username: 'bob' }], music_id: '777' },
    computed: {
      labels: {
        sponsored: { p: 0.12, disclosed: false, undisclosed: false, brand: null },
        intent: { label: 'asking_for_recommendation', confidence: 0.8, buyer: true, seller: false, urgency: 2, fits_offer: null },
      },
      relevance: { p: 0.93, sense: 'brand', depth: 2, spam: 0.01 },
    },
    ...over,
  };
  return {
    platform: 'photo_net',
    kind: 'post',
    id,
    record,
    firstSeenAt: Date.UTC(2024, 4, 2, 8, 0, 0),
    lastSeenAt: Date.UTC(2024, 4, 3, 9, 30, 0),
    tags: ['lead', 'to | check'],
    note: null,
    overrides: {},
    ...ann,
  };
}

const HOSTILE_TEXTS = [
  '=HYPERLINK("http://evil.test","click")',
  '+1+2',
  '-2+3',
  '@SUM(A1:A2)',
  '\t=1+1',
  '\r=1+1',
  "'already quoted",
  'line one\nline two\r\nline three',
  'she said "hi", then left, twice',
  'مرحبا بالعالم ، هذا اختبار',
  'שלום עולם, "בדיקה"',
  'family 👨‍👩‍👧‍👦 and flag 🏳️‍🌈 and skin 👍🏽',
  '',
  ' leading space',
];

function parseCsv(text: string): string[][] {
  return parse(text, { bom: true, relax_column_count: false }) as string[][];
}

describe('CSV export', () => {
  it('round-trips hostile text through a real CSV parser, altered only by the documented neutralisation', async () => {
    const rows = HOSTILE_TEXTS.map((t, i) =>
      post(
        i === 0 ? BIG_ID : String(BigInt(BIG_ID) + BigInt(i)),
        { content: { text: t, media_urls: null, thumbnail_url: null, duration_seconds: null } },
        { note: t, tags: [t] },
      ),
    );
    const out = join(dir, 'x.csv');
    const res = await exportRows(rows, { format: 'csv', out });
    expect(res.rows).toBe(rows.length);
    const buf = await readFile(out);
    expect(res.bytes).toBe(buf.length);
    const table = parseCsv(buf.toString('utf8'));
    expect(table[0]).toEqual([...CSV_COLUMNS]);
    expect(table).toHaveLength(rows.length + 1);
    const col = (name: string): number => CSV_COLUMNS.indexOf(name);
    table.slice(1).forEach((cells, i) => {
      const t = HOSTILE_TEXTS[i];
      const text = cells[col('content.text')];
      const first = t[0];
      if (t.length > 0 && ['=', '+', '-', '@', '\t', '\r', "'"].includes(first)) {
        expect(text).toBe("'" + t); // neutralised: a single quote in front
      } else {
        expect(text).toBe(t); // everything else byte-identical (RTL, emoji ZWJ, newlines, quotes, commas)
      }
      expect(unneutraliseCell(text)).toBe(t);
      expect(unneutraliseCell(cells[col('note')])).toBe(t);
      expect(JSON.parse(cells[col('tags')])).toEqual([t]);
      // ids survive as exact text
      expect(cells[col('id')]).toBe(rows[i].id);
      expect(cells[col('author.id')]).toBe(BIG_ID_2);
    });
    expect(table[1][col('id')]).toBe(BIG_ID);
  });

  it('no cell of the file starts with a formula character', async () => {
    const evil = '=cmd|"/C calc"!A0';
    const row = post(
      '-1',
      {
        url: '+url',
        language: '@en',
        published_at: '-2024',
        author: { id: '=1', username: '\tuser', display_name: '\rname', avatar_url: null, verified: null, followers: null },
        ext: { x: evil },
      },
      { note: evil, tags: ['=a'] },
    );
    const out = join(dir, 'e.csv');
    await exportRows([row], { format: 'csv', out });
    const [, cells] = parseCsv(await readFile(out, 'utf8'));
    for (const c of cells) expect(/^[=+\-@\t\r]/.test(c)).toBe(false);
    const flat = flattenForCsv(row);
    expect(flat['id']).toBe("'-1");
    expect(flat['author.username']).toBe("'\tuser");
    expect(flat['note']).toBe("'" + evil);
  });

  it('writes the documented cell formats: empty for null, true/false, exact numbers, JSON arrays, ISO times', async () => {
    const row = post(BIG_ID, {
      engagement: { views: 1e21, likes: 0, comments: null, shares: 123456789012, saves: null },
      content: { text: null, media_urls: ['a', 'b | c'], thumbnail_url: null, duration_seconds: 0.0000001 },
    });
    const f = flattenForCsv(row);
    expect(Object.keys(f)).toEqual([...CSV_COLUMNS]);
    expect(f['engagement.views']).toBe('1000000000000000000000');
    expect(f['engagement.likes']).toBe('0');
    expect(f['engagement.comments']).toBe('');
    expect(f['engagement.shares']).toBe('123456789012');
    expect(f['content.duration_seconds']).toBe('0.0000001');
    expect(f['content.text']).toBe('');
    expect(JSON.parse(f['content.media_urls'])).toEqual(['a', 'b | c']);
    expect(f['author.verified']).toBe('true');
    expect(f['flags.nsfw']).toBe('false');
    expect(f['flags.spoiler']).toBe('');
    expect(f['post_kind']).toBe('short');
    expect(f['labels.intent.label']).toBe('asking_for_recommendation');
    expect(f['labels.sponsored.p']).toBe('0.12');
    expect(f['labels.sponsored.brand']).toBe('');
    expect(f['relevance.p']).toBe('0.93');
    expect(JSON.parse(f['coauthors'])).toEqual([{ id: '1', username: 'bob' }]);
    expect(JSON.parse(f['ext'])).toEqual({ coauthors: [{ id: '1', username: 'bob' }], music_id: '777' });
    expect(f['first_seen_at']).toBe('2024-05-02T08:00:00.000Z');
    expect(f['overrides']).toBe('');
    expect(f['extra']).toBe(''); // every field of this post has a column
  });

  it('keeps what no column shows in `extra` (unknown label fields, evidence, non-post records)', () => {
    const p = post('5', {
      computed: {
        labels: { sentiment: { label: 'positive', p: 0.9, score: 0.8, novel: 1 } },
        labels_evidence: { sentiment: { quote: 'great', sentence_index: 0 } },
        relevance: null,
      },
    });
    const f = flattenForCsv(p);
    expect(f['labels.sentiment.p']).toBe('0.9');
    expect(JSON.parse(f['extra'])).toEqual({
      computed: {
        labels: { sentiment: { novel: 1 } },
        labels_evidence: { sentiment: { quote: 'great', sentence_index: 0 } },
        relevance: null,
      },
    });
    const profile: ExportRow = { ...post('6'), kind: 'profile', record: { id: '6', username: 'zed', followers: 5 } };
    const g = flattenForCsv(profile);
    expect(g['kind']).toBe('profile');
    expect(JSON.parse(g['extra'])).toEqual({ username: 'zed', followers: 5 });
  });

  it('has a column for every label family field and identical headers across exports of different rows', async () => {
    for (const [family, fields] of Object.entries(LABEL_FIELDS))
      for (const f of fields) expect(CSV_COLUMNS).toContain(`labels.${family}.${f}`);
    for (const fam of [
      'sponsored',
      'intent',
      'niche',
      'mention',
      'quality',
      'injection',
      'sentiment',
      'spam',
      'question',
      'purchase_intent',
      'complaint',
      'toxic',
      'low_quality',
    ])
      expect(CSV_COLUMNS.some((c) => c.startsWith(`labels.${fam}.`))).toBe(true);

    const a = join(dir, 'a.csv');
    const b = join(dir, 'b.csv');
    await exportRows([post('1')], { format: 'csv', out: a });
    const bare: ExportRow = {
      platform: 'forum_net',
      kind: 'post',
      id: '2',
      record: { id: '2' },
      firstSeenAt: 0,
      lastSeenAt: 0,
      tags: [],
      note: 'n',
      overrides: { intent: { label: 'other' } },
    };
    await exportRows([bare], { format: 'csv', out: b });
    const ha = parseCsv(await readFile(a, 'utf8'));
    const hb = parseCsv(await readFile(b, 'utf8'));
    expect(ha[0]).toEqual(hb[0]);
    expect(ha[1]).toHaveLength(CSV_COLUMNS.length);
    expect(hb[1]).toHaveLength(CSV_COLUMNS.length);
    expect(JSON.parse(hb[1][CSV_COLUMNS.indexOf('overrides')])).toEqual({ intent: { label: 'other' } });
  });

  it('writes a BOM by default and none with bom:false; honours a column subset', async () => {
    const on = join(dir, 'on.csv');
    const off = join(dir, 'off.csv');
    await exportRows([post('1')], { format: 'csv', out: on });
    await exportRows([post('1')], { format: 'csv', out: off, bom: false, columns: ['id', 'content.text', 'platform'] });
    const bOn = await readFile(on);
    const bOff = await readFile(off);
    expect([...bOn.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bOff[0]).not.toBe(0xef);
    expect(bOff.toString('utf8')).toBe('"id","content.text","platform"\r\n"1","hello","photo_net"\r\n');
    await expect(exportRows([post('1')], { format: 'csv', out: off, columns: ['nope'] })).rejects.toThrow(/unknown CSV column/);
  });
});

describe('JSON and JSONL export', () => {
  const [JUNE, JULY, iso] = [Date.UTC(2024, 5, 1), Date.UTC(2024, 6, 1), (t: number) => new Date(t).toISOString()];
  const rows = [
    post(
      BIG_ID,
      { content: { text: HOSTILE_TEXTS.join('\u2028'), media_urls: [], thumbnail_url: null, duration_seconds: null } },
      { note: '=x', tags: ['a'], overrides: { intent: { label: 'other' } }, checkedAt: JULY, missingSince: JUNE },
    ),
    post(BIG_ID_2, {}, { checkedAt: JULY + 3_723_004, missingSince: null }),
  ];
  const envelope = (r: ExportRow): unknown => ({
    ...{ platform: r.platform, kind: r.kind, id: r.id, record: r.record, tags: r.tags, note: r.note, overrides: r.overrides },
    ...{ first_seen_at: iso(r.firstSeenAt), last_seen_at: iso(r.lastSeenAt) },
    ...{ checked_at: r.checkedAt ? iso(r.checkedAt) : null, missing_since: r.missingSince ? iso(r.missingSince) : null },
  });

  it('JSON: one array of envelopes, records unaltered, big ids as strings', async () => {
    const out = join(dir, 'x.json');
    const res = await exportRows(rows, { format: 'json', out });
    const text = await readFile(out, 'utf8');
    expect(res.bytes).toBe(Buffer.byteLength(text));
    const parsed = JSON.parse(text) as Array<{ id: string; record: { id: string } }>;
    expect(parsed).toEqual(rows.map(envelope));
    expect(parsed[0].id).toBe(BIG_ID);
    expect(text).toContain(`"id":"${BIG_ID}"`);
  });

  it('JSON: an empty export is a valid empty array', async () => {
    const out = join(dir, 'empty.json');
    expect((await exportRows([], { format: 'json', out })).rows).toBe(0);
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual([]);
  });

  it('JSONL: one envelope per line, exact round trip', async () => {
    const out = join(dir, 'x.jsonl');
    async function* gen(): AsyncIterable<ExportRow> {
      for (const r of rows) yield r;
    }
    const res = await exportRows(gen(), { format: 'jsonl', out });
    expect(res.rows).toBe(2);
    const lines = (await readFile(out, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l))).toEqual(rows.map(envelope));
  });
});

describe('streaming, progress, cancel, atomic rename', () => {
  function* many(n: number): Iterable<ExportRow> {
    for (let i = 0; i < n; i++) yield post(String(10n ** 18n + BigInt(i)));
  }

  it('reports progress and ends with the total', async () => {
    const seen: number[] = [];
    const res = await exportRows(many(5000), { format: 'jsonl', out: join(dir, 'p.jsonl'), onProgress: (n) => seen.push(n), total: 5000 });
    expect(res.rows).toBe(5000);
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.at(-1)).toBe(5000);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
  });

  it('cancel mid-way leaves no file and keeps an existing file at the final name untouched', async () => {
    for (const format of ['csv', 'json', 'jsonl'] as const) {
      const out = join(dir, `c.${format}`);
      await writeFile(out, 'previous export');
      const ac = new AbortController();
      const p = exportRows(many(200_000), {
        format,
        out,
        signal: ac.signal,
        onProgress: (n) => {
          if (n >= 3000) ac.abort();
        },
      });
      await expect(p).rejects.toMatchObject({ name: 'AbortError' });
      expect(await readFile(out, 'utf8')).toBe('previous export');
      expect(await readdir(dir)).toEqual([`c.${format}`]);
      await rm(out);
    }
  });

  it('a failing row source leaves no file', async () => {
    function* broken(): Iterable<ExportRow> {
      yield post('1');
      throw new Error('db gone');
    }
    await expect(exportRows(broken(), { format: 'csv', out: join(dir, 'b.csv') })).rejects.toThrow('db gone');
    expect(await readdir(dir)).toEqual([]);
  });

  it('cancel interrupts a slow async source that is waiting for its next row', async () => {
    const ac = new AbortController();
    async function* slow(): AsyncIterable<ExportRow> {
      yield post('1');
      await new Promise(() => undefined); // never produces the next row
    }
    const p = exportRows(slow(), { format: 'jsonl', out: join(dir, 's.jsonl'), signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('a destination that cannot be written fails cleanly', async () => {
    await expect(exportRows([post('1')], { format: 'csv', out: join(dir, 'missing', 'x.csv') })).rejects.toThrow();
    // final name taken by a directory: the rename fails, the temp file is removed
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'taken.csv'));
    await expect(exportRows([post('1')], { format: 'csv', out: join(dir, 'taken.csv') })).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['taken.csv']);
    expect(await readdir(join(dir, 'taken.csv'))).toEqual([]);
  });

  it('an already-aborted signal writes nothing', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(exportRows([post('1')], { format: 'csv', out: join(dir, 'a.csv'), signal: ac.signal })).rejects.toThrow();
    expect(await readdir(dir)).toEqual([]);
  });

  it('replaces an existing file only on success', async () => {
    const out = join(dir, 'r.jsonl');
    await writeFile(out, 'old');
    await exportRows([post('1')], { format: 'jsonl', out });
    expect(JSON.parse((await readFile(out, 'utf8')).trim()).id).toBe('1');
    expect(await readdir(dir)).toEqual(['r.jsonl']);
  });

  it('keeps memory flat while streaming many rows through backpressure, on one thread and with workers', async () => {
    // live memory, not garbage: a full collection before each sample (V8's gc() made callable here)
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const n = 100_000;
    const used = (): number => {
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.external; // external: Buffers queued in the file stream
    };
    for (const threads of [0, 1]) {
      const before = used();
      let peak = before;
      const res = await exportRows(many(n), {
        format: 'csv',
        out: join(dir, `big-${threads}.csv`),
        threads,
        total: n,
        onProgress: (k) => {
          if (k % 10_000 < 500) peak = Math.max(peak, used());
        },
      });
      expect(res.rows).toBe(n);
      // the file is ~63 MB; holding it (or the rows) in memory would show here (without
      // backpressure the queued chunks alone pass 90 MB); what stays live is a few chunks
      expect(res.bytes).toBeGreaterThan(55 * 1024 * 1024);
      expect(peak - before, `threads: ${threads}`).toBeLessThan(24 * 1024 * 1024);
    }
  }, 300_000); // 2 × 63 MB with a full collection per sample: slow on a loaded machine, never timed
});

describe('CSV writer and worker threads', () => {
  it('writes records byte-identical to csv-stringify (quote every non-empty cell, double quotes, CRLF)', () => {
    const cells = [...HOSTILE_TEXTS, '"', '""', 'a,b', '\n', ' ', '0', "'=x"];
    const lib = stringify([cells], {
      delimiter: ',',
      record_delimiter: 'windows',
      quote: '"',
      escape: '"',
      quoted: true,
      quoted_empty: false,
    });
    expect(csvRecord(cells)).toBe(lib);
  });

  it('the compiled row renderer writes what the per-cell getters give, for odd-shaped records too', () => {
    const odd: ExportRow[] = [
      post('1'),
      { ...post('2'), record: null as unknown as Record<string, unknown> },
      post('3', { computed: { labels: null, relevance: 'n/a' } }),
      post('4', { computed: [1, 2], author: ['x'], ext: [{ coauthors: 1 }] }),
      post('5', { computed: { labels: { intent: 'complaining', sponsored: { p: 1e-7, brand: '=cmd' } } } }),
      post('6', { author: { id: BIG_ID, followers: 1e21, bio: '@me\n"hi"' }, engagement: 42 }),
      { ...post('7'), overrides: { intent: { label: '+x' } }, tags: ['-a', '"b"'], note: '\r=1', firstSeenAt: NaN },
    ];
    for (const cols of [undefined, ['extra', 'labels.sponsored.p', 'id', 'author.followers']]) {
      const defs = resolveColumns(cols);
      for (const row of odd) expect(rowCsv(row, defs)).toBe(csvRecord(rowCells(row, defs)));
    }
    const f3 = flattenForCsv(odd[2]);
    expect(f3['labels.intent.label']).toBe('');
    expect(JSON.parse(f3['extra'])).toEqual({ computed: { labels: null, relevance: 'n/a' } });
    const f5 = flattenForCsv(odd[4]);
    expect([f5['labels.intent.label'], f5['labels.sponsored.p'], f5['labels.sponsored.brand']]).toEqual(['', '0.0000001', "'=cmd"]);
    expect(flattenForCsv(odd[5])['author.followers']).toBe('1000000000000000000000');
    expect(flattenForCsv(odd[1])['extra']).toBe('');
  });

  /** hostile rows, half of them carrying their record as JSON text as the archive's rows do */
  function* hostile(n: number): Iterable<ExportRow> {
    for (let i = 0; i < n; i++) {
      const text = HOSTILE_TEXTS[i % HOSTILE_TEXTS.length];
      const row = post(
        String(10n ** 18n + BigInt(i)),
        { content: { text, media_urls: [text], thumbnail_url: null, duration_seconds: i / 7 } },
        {
          note: i % 3 === 0 ? text : null,
          tags: i % 5 === 0 ? [text] : [],
          overrides: i % 7 === 0 ? { intent: { label: text } } : {},
        },
      );
      yield i % 2 === 0 ? { ...row, recordJson: JSON.stringify(row.record) } : row;
    }
  }

  it('a large export rendered by worker threads is byte-identical to one rendered on one thread', async () => {
    expect(workerEntry(), 'the worker can start from the sources').not.toBeNull();
    const one = join(dir, 'one.csv');
    const par = join(dir, 'par.csv');
    const seen: number[] = [];
    await exportRows(hostile(6000), { format: 'csv', out: one, threads: 0 });
    const res = await exportRows(hostile(6000), {
      format: 'csv',
      out: par,
      threads: 2,
      parallelAfter: 1000,
      onProgress: (n) => seen.push(n),
    });
    expect(res.rows).toBe(6000);
    expect((await readFile(par)).equals(await readFile(one))).toBe(true);
    expect(seen.at(-1)).toBe(6000);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]);
    const rows = parseCsv(await readFile(par, 'utf8'));
    expect(rows.length).toBe(6001);
    expect(rows.slice(1).map((r) => r[2])).toEqual([...hostile(6000)].map((r) => r.id));
  });

  it('honours a column subset in the workers too', async () => {
    const columns = ['id', 'content.text', 'labels.intent.label', 'note'];
    await exportRows(hostile(3000), { format: 'csv', out: join(dir, 'a.csv'), columns, threads: 0 });
    await exportRows(hostile(3000), { format: 'csv', out: join(dir, 'b.csv'), columns, threads: 2, parallelAfter: 0 });
    expect((await readFile(join(dir, 'b.csv'))).equals(await readFile(join(dir, 'a.csv')))).toBe(true);
  });

  it('cancel while workers render leaves no file and closes the source', async () => {
    let closed = false;
    function* source(): Iterable<ExportRow> {
      try {
        yield* hostile(200_000);
      } finally {
        closed = true;
      }
    }
    const ac = new AbortController();
    const out = join(dir, 'c.csv');
    const p = exportRows(source(), {
      format: 'csv',
      out,
      signal: ac.signal,
      threads: 2,
      parallelAfter: 100,
      onProgress: (n) => {
        if (n >= 5000) ac.abort();
      },
    });
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(closed).toBe(true);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a row the workers cannot read fails the export with a clear error and leaves no file', async () => {
    function* bad(): Iterable<ExportRow> {
      yield* hostile(2000);
      yield { ...post('9'), recordJson: '{"id": "9", broken' };
    }
    await expect(exportRows(bad(), { format: 'csv', out: join(dir, 'x.csv'), threads: 2, parallelAfter: 10 })).rejects.toThrow(
      /export worker: .*JSON/,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('JSON and JSONL of rows carrying their record as JSON text are byte-identical to serialising the record', async () => {
    const plain = (): Iterable<ExportRow> => [...hostile(300)].map(({ recordJson: _drop, ...r }) => r);
    const withText = (): Iterable<ExportRow> => [...plain()].map((r) => ({ ...r, recordJson: JSON.stringify(r.record) }));
    for (const format of ['json', 'jsonl'] as const) {
      await exportRows(plain(), { format, out: join(dir, `a.${format}`) });
      await exportRows(withText(), { format, out: join(dir, `b.${format}`) });
      expect((await readFile(join(dir, `b.${format}`))).equals(await readFile(join(dir, `a.${format}`))), format).toBe(true);
    }
    const back = JSON.parse(await readFile(join(dir, 'b.json'), 'utf8')) as Array<{
      id: string;
      record: { id: string };
      note: string | null;
    }>;
    expect(back.map((e) => e.id)).toEqual([...plain()].map((r) => r.id));
    expect(back[3].note).toBe(HOSTILE_TEXTS[3]);
  });
});
