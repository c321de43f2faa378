import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Graph from 'graphology';
import { parse as parseGexf } from 'graphology-gexf';
import { parse as parseGraphml } from 'graphology-graphml';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../core/archive';
import { post } from '../core/archive/test-fixtures';
import { archivePath } from '../core/paths';
import { runCaptured } from './run-captured';

let home: string;
let env: NodeJS.ProcessEnv;
const loupe = (args: string[]) => runCaptured(args, env);

const POSTS = [
  post({
    id: '1900000000000000001',
    text: 'Loving #Coffee and #tea with @Brewly',
    author: { id: '9100000000000000001', username: 'SecretAnna', display_name: 'Anna Secret' },
    likes: 5,
  }),
  post({
    id: '1900000000000000002',
    text: '#coffee #beans, ask @SecretAnna',
    author: { id: '9100000000000000002', username: 'HiddenBen', display_name: 'Ben Hidden' },
    likes: 7,
  }),
  post({
    id: '1900000000000000003',
    text: 'reply without tags',
    author: { id: '9100000000000000002', username: 'HiddenBen', display_name: 'Ben Hidden' },
    parent_id: '1900000000000000001',
  }),
];

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'loupe-cli-ex-'));
  env = { LOUPE_HOME: home, PATH: process.env.PATH };
  const a = openArchive(archivePath(home));
  a.ingestItems(POSTS.map((record) => ({ platform: 'micro_net', kind: 'post', record })));
  a.close();
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('loupe export: XLSX, Parquet, networks, pseudonymised', () => {
  it('gexf and graphml: co-hashtag counts, read back by graphology', async () => {
    for (const format of ['gexf', 'graphml']) {
      const out = join(home, `co.${format}`);
      const r = await loupe(['export', '--format', format, '--network', 'co-hashtag', '--out', out]);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(/co-hashtag network of 3 nodes and 2 edges \(from 2 of 3 items\)/);
      const text = readFileSync(out, 'utf8');
      const g = format === 'gexf' ? parseGexf(Graph, text) : parseGraphml(Graph, text);
      expect(g.order).toBe(3);
      expect(Number(g.getNodeAttribute('#coffee', 'weight'))).toBe(2);
      expect(Number(g.getEdgeAttribute(g.edge('#coffee', '#tea')!, 'weight'))).toBe(1);
    }
  });

  it('the mentions network links a reply to its parent author', async () => {
    const out = join(home, 'm.graphml');
    const r = await loupe(['export', '--format', 'graphml', '--network', 'mentions', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const g = parseGraphml(Graph, readFileSync(out, 'utf8'));
    expect(g.type).toBe('directed');
    expect(Number(g.getEdgeAttribute(g.edge('@micro_net:hiddenben', '@micro_net:secretanna')!, 'weight'))).toBe(2); // a mention and a reply
  });

  it('wrong combinations are usage errors (exit 2) and write nothing', async () => {
    const out = join(home, 'bad.gexf');
    expect((await loupe(['export', '--format', 'gexf', '--out', out])).err).toMatch(/choose one with --network/);
    expect((await loupe(['export', '--format', 'csv', '--network', 'co-hashtag', '--out', out])).code).toBe(2);
    expect((await loupe(['export', '--format', 'gexf', '--network', 'bogus', '--out', out])).code).toBe(2);
    expect(readdirSync(home).filter((f) => f.startsWith('bad'))).toEqual([]);
  });

  it('xlsx and parquet files are written; --pseudonymise leaves no handle, name or author id in any format, stable across exports', async () => {
    const secretsOut: Record<string, Buffer> = {};
    for (const format of ['csv', 'jsonl', 'xlsx', 'parquet', 'gexf', 'graphml']) {
      for (const run of [1, 2]) {
        const out = join(home, `p${run}.${format}`);
        const args = ['export', '--format', format, '--out', out, '--pseudonymise'];
        if (format === 'gexf' || format === 'graphml') args.push('--network', format === 'gexf' ? 'user-hashtag' : 'mentions');
        const r = await loupe(args);
        expect(r.code, r.err).toBe(0);
        const bytes = readFileSync(out);
        secretsOut[`${format}${run}`] = bytes;
        // the XLSX is compressed: check its inflated XML instead
        const text =
          format === 'xlsx'
            ? (await import('../core/export/xlsx-test-zip')).readZip(out).get('xl/worksheets/sheet1.xml')!.toString('utf8')
            : bytes.toString('utf8');
        for (const secret of [
          'SecretAnna',
          'secretanna',
          'HiddenBen',
          'hiddenben',
          'Anna Secret',
          'Ben Hidden',
          '9100000000000000001',
          '9100000000000000002',
        ])
          expect(text.includes(secret), `${format} contains ${secret}`).toBe(false);
      }
      if (format !== 'xlsx' && format !== 'parquet') expect(secretsOut[`${format}1`].equals(secretsOut[`${format}2`]), format).toBe(true);
    }
    const rows = await parquetReadObjects({ file: new Uint8Array(readFileSync(join(home, 'p1.parquet'))).buffer });
    expect(rows.map((x) => x.id)).toEqual(expect.arrayContaining(POSTS.map((p) => p.id)));
    expect(new Set(rows.map((x) => x['author.username']))).toEqual(
      new Set([expect.stringMatching(/^u_[0-9a-f]{16}$/), expect.stringMatching(/^u_[0-9a-f]{16}$/)]),
    );
    expect(readdirSync(home)).not.toContain(expect.stringMatching(/partial/));
  });
});
