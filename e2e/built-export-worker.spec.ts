/**
 * The export workers as the desktop app ships them: `electron-vite build` emits
 * out/main/csv-worker.js and out/main/parquet-worker.js beside the main bundle
 * (src/core/export/csv-pool.ts looks for them there). This runs the built files in Node worker
 * threads and checks that they render rows exactly as the sources do. No browser needed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { expect, test } from '@playwright/test';
import { resolveColumns, rowCsv } from '../src/core/export/columns';
import { encodeGroup, parquetLayout } from '../src/core/export/parquet-group';
import { fromWire, toWire } from '../src/core/export/wire';
import type { ExportRow } from '../src/core/ports';

const built = join(process.cwd(), 'out', 'main', 'csv-worker.js');
const builtParquet = join(process.cwd(), 'out', 'main', 'parquet-worker.js');

test('the built csv-worker.js renders rows byte-identical to the sources', async () => {
  expect(existsSync(built), `${built} (run electron-vite build first; npm test does)`).toBe(true);
  const rows: ExportRow[] = ['=1+1', 'line\nbreak, "quoted"', 'שלום', '👍🏽'].map((text, i) => {
    const record = {
      id: String(10n ** 19n + BigInt(i)),
      content: { text, media_urls: [text] },
      engagement: { likes: i, views: null },
      computed: { labels: { intent: { label: text, confidence: 0.5 } } },
    };
    return {
      platform: 'photo_net',
      kind: 'post',
      id: record.id,
      record,
      recordJson: JSON.stringify(record),
      firstSeenAt: 0,
      lastSeenAt: 1,
      tags: [text],
      note: text,
      overrides: {},
    };
  });
  // the export workers' protocol (src/core/export/worker-config.ts): the config first, then batches
  const worker = new Worker(built);
  worker.postMessage({ config: { columns: undefined } });
  try {
    const answer = await new Promise<{ seq: number; bytes?: Uint8Array; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage({ seq: 7, rows: rows.map(toWire) });
    });
    expect(answer.error).toBeUndefined();
    expect(answer.seq).toBe(7);
    const cols = resolveColumns();
    expect(Buffer.from(answer.bytes!).toString('utf8')).toBe(rows.map((r) => rowCsv(fromWire(toWire(r)), cols)).join(''));
  } finally {
    await worker.terminate();
  }
});

test('the built parquet-worker.js encodes a row group byte-identical to the sources', async () => {
  expect(existsSync(builtParquet), `${builtParquet} (run electron-vite build first; npm test does)`).toBe(true);
  const rows: ExportRow[] = ['=1+1', 'שלום', '👍🏽', 'x'.repeat(5000)].map((text, i) => {
    const record = {
      id: String(10n ** 19n + BigInt(i)),
      published_at: '2024-05-01T12:00:00Z',
      content: { text },
      engagement: { likes: i },
      computed: { labels: { intent: { urgency: i === 1 ? 'high' : i } } },
    };
    return {
      platform: 'photo_net',
      kind: 'post',
      id: record.id,
      record,
      recordJson: JSON.stringify(record),
      firstSeenAt: 0,
      lastSeenAt: 1,
      tags: [text],
      note: null,
      overrides: {},
    };
  });
  const worker = new Worker(builtParquet);
  worker.postMessage({ config: { columns: undefined } });
  try {
    const answer = await new Promise<{ seq: number; group?: { bytes: Uint8Array; rows: number; untypedValues: number }; error?: string }>(
      (resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage({ seq: 3, rows: rows.map(toWire) });
      },
    );
    expect(answer.error).toBeUndefined();
    const here = encodeGroup(parquetLayout(), rows.map(toWire), fromWire);
    expect(answer.group).toMatchObject({ rows: 4, untypedValues: 1 });
    expect(Buffer.from(answer.group!.bytes).equals(Buffer.from(here.bytes))).toBe(true);
  } finally {
    await worker.terminate();
  }
});
