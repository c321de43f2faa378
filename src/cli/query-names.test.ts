/**
 * Issue 24 #8 on the command line: a typo in a query flag (`--platform micro_nett`, `--kind coment`,
 * `--label intnt.label=…`, `--label intent.label=complaning`) printed "Exported 0 rows" and exited
 * 0 — a nightly job wrote empty files. Now it is exit 2 with the sentence naming it and the nearest
 * valid names, and nothing is written; a network the catalogue lists that the archive has nothing
 * of is still 0 rows, exit 0.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
  home = mkdtempSync(join(tmpdir(), 'loupe-cli-names-'));
  env = { LOUPE_HOME: home, PATH: process.env.PATH };
  const a = openArchive(archivePath(home));
  a.ingestItems([
    {
      platform: 'micro_net',
      kind: 'post',
      record: post({ id: '1', text: 'kettle broke again', labels: { intent: { label: 'complaining', confidence: 0.9 } } }),
    },
    {
      platform: 'micro_net',
      kind: 'comment',
      record: post({ id: '2', text: 'same here', kind: 'comment', labels: { sentiment: { label: 'negative', p: 0.8 } } }),
    },
  ]);
  a.close();
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('loupe export: unknown names in the query flags', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--platform', 'micro_nett'], /"micro_nett" is not a network Loupe knows\. Did you mean micro_net\? \(Networks: .*forum_net/],
    [['--kind', 'coment'], /"coment" is not a kind of item\. Did you mean comment\?/],
    [['--label', 'intnt.label=complaining'], /"intnt" is not a label family\. Did you mean intent\?/],
    [['--label', 'intent.label=complaning'], /"complaning" is not a value of intent\.label\. Did you mean complaining\?/],
    [['--label', 'intent.lable=complaining'], /"lable" is not a field of the intent labels\. Did you mean label\?/],
  ];
  for (const [flags, says] of cases) {
    it(`${flags.join(' ')}: exit 2, the sentence, no file`, async () => {
      const out = join(home, `typo-${flags[1].replace(/\W/g, '_')}.csv`);
      const r = await loupe(['export', '--format', 'csv', '--out', out, ...flags]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(says);
      expect(r.err).not.toMatch(/Exported/);
      expect(existsSync(out)).toBe(false);
    });
  }

  it('the same sentence from `loupe library` (the contract method)', async () => {
    const r = await loupe(['library', '--platform', 'micro_nett']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/"micro_nett" is not a network Loupe knows\. Did you mean micro_net\?/);
  });

  it('valid names pass: a network with nothing archived is 0 rows, exit 0', async () => {
    const none = await loupe(['export', '--format', 'csv', '--out', join(home, 'forum.csv'), '--platform', 'forum_net']);
    expect(none.code, none.err).toBe(0);
    expect(none.err).toMatch(/\b0 rows\b/);
    const some = await loupe([
      'export',
      '--format',
      'csv',
      '--out',
      join(home, 'ok.csv'),
      '--platform',
      'micro_net',
      '--kind',
      'post',
      '--label',
      'intent.label=complaining',
    ]);
    expect(some.code, some.err).toBe(0);
    expect(some.err).toMatch(/\b1 rows?\b/);
  });
});
