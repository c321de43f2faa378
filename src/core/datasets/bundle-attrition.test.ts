/**
 * What a re-check found leaves the archive (issue 29): a bundle's item tables carry each item's
 * checked_at / missing_since, its manifest counts the items as the attrition report does, verify
 * checks those cells against the manifest and (given it) the archive, and import restores them
 * (mergeMarks: the later re-check decides, a later successful reading clears an older missing mark)
 * — the sandbox's deletion clock, re-checked, bundled and imported into a second archive: the two
 * attrition reports are equal, nothing paid.
 */
import fc from 'fast-check';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeMarks, openArchive, type Archive, type Marks } from '../archive';
import { listResponse, post } from '../archive/test-fixtures';
import { collectEnvs } from '../collect/test-env';
import { exportBundle, manifestAttrition, rootHash, type Manifest } from './bundle';
import { importBundle, markVerdict, verifyBundle } from './bundle-check';
import { runRecheck, type RecheckDeps } from './recheck';
import { sha256 } from './row-hashes';

const DAY = 86_400_000;
const EPOCH = Date.UTC(2026, 2, 1);
const dir = mkdtempSync(join(tmpdir(), 'loupe-bundle-attrition-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = collectEnvs();
const Q = { platforms: ['photo_net'] };
const opts = (out: string, now: number) => ({ out, query: Q, version: '0.1.0', variants: ['judgments-beside'], now });
const marksOf = (a: Archive): Record<string, Marks> =>
  Object.fromEntries(
    a.listQuery({ ...Q, limit: 1000 }).rows.map((r) => {
      const it = a.getItem(r.platform, r.kind, r.id)!;
      return [`${r.platform}/${r.kind}/${r.id}`, [it.checkedAt, it.missingSince]];
    }),
  );

describe('re-checked in the sandbox, bundled, imported into a second archive', () => {
  it('carries each item’s marks; verify checks them; the second archive’s attrition report equals the first’s', async () => {
    const e = await env({ seed: 3, epoch: EPOCH, timeScale: 1 });
    for (let k = 0; k < 4; k++)
      await e.api.call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: `aging.check${k}` } }, { source: 'test' });
    e.archive.saveResultSet('Study', Q);
    e.sb.admin.advance(90 * 86_400); // the deletion clock: some of these posts are gone 90 days on
    const deps: RecheckDeps = {
      archive: e.archive,
      collect: e.collect,
      clock: e.clock,
      catalogue: async () => (await e.api.catalogue.load(), e.api.catalogue),
    };
    const r = await runRecheck(deps, { target: { set: 'Study' }, budget: null, approved: true });
    expect(r.missing).toBeGreaterThan(0);
    // another account's posts, collected after the re-check: not re-checked
    await e.api.call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'aging.check4' } }, { source: 'test' });
    const report = e.archive.datasets.attrition(Q);
    const counted = manifestAttrition(report);
    expect(counted.available * counted.unavailable * counted.not_rechecked).toBeGreaterThan(0); // all three states

    const out = join(dir, 'study');
    const m = await exportBundle(e.archive, opts(out, e.clock.now()));
    expect(m.attrition).toEqual(counted);
    // the item tables say it: an unavailable item's two cells, its JSONL line's two times
    const gone = Object.entries(marksOf(e.archive)).find(([, [, missing]]) => missing !== null)!;
    const [checkedIso, missingIso] = gone[1].map((t) => new Date(t!).toISOString());
    const csv = readFileSync(join(out, 'items.csv'), 'utf8').split('\r\n');
    expect(csv[0].endsWith(',"extra","checked_at","missing_since"')).toBe(true);
    expect(csv.filter((l) => l.endsWith(`,"${checkedIso}","${missingIso}"`)).length).toBeGreaterThan(0);
    expect(readFileSync(join(out, 'items.jsonl'), 'utf8')).toContain(`"checked_at":"${checkedIso}","missing_since":"${missingIso}"}`);
    expect((await verifyBundle(out, { archive: e.archive })).problems).toEqual([]);

    const charged = e.charged();
    const b = openArchive(':memory:');
    const imported = await importBundle(out, b, e.clock.now());
    expect(b.datasets.attrition(Q)).toEqual(report);
    expect(marksOf(b)).toEqual(marksOf(e.archive));
    expect(imported.rechecks).toBe(counted.available + counted.unavailable);
    expect((await importBundle(out, b, e.clock.now())).rechecks).toBe(0); // again: nothing changes
    expect((await verifyBundle(out, { archive: b })).problems).toEqual([]);
    expect(e.charged()).toBe(charged); // import pays nothing
    expect(e.ledger()).toBe(e.charged());

    // a re-check after the bundle: it still verifies with the archive, which names the item in a note
    const [platform, kind, id] = Object.entries(marksOf(e.archive))
      .find(([, [checked, missing]]) => checked !== null && missing === null)![0]
      .split('/');
    e.archive.datasets.markChecked({ platform, kind, id }, e.clock.now() + DAY, true);
    const later = await verifyBundle(out, { archive: e.archive });
    expect(later.problems).toEqual([]);
    expect(later.notes).toEqual([
      expect.stringMatching(
        new RegExp(`^1 item\\(s\\) re-checked in the archive after the bundle was written .*: ${platform}/${kind}/${id}\\.$`),
      ),
    ]);
    expect((await verifyBundle(out)).ok).toBe(true);

    // a forged bundle (an unavailable item's missing_since emptied, its row, file and root hashed again)
    const forged = join(dir, 'forged');
    cpSync(out, forged, { recursive: true });
    const k = csv.findIndex((l) => l.endsWith(`,"${checkedIso}","${missingIso}"`));
    const orig = csv[k];
    csv[k] = csv[k].slice(0, -`"${missingIso}"`.length);
    writeFileSync(join(forged, 'items.csv'), csv.join('\r\n'));
    const fm = JSON.parse(readFileSync(join(forged, 'manifest.json'), 'utf8')) as Manifest;
    const item = fm.items.find((i) => i.csv_sha256 === sha256(Buffer.from(orig)))!;
    item.csv_sha256 = sha256(Buffer.from(csv[k]));
    const file = fm.files.find((f) => f.path === 'items.csv')!;
    file.sha256 = sha256(readFileSync(join(forged, 'items.csv')));
    file.bytes = readFileSync(join(forged, 'items.csv')).length;
    const { root_sha256: _, ...body } = fm;
    fm.root_sha256 = rootHash(body);
    writeFileSync(join(forged, 'manifest.json'), JSON.stringify(fm, null, 1) + '\n');
    const f = await verifyBundle(forged, { archive: b });
    expect(f.problems).toContainEqual(
      expect.stringMatching(/^items\.csv: photo_net has .*; the manifest's attrition counts .*: changed\.$/),
    );
    expect(
      f.problems.some(
        (p) =>
          p.includes(': items.csv says available when re-checked') &&
          p.endsWith(`the archive: unavailable since ${missingIso} (re-checked ${checkedIso}).`),
      ),
    ).toBe(true);
    b.close();
  }, 120_000);
});

