/**
 * docs/export.md "Reading the files" (issue 26): every recipe on that page is run here, copied from
 * the page, against real exports of an archive with 19-digit ids, replies whose `parent_id` is digits
 * only, empty cells, `NA` / `null` as text, formula-like text and line breaks — wherever its tool is
 * installed (python3 with pandas / openpyxl / pyarrow / networkx, Rscript, duckdb). What each reads
 * is compared with the JSONL export; network files must give every `*_share` attribute one type
 * (double) in every network. A recipe whose tool is missing is skipped, with the reason.
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

const has = (cmd: string, args: string[]): boolean => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
/** a python that can import every module named (the PATH's python3, else Debian's) */
function pythonWith(modules: string[]): string | null {
  for (const py of ['python3', '/usr/bin/python3']) if (has(py, ['-c', modules.map((m) => `import ${m}`).join(';') || 'pass'])) return py;
  return null;
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
  a.ingestItems(
    Array.from({ length: 40 }, (_, i) => ({
      platform: 'photo_net',
      kind: 'post',
      record: post({
        id: String(base * 1000n + BigInt(i)),
        text: TEXTS[i % TEXTS.length],
        // replies: a parent id of digits only; posts: none (an empty cell)
        parent_id: i % 3 === 0 && i > 0 ? String(base * 1000n + BigInt(i - 1)) : null,
        author: { id: String(base + BigInt(i % 5)), username: `user${i % 5}`, display_name: null },
        likes: i % 4 === 0 ? null : i,
        labels: { sponsored: { p: i % 2 ? 0.9 : 0.1 }, intent: { label: i % 2 ? 'promoting' : 'other' } },
      }),
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
});
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

describe('docs/export.md recipes', () => {
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
    it.skipIf(!py)(
      `pandas reads the ${r.format.toUpperCase()} export: ids exact, empty is missing, text as written${py ? '' : ` (skipped: no python3 with ${modules.join(', ')})`}`,
      () => {
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
    it.skipIf(!py)(
      `networkx reads every ${r.format.toUpperCase()} network; a share is a float in every file${py ? '' : ' (skipped: no python3 with networkx)'}`,
      () => {
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
  const hasR = has('Rscript', ['--version']);
  it.skipIf(!hasR)(`R reads the CSV export${hasR ? '' : ' (skipped: no Rscript)'}`, () => {
    const f = join(dir, 'recipe.R');
    writeFileSync(f, rRecipe!.code.replaceAll('"export.csv"', JSON.stringify(files.csv)) + '\ncat(df$id, sep = "\\n")\n');
    const out = spawnSync('Rscript', [f], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.trim().split('\n')).toEqual(truth.map((t) => t.id));
  });

  const hasDuck = has('duckdb', ['-version']);
  for (const r of all.filter((x) => x.lang === 'sql'))
    it.skipIf(!hasDuck)(`DuckDB reads the ${r.format.toUpperCase()} export${hasDuck ? '' : ' (skipped: no duckdb)'}`, () => {
      const sql =
        r.code.replaceAll(`'export.${r.format}'`, `'${files[r.format]}'`) +
        "\nCOPY (SELECT id FROM posts) TO '/dev/stdout' (HEADER false);\n";
      const out = spawnSync('duckdb', ['-c', sql], { encoding: 'utf8' });
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout.trim().split('\n')).toEqual(truth.map((t) => t.id));
    });
});
