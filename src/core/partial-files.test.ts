/** What a killed export leaves beside its file is removed by the next export to that name (partial-files.ts). */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from './archive';
import { listResponse, post } from './archive/test-fixtures';
import { companionsOf, exportAny } from './export';
import { freshPartial, freshTempDir, HOST_TAG, partialPath, sweepPartials } from './partial-files';

const root = mkdtempSync(join(tmpdir(), 'loupe-partials-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** the pid of a process that has ended (as `kill -9` leaves one) */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}
const hex = (n: number) => n.toString(16).padStart(12, '0');
const H = HOST_TAG;
/** another machine's tag (a shared folder; another container on a shared volume) */
const OTHER = HOST_TAG === '00000000' ? '11111111' : '00000000';

describe('partial files', () => {
  it('a dead process’s files, folders and staged files’ partials for the name go; a live one’s, other names’ and the file itself stay', () => {
    const dir = mkdtempSync(join(root, 'sweep-'));
    const dead = deadPid();
    const live = process.ppid; // alive while this test runs
    const gone = [
      `.items.csv.${H}-${dead}-${hex(1)}.partial`,
      `.items.csv.${H}-${dead}-${hex(2)}.staged`,
      `..items.csv.${H}-${dead}-${hex(2)}.staged.${H}-${dead}-${hex(3)}.partial`,
      `.items.csv.${H}-${dead}-${hex(4)}.parts`,
    ];
    const kept = [
      'items.csv',
      `.items.csv.${H}-${live}-${hex(5)}.partial`,
      `.items.csv.${H}-${process.pid}-${hex(6)}.partial`,
      `.items.history.csv.${H}-${dead}-${hex(7)}.staged`, // another name: its own export sweeps it
      `.items.csv.${H}-${dead}-notours.partial`,
      `.items.csv.${OTHER}-${dead}-${hex(9)}.partial`, // another machine's: its process ids are not this one's to check
      `.items.csv.${dead}-${hex(10)}.partial`, // a name without the machine's tag (written before it): left
      `.items.csv.${hex(8)}.partial`, // the old names, without a process id: whose they are is not known
    ];
    for (const n of [...gone, ...kept]) {
      if (n.endsWith('.parts')) {
        mkdirSync(join(dir, n));
        writeFileSync(join(dir, n, 'items.jsonl'), 'x');
      } else writeFileSync(join(dir, n), 'x');
    }
    expect(sweepPartials(join(dir, 'items.csv')).sort()).toEqual([...gone].sort());
    expect(readdirSync(dir).sort()).toEqual([...kept].sort());
    const p = freshPartial(join(dir, 'items.csv'));
    expect(p).toMatch(new RegExp(`/\\.items\\.csv\\.${H}-${process.pid}-[0-9a-f]{12}\\.partial$`));
    expect(partialPath(join(dir, 'b'), 'parts')).toMatch(new RegExp(`/\\.b\\.${H}-\\d+-[0-9a-f]{12}\\.parts$`));
    expect(sweepPartials(join(root, 'no-such-folder', 'x.csv'))).toEqual([]);
  });

  // before: a reader killed in a read-only data folder left its loupe-readonly-XXXXXX copy of the whole archive in the temp folder
  it('a read-only folder’s temporary copy: the next one removes a dead process’s, a live one’s and another machine’s stay', () => {
    const tmp = mkdtempSync(join(root, 'tmpdir-'));
    const dead = deadPid();
    const gone = `loupe-readonly-${H}-${dead}-aB3dE9`;
    const kept = [`loupe-readonly-${H}-${process.ppid}-Zz0011`, `loupe-readonly-${OTHER}-${dead}-aB3dE9`, 'loupe-readonly-Q1w2E3', 'other'];
    for (const n of [gone, ...kept]) {
      mkdirSync(join(tmp, n));
      writeFileSync(join(tmp, n, 'loupe.db'), 'a copy of the archive');
    }
    const made = freshTempDir(tmp, 'loupe-readonly');
    expect(made).toMatch(new RegExp(`/loupe-readonly-${H}-${process.pid}-[A-Za-z0-9]{6}$`));
    expect(readdirSync(tmp).sort()).toEqual([...kept, made.slice(tmp.length + 1)].sort());
  });

  // before: a kill -9 mid-export left `.items.csv.<random>.partial` (124 MB of a 200k-item CSV) for good
  for (const format of ['csv', 'jsonl', 'parquet', 'xlsx'] as const)
    it(`${format}: the next export to the name removes what a killed one left`, async () => {
      const dir = mkdtempSync(join(root, `${format}-`));
      const dead = deadPid();
      const left = [
        `.items.${format}.${H}-${dead}-${hex(1)}.partial`,
        `.items.${format}.${H}-${dead}-${hex(2)}.staged`,
        `..items.${format}.${H}-${dead}-${hex(2)}.staged.${H}-${dead}-${hex(3)}.partial`,
        ...(format === 'xlsx' ? [] : [`.items.history.${format}.${H}-${dead}-${hex(4)}.staged`]), // XLSX holds its history as a sheet
      ];
      for (const n of left) writeFileSync(join(dir, n), 'half an export');
      const a = openArchive(':memory:', { clock: () => 5_000 });
      a.storeResponse(listResponse('c1', 'photo_net', 'profile/posts', [post({ id: '1' }), post({ id: '2' })]), 't', null);
      const q = { platforms: ['photo_net'] };
      await exportAny(a.iterateExportRows(q), {
        format,
        out: join(dir, `items.${format}`),
        companions: companionsOf(a.datasets, { query: q }),
      });
      a.close();
      expect(readdirSync(dir).sort()).toEqual(format === 'xlsx' ? ['items.xlsx'] : [`items.${format}`, `items.history.${format}`].sort());
    });
});