describe('import merges re-check marks as a re-check would', () => {
  const T = Date.UTC(2026, 0, 1);
  const archiveOf = (): Archive => {
    const a = openArchive(':memory:');
    const rows = [1, 2, 3, 4, 5].map((id) => post({ id: `${id}`, likes: id, published_at: new Date(T + id * 3_600_000).toISOString() }));
    a.storeResponse(listResponse('call-0', 'photo_net', 'profile/posts', rows, { fetchedAt: T }), 'test', null);
    return a;
  };
  const ref = (id: number) => ({ platform: 'photo_net', kind: 'post', id: `${id}` });
  const at = (h: number) => T + h * 3_600_000;

  it('the later re-check decides; a later successful reading clears an older missing mark; nothing else moves', async () => {
    const a = archiveOf();
    a.datasets.markChecked(ref(1), at(10), true); // missing since 10
    a.datasets.markChecked(ref(2), at(10), false); // found at 10
    a.datasets.markChecked(ref(3), at(5), true);
    a.datasets.markChecked(ref(3), at(20), true); // missing since 5, checked 20
    a.datasets.markChecked(ref(4), at(30), false);
    const out = join(dir, 'merge');
    await exportBundle(a, opts(out, at(40)));
    const b = archiveOf();
    b.datasets.markChecked(ref(1), at(20), false); // found after a's missing mark: available
    b.datasets.markChecked(ref(2), at(15), true); // missing after a's found: unavailable since 15
    b.datasets.markChecked(ref(3), at(12), false); // found between a's two not-founds: missing again at 20
    b.datasets.markChecked(ref(5), at(7), true); // only b re-checked it: kept
    const r = await importBundle(out, b, at(41));
    expect(marksOf(b)).toEqual({
      'photo_net/post/1': [at(20), null],
      'photo_net/post/2': [at(15), at(15)],
      'photo_net/post/3': [at(20), at(20)],
      'photo_net/post/4': [at(30), null],
      'photo_net/post/5': [at(7), at(7)],
    });
    expect(r.rechecks).toBe(2); // items 3 and 4
    expect(b.count({})).toBe(5); // nothing deleted
    a.close();
    b.close();
  });

  it('mergeMarks: with itself or with none, the marks back; either order the same; checked the later (generated)', () => {
    const t = fc.integer({ min: 0, max: 50 });
    const marks: fc.Arbitrary<Marks> = fc.oneof(
      fc.constant([null, null] as Marks),
      t.map((c): Marks => [c, null]),
      fc.tuple(t, t).map(([x, y]): Marks => [Math.max(x, y), Math.min(x, y)]),
    );
    fc.assert(
      fc.property(marks, marks, (x, y) => {
        expect(mergeMarks(x, x)).toEqual(x);
        expect(mergeMarks(x, [null, null])).toEqual(x);
        const m = mergeMarks(x, y);
        expect(m).toEqual(mergeMarks(y, x));
        const checked = [x[0], y[0]].filter((c) => c !== null);
        expect(m[0]).toBe(checked.length ? Math.max(...checked) : null);
        // unavailable now ⇔ the later re-check (a found winning a tie) found it missing
        const last = [x, y].filter((s) => s[0] === m[0]);
        if (m[0] !== null) expect(m[1] !== null).toBe(last.every((s) => s[1] !== null));
      }),
      { numRuns: 300 },
    );
  });
});

