/**
 * Boolean search on the command line (issue 16): `--text` of the library query flags takes OR,
 * NOT, parentheses, "phrases" and NEAR; a malformed query is a usage error (exit 2) that says
 * what to write, and nothing is written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../core/archive';
import { post } from '../core/archive/test-fixtures';
import { archivePath } from '../core/paths';
import { runCaptured } from './run-captured';

let home: string;
let env: NodeJS.ProcessEnv;
const loupe = (args: string[]) => runCaptured(args, env);

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'loupe-cli-search-'));
  env = { LOUPE_HOME: home, PATH: process.env.PATH };
  const a = openArchive(archivePath(home));
  a.ingestItems(
    [
      post({ id: '1', text: 'Crumb cake from the corner bakery' }),
      post({ id: '2', text: 'Northpeak boots on the trail' }),
      post({ id: '3', text: 'nothing about either' }),
      post({ id: '4', text: 'Northpeak crumb bars' }),
    ].map((record) => ({ platform: 'micro_net', kind: 'post', record })),
  );
  a.close();
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const idsOf = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { id: string }).id)
    .sort();

describe('loupe export --text with boolean search', () => {
  it.each([
    ['Crumb OR Northpeak', ['1', '2', '4']],
    ['crumb NOT northpeak', ['1']],
    ['(crumb OR boots) northpeak', ['2', '4']],
    ['"crumb cake"', ['1']],
    ['northpeak NEAR/1 bars', ['4']],
  ])('%s', async (text, ids) => {
    const out = join(home, `q-${ids.join('')}.jsonl`);
    const r = await loupe(['export', '--format', 'jsonl', '--text', text, '--out', out]);
    expect(r.code, r.err).toBe(0);
    expect(idsOf(out)).toEqual(ids);
  });

  it.each([
    ['(crumb OR northpeak', 'a "(" is not closed'],
    ['crumb OR', '"OR" needs words after it'],
    ['NOT crumb', '"NOT" needs words before it'],
  ])('%s is a usage error that says what to write', async (text, msg) => {
    const out = join(home, 'bad.jsonl');
    const r = await loupe(['export', '--format', 'jsonl', '--text', text, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`--text: ${msg}`);
    expect(r.err).not.toMatch(/\n\s+at /); // a sentence, not a stack trace
    expect(existsSync(out)).toBe(false);
  });
});

describe('loupe library --search', () => {
  const ids = (out: string) =>
    out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: string }).id)
      .sort();

  it('Crumb OR Northpeak finds either word; NOT, groups, phrases and NEAR too', async () => {
    const r = await loupe(['library', '--search', 'Crumb OR Northpeak', '--jsonl']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('3 matching item(s)');
    expect(ids(r.out)).toEqual(['1', '2', '4']);
    expect(ids((await loupe(['library', '--search', 'crumb not northpeak', '--jsonl'])).out)).toEqual(['1']);
    expect(ids((await loupe(['library', '--search', '(crumb OR boots) northpeak', '--jsonl'])).out)).toEqual(['2', '4']);
    expect(ids((await loupe(['library', '--search', '"crumb cake"', '--jsonl'])).out)).toEqual(['1']);
    expect(ids((await loupe(['library', '--search', 'northpeak NEAR/1 bars', '--jsonl'])).out)).toEqual(['4']);
    // the readable form: one line per item, the count on stderr
    const table = await loupe(['library', '--search', 'northpeak', '--limit', '1']);
    expect(table.code).toBe(0);
    expect(table.err).toContain('2 matching item(s); the first 1 shown (--limit)');
    expect(table.out.trim().split('\n')).toHaveLength(1);
    expect(table.out).toMatch(/^micro_net\/post\/[24] {2}/);
  });

  it('a malformed search is a usage error naming --search, not a stack trace', async () => {
    const r = await loupe(['library', '--search', '(crumb OR northpeak']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--search: a "(" is not closed');
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.out).toBe('');
    expect((await loupe(['library', '--search', 'crumb', '--limit', '0'])).code).toBe(2);
  });
});
