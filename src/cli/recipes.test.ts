/**
 * docs/export.md "Reading the files" (issue 26): every recipe on that page is run here, copied from
 * the page, against real exports of an archive with 19-digit ids, replies whose `parent_id` is digits
 * only, empty cells, `NA` / `null` as text, formula-like text and line breaks — wherever its tool is
 * installed (python3 with pandas / openpyxl / pyarrow / networkx, Rscript, DuckDB's Node API in the
 * benchmarks' peers folder). What each reads is compared with the JSONL export; network files must
 * give every `*_share` attribute one type (double) in every network. A recipe whose tool is missing
 * is skipped with the reason, or fails where `.ci/run` requires the tools (recipe-tools.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openArchive } from '../core/archive';
import { post } from '../core/archive/test-fixtures';
import { archivePath } from '../core/paths';
import { runCaptured } from './run-captured';
import { NETWORK_KINDS } from '../shared/contract-network';
import {
  duckdbEntry,
  duckdbMemory,
  hasProgram,
  missingNote,
  need,
  pythonWith,
  skipWithout,
  sqlStatements,
} from '../core/export/recipe-tools';

interface Recipe {
  lang: string;
  format: string;
  code: string;
}

/** the fenced blocks of docs/export.md marked `recipe=<format>` */
function recipes(): Recipe[] {
  const md = readFileSync(resolve('docs/export.md'), 'utf8');
  return [...md.matchAll(/```(\w+) recipe=(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], format: m[2], code: m[3] }));
}

let dir: string;
let files: Record<string, string>;
/** the JSONL export's records: what every reader must give back */
let truth: Array<{ id: string; parent_id: string | null; text: string | null }>;

// @ana only in odd items (all sponsored: a share of 1), @bob only in even ones (0), #coffee in both (0.5)
const TEXTS = ['NA', 'null', '=1+1', "'quoted", 'two\r\nlines', 'plain #coffee @ana @cy', '-5 #coffee #tea @bob @dee', 'None'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-recipes-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  const a = openArchive(archivePath(home));
  const base = 9_007_199_254_740_993n; // 2^53 + 1: a float cannot hold it
  // a flag true, false or not given (an empty cell): pandas reads that column as booleans and NaN, not text
  const flagged = (rec: Record<string, unknown>, i: number) => ({
    ...rec,
    flags: { ...(rec.flags as object), nsfw: i % 3 ? i % 3 === 1 : null },
  });
  a.ingestItems(
    Array.from({ length: 40 }, (_, i) => ({
      platform: 'photo_net',
      kind: 'post',
      record: flagged(
        post({
          id: String(base * 1000n + BigInt(i)),
          text: TEXTS[i % TEXTS.length],
          // replies: a parent id of digits only; posts: none (an empty cell)
          parent_id: i % 3 === 0 && i > 0 ? String(base * 1000n + BigInt(i - 1)) : null,
          author: { id: String(base + BigInt(i % 5)), username: `user${i % 5}`, display_name: null },
          likes: i % 4 === 0 ? null : i,
          labels: { sponsored: { p: i % 2 ? 0.9 : 0.1 }, intent: { label: i % 2 ? 'promoting' : 'other' } },
        }),
        i,
      ),
    })),
    { callId: 'seed', source: 'test' },
  );
  a.close();
  const env = { LOUPE_HOME: home, HOME: dir, LOUPE_API_KEY: '' };
  files = {};
  for (const format of ['csv', 'jsonl', 'xlsx', 'parquet']) {
    files[format] = join(dir, `export.${format}`);
    const r = await runCaptured(['export', '--format', format, '-o', files[format]], env);
    expect(r.code, r.err).toBe(0);
  }
  for (const net of NETWORK_KINDS)
    for (const format of ['gexf', 'graphml']) {
      files[`${format}:${net}`] = join(dir, `${net}.${format}`);
      const r = await runCaptured(['export', '--format', format, '--network', net, '-o', files[`${format}:${net}`]], env);
      expect(r.code, r.err).toBe(0);
    }
  truth = readFileSync(files.jsonl, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => {
      const r = (JSON.parse(l) as { record: { id: string; parent_id: string | null; content: { text: string | null } } }).record;
      return { id: r.id, parent_id: r.parent_id, text: r.content.text };
    });
}, 180_000); // 4 exports and 2 per network through the CLI: ample margin on a loaded 2-core CI
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** python printing what the frame holds, for the columns named */
const tableCheck = (id: string, parent: string, text: string): string => `
import json as _json
import pandas as _pd
_v = lambda x: None if _pd.isna(x) else (x if isinstance(x, str) else repr(x))
print(_json.dumps({"id": [_v(x) for x in df[${JSON.stringify(id)}]], "parent_id": [_v(x) for x in df[${JSON.stringify(parent)}]], "text": [_v(x) for x in df[${JSON.stringify(text)}]]}))
`;

const graphCheck = `
import json as _json
_types = {}
for _, _a in list(g.nodes(data=True)) + [(None, a) for *_, a in g.edges(data=True)]:
    for _k, _x in _a.items():
        _types.setdefault(_k, set()).add(type(_x).__name__)
print(_json.dumps({"nodes": g.number_of_nodes(), "edges": g.number_of_edges(), "types": {k: sorted(v) for k, v in _types.items()}}))
`;

function runPython(py: string, code: string): string {
  const f = join(dir, `recipe-${Math.random().toString(36).slice(2)}.py`);
  writeFileSync(f, code);
  const r = spawnSync(py, [f], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${py} ${f} failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').pop()!;
}

const all = recipes();

// a networkx recipe reads 2 files per network (16–18 s at load ~11 here): ample margin over vitest's 30 s
describe('docs/export.md recipes', { timeout: 120_000 }, () => {
  it('the page has a recipe for every file format, in pandas, R and DuckDB for the CSV', () => {
    const kinds = new Set(all.map((r) => `${r.lang}:${r.format}`));
    for (const k of [
      'python:csv',
      'python:jsonl',
      'python:xlsx',
      'python:parquet',
      'python:gexf',
      'python:graphml',
      'r:csv',
      'sql:csv',
      'sql:parquet',
    ])
      expect(kinds, k).toContain(k);
  });

  for (const r of all.filter((x) => x.lang === 'python' && ['csv', 'jsonl', 'xlsx', 'parquet'].includes(x.format))) {
    const modules = ['pandas', ...(r.format === 'xlsx' ? ['openpyxl'] : r.format === 'parquet' ? ['pyarrow'] : [])];
    const py = pythonWith(modules);
    const what = `no python3 with ${modules.join(', ')}`;
    // pyarrow: not packaged by Debian 12, so not installed by .ci/run — skipped without it even there (docs/export.md)
    const pyarrow = r.format === 'parquet';
    it.skipIf(pyarrow ? !py : skipWithout(py))(
      `pandas reads the ${r.format.toUpperCase()} export: ids exact, empty is missing, text as written${pyarrow && !py ? ` (skipped: ${what}; Debian 12 has no pyarrow)` : missingNote(py, what)}`,
      () => {
        need(py, what);
        const code = r.code.replaceAll(`"export.${r.format}"`, JSON.stringify(files[r.format]));
        const cols = r.format === 'jsonl' ? ['record.id', 'record.parent_id', 'record.content.text'] : ['id', 'parent_id', 'content.text'];
        const got = JSON.parse(runPython(py!, code + tableCheck(cols[0], cols[1], cols[2]))) as {
          id: string[];
          parent_id: Array<string | null>;
          text: Array<string | null>;
        };
        expect(got.id).toEqual(truth.map((t) => t.id));
        expect(got.parent_id).toEqual(truth.map((t) => t.parent_id));
        expect(got.text).toEqual(truth.map((t) => t.text));
      },
    );
  }

  for (const r of all.filter((x) => x.lang === 'python' && (x.format === 'gexf' || x.format === 'graphml'))) {
    const py = pythonWith(['networkx']);
    it.skipIf(skipWithout(py))(
      `networkx reads every ${r.format.toUpperCase()} network; a share is a float in every file${missingNote(py, 'no python3 with networkx')}`,
      () => {
        need(py, 'no python3 with networkx');
        const shareTypes = new Map<string, Set<string>>();
        for (const net of NETWORK_KINDS) {
          const file = files[`${r.format}:${net}`];
          const got = JSON.parse(runPython(py!, r.code.replaceAll(`"network.${r.format}"`, JSON.stringify(file)) + graphCheck)) as {
            nodes: number;
            types: Record<string, string[]>;
          };
          expect(got.nodes, net).toBeGreaterThan(0);
          for (const [k, t] of Object.entries(got.types))
            if (k.endsWith('_share')) shareTypes.set(k, new Set([...(shareTypes.get(k) ?? []), ...t]));
          // the declared type too (a reader that trusts the declaration, as Gephi does)
          const xml = readFileSync(file, 'utf8');
          for (const m of xml.matchAll(/(?:attr\.name|title)="([a-z_]+_share)"[^>]*?(?:attr\.type|type)="(\w+)"/g))
            expect(m[2], `${net} ${m[1]}`).toBe('double');
        }
        expect(shareTypes.size).toBeGreaterThan(0);
        for (const [k, t] of shareTypes) expect([...t], k).toEqual(['float']);
      },
    );
  }

  const rRecipe = all.find((x) => x.lang === 'r' && x.format === 'csv');
  const hasR = hasProgram('Rscript', ['--version']);
  it.skipIf(skipWithout(hasR))(`R reads the CSV export with base R${missingNote(hasR, 'no Rscript (Debian: r-base-core)')}`, () => {
    need(hasR, 'no Rscript (Debian: r-base-core)');
    const f = join(dir, 'recipe.R');
    // a line per row: id, parent_id and the text as UTF-8 hex (NA as <NA>), tab-separated
    const dump = `
.h <- function(x) ifelse(is.na(x), "<NA>", vapply(as.character(x), function(v) paste(charToRaw(enc2utf8(v)), collapse = ""), ""))
cat(paste(df$id, ifelse(is.na(df$parent_id), "<NA>", df$parent_id), .h(df[["content.text"]]), sep = "\\t"), sep = "\\n")
`;
    writeFileSync(f, rRecipe!.code.replaceAll('"export.csv"', JSON.stringify(files.csv)) + dump);
    const out = spawnSync('Rscript', ['--vanilla', f], { encoding: 'utf8', timeout: 60_000 });
    expect(out.status, out.stderr).toBe(0);
    // base R's read.csv reads a CR LF inside a quoted cell as LF (docs/export.md says so); all else as written
    const hex = (t: string | null) => (t === null ? '<NA>' : Buffer.from(t.replaceAll('\r\n', '\n'), 'utf8').toString('hex'));
    expect(out.stdout.trim().split('\n')).toEqual(truth.map((t) => [t.id, t.parent_id ?? '<NA>', hex(t.text)].join('\t')));
  });

  const duck = duckdbEntry();
  const noDuck = 'DuckDB is not installed in the peers folder (bench/peers.ts; .ci/run installs it)';
  for (const r of all.filter((x) => x.lang === 'sql'))
    it.skipIf(skipWithout(duck))(`DuckDB reads the ${r.format.toUpperCase()} export${missingNote(duck, noDuck)}`, async () => {
      const { c, close } = await duckdbMemory(need(duck, noDuck));
      try {
        for (const stmt of sqlStatements(r.code, `export.${r.format}`, files[r.format])) await c.runAndReadAll(stmt);
        const got = (await c.runAndReadAll('SELECT id, parent_id FROM posts')).getRows();
        expect(got).toEqual(truth.map((t) => [t.id, t.parent_id]));
      } finally {
        close();
      }
    });
});