describe('a bundle written by a process behind the service’s clock', () => {
  // the CLI's process reads the computer's clock until it hears the service's (docs/watchlists.md
  // "One clock"); a sandbox moved ahead then re-checked: the marks lie after that clock
  const T = Date.UTC(2026, 0, 1);
  const H = 3_600_000;
  it('is dated no earlier than its marks and calls, and verifies with its archive (generated)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ahead: fc.integer({ min: -48, max: 90 * 24 }), missing: fc.boolean() }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: -48, max: 90 * 24 }),
        async (checks, callAhead) => {
          const now = T + 100 * H;
          const a = openArchive(':memory:');
          const rows = [1, 2, 3, 4, 5].map((id) => post({ id: `${id}`, published_at: new Date(T + id * H).toISOString() }));
          a.storeResponse(listResponse('call-0', 'photo_net', 'profile/posts', rows, { fetchedAt: now + callAhead * H }), 'test', null);
          checks.forEach((c, k) =>
            a.datasets.markChecked({ platform: 'photo_net', kind: 'post', id: `${(k % 5) + 1}` }, now + c.ahead * H, c.missing),
          );
          const out = join(dir, `behind-${n++}`);
          const m = await exportBundle(a, { ...opts(out, now), threads: 0 });
          const latest = Math.max(now, now + callAhead * H, ...checks.map((c) => now + c.ahead * H));
          expect(m.created_at).toBe(new Date(latest).toISOString());
          const v = await verifyBundle(out, { archive: a });
          expect(v.problems).toEqual([]);
          expect(v.notes).toEqual([]);
          a.close();
          rmSync(out, { recursive: true, force: true });
        },
      ),
      { numRuns: 5 },
    );
  });
});

describe('verify after later re-checks (markVerdict)', () => {
  // an item's re-checks at hours 1..40 (found or missing), the bundle written at hour W: the bundle
  // holds the marks as of W, the archive the marks after every re-check (attrition.ts markChecked)
  const H = 3_600_000;
  const T = Date.UTC(2026, 0, 1);
  const marksAfter = (checks: ReadonlyArray<{ at: number; missing: boolean }>, until: number): [number | null, number | null] => {
    let m: [number | null, number | null] = [null, null];
    for (const c of [...checks].sort((x, y) => x.at - y.at))
      if (c.at <= until)
        m = [Math.max(m[0] ?? c.at, c.at), c.missing ? Math.min(m[1] ?? c.at, c.at) : m[1] !== null && m[1] <= c.at ? null : m[1]];
    return m;
  };
  const cells = ([checked, missing]: [number | null, number | null]) => ({
    checked: checked === null ? '' : new Date(checked).toISOString(),
    missing: missing === null ? '' : new Date(missing).toISOString(),
  });
  const history = fc.array(fc.record({ at: fc.integer({ min: 1, max: 40 }).map((h) => T + h * H), missing: fc.boolean() }), {
    maxLength: 6,
  });
  const hour = fc.integer({ min: 0, max: 40 }).map((h) => T + h * H + H / 2);

  it('an honest bundle verifies however the archive was re-checked since', () => {
    fc.assert(
      fc.property(history, hour, (checks, written) => {
        const archive = marksAfter(checks, Infinity);
        const verdict = markVerdict(cells(marksAfter(checks, written)), archive, written);
        // re-checked since the writing: the bundle's older marks are told apart (`later`), never a problem
        expect(checks.some((c) => c.at > written) ? ['same', 'later'] : ['same']).toContain(verdict);
      }),
    );
  });

  it('marks changed in a bundle are named when the archive was not re-checked since, or when they claim what the bundle could not know', () => {
    fc.assert(
      fc.property(history, hour, history, (checks, written, forged) => {
        const honest = marksAfter(checks, written);
        const lie = marksAfter(forged, Infinity); // any marks at all, possibly after the writing
        fc.pre(cells(lie).checked !== cells(honest).checked || cells(lie).missing !== cells(honest).missing);
        const archive = marksAfter(checks, Infinity);
        const verdict = markVerdict(cells(lie), archive, written);
        const since = checks.some((c) => c.at > written);
        const after = lie.some((t) => t !== null && t > written);
        if (!since || after) expect(verdict).toBe('changed');
        else expect(verdict).not.toBe('same');
      }),
    );
  });
});
