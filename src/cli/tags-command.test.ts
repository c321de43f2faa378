/**
 * `loupe tags …` (issue 27 #7): list, rename, merge, delete and colour through the contract's
 * `tags.*` methods; a merge or delete says how many items it touches and, without a terminal,
 * changes nothing unless --yes (exit 5); unknown tags and taken names are usage errors (exit 2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openArchive } from '../core/archive';
import { post } from '../core/archive/test-fixtures';
import { runCaptured } from './run-captured';

let h: string;
const ref = (id: string) => ({ platform: 'photo_net', kind: 'post', id });
beforeAll(() => {
  h = mkdtempSync(join(tmpdir(), 'loupe-cli-tags-'));
  let now = 1_000;
  const a = openArchive(join(h, 'loupe.db'), { clock: () => (now += 1_000), author: () => 'ana' });
  a.ingestItems(
    ['1', '2', '3'].map((id) => ({ platform: 'photo_net', kind: 'post', record: post({ id }) })),
    { callId: 'seed', source: 'seed' },
  );
  a.addTag(ref('1'), 'lead');
  a.addTag(ref('2'), 'lead');
  a.addTag(ref('2'), 'Hot');
  a.addTag(ref('3'), 'hot-ish');
  a.setNote(ref('2'), 'call back');
  a.close();
});
afterAll(() => rmSync(h, { recursive: true, force: true }));

const env = () => ({ LOUPE_HOME: h });
const tagsNow = () => {
  const a = openArchive(join(h, 'loupe.db'));
  try {
    return a.tags.list().map((t) => `${t.tag}:${t.count}:${t.color ?? '-'}`);
  } finally {
    a.close();
  }
};

describe('loupe tags', () => {
  it('lists, renames, colours, merges and deletes; asks before a merge or delete', async () => {
    const list = await runCaptured(['tags', 'list', '--json'], env());
    expect(list.code, list.err).toBe(0);
    expect(
      list.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { tag: string; count: number }),
    ).toMatchObject([
      { tag: 'Hot', count: 1 },
      { tag: 'hot-ish', count: 1 },
      { tag: 'lead', count: 2 },
    ]);

    const ren = await runCaptured(['tags', 'rename', 'LEAD', 'prospect'], env());
    expect(ren.code, ren.err).toBe(0);
    expect(ren.err).toContain('Renamed “LEAD” to “prospect” on 2 items.');
    const taken = await runCaptured(['tags', 'rename', 'prospect', 'hot'], env());
    expect(taken.code).toBe(2);
    expect(taken.err).toContain('“Hot” exists already: merge “prospect” into it instead');

    expect((await runCaptured(['tags', 'colour', 'hot', 'Gray'], env())).err).toContain('“Hot” is grey.');
    const badColour = await runCaptured(['tags', 'color', 'hot', 'mauve'], env());
    expect(badColour.code).toBe(2);
    expect(badColour.err).toContain('one of red, orange');

    // no terminal, no --yes: the count, then nothing changed (exit 5)
    const refused = await runCaptured(['tags', 'merge', 'hot-ish', 'prospect', '--into', 'hot'], env());
    expect(refused.code).toBe(5);
    expect(refused.err).toContain('Merging “hot-ish”, “prospect” into “Hot” touches 3 items (1 item already carries “Hot”).');
    expect(tagsNow()).toEqual(['Hot:1:grey', 'hot-ish:1:-', 'prospect:2:-']);

    const merged = await runCaptured(['tags', 'merge', 'hot-ish', 'prospect', '--into', 'hot', '--yes', '--json'], env());
    expect(merged.code, merged.err).toBe(0);
    expect(JSON.parse(merged.out)).toEqual({ tag: 'Hot', items: 3, alreadyTagged: 1, savedSets: 0, dryRun: false });
    expect(tagsNow()).toEqual(['Hot:3:grey']);

    const missing = await runCaptured(['tags', 'delete', 'nope', '--yes'], env());
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('There is no tag “nope”');
    const del = await runCaptured(['tags', 'delete', 'HOT', '--yes'], env());
    expect(del.code, del.err).toBe(0);
    expect(del.err).toContain('Deleting “Hot” removes it from 3 items.');
    expect(tagsNow()).toEqual([]);
    const a = openArchive(join(h, 'loupe.db'));
    expect(a.getItem('photo_net', 'post', '2')!.note).toBe('call back'); // what the deletion did not name stays
    a.close();
  });
});
