/**
 * Issue 24 #8 at the doors: every contract method that takes a library query or a watchlist alert
 * refuses a network, kind or label Loupe does not know — the same `validation` sentence through
 * `dispatch` (Electron and the web host) — and a network the catalogue lists that the archive has
 * nothing of is 0 rows, not an error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { COMMENT_LABELS, PLATFORMS, POST_LABELS } from '../shared/api-types';
import { METHOD_NAMES, methods, type LibraryQueryAnswer, type MethodName } from '../shared/contract';
import { parseLocalInput } from '../shared/contract-local';
import { LABEL_SPECS } from '../shared/labels';
import { LIBRARY_KINDS } from '../shared/query-names';
import type { LibraryQuery } from '../shared/query';
import { dispatch } from './bridge';
import { namesIn, queryNameProblems, type NameSources } from './query-names';
import { startTestApp, type TestApp } from './test-app';
import { appWatchFactory } from './watch';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ seed: 3, balance: 100_000 }, 'loupe-names-', { watch: appWatchFactory({ scheduler: false }) });
  await t.call('api.call', { target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice' } }, source: 'test' });
});
afterAll(async () => {
  await t?.close();
});

/** A valid input of every method that carries a query or an alert, with `q` as its query (or alert). */
const WITH_QUERY: Partial<Record<MethodName, (q: LibraryQuery) => unknown>> = {
  'library.query': (q) => q,
  'library.count': (q) => q,
  'library.volume': (query) => ({ query, bucket: 'day' }),
  'library.engagement': (query) => ({ query, bucket: 'day', field: 'likes' }),
  'library.labelDistribution': (query) => ({ query, family: 'intent', field: 'label' }),
  'library.topAuthors': (query) => ({ query }),
  'library.tagQuery': (query) => ({ query, tag: 'x' }),
  'library.saveResultSet': (query) => ({ name: 'set', query }),
  'analysis.frequency': (query) => ({ query, field: 'hashtags' }),
  'analysis.compare': (query) => ({
    series: [
      { name: 'a', query },
      { name: 'b', query: {} },
    ],
  }),
  'analysis.overperformance': (query) => ({ query }),
  'analysis.volumeBy': (query) => ({ query, by: 'platform' }),
  'analysis.labelShare': (query) => ({ query, family: 'intent', field: 'label' }),
  'analysis.engagementDistribution': (query) => ({ query }),
  'export.start': (query) => ({ query, format: 'csv' }),
  'network.build': (query) => ({ query, network: 'co-hashtag' }),
  'network.items': (query) => ({ query, network: 'co-hashtag', node: '#x' }),
  'collect.preview': (query) => ({ name: 'plan', source: { type: 'query', query } }),
  'collect.create': (query) => ({ name: 'plan', source: { type: 'query', query } }),
  'datasets.recheckPlan': (query) => ({ target: { query } }),
  'datasets.recheck': (query) => ({ target: { query } }),
  'datasets.attrition': (query) => ({ target: { query } }),
  'datasets.bundleJob': (query) => ({ target: { query } }),
  'watchlists.create': (q) => ({ name: 'alerting', alert: q.labels }),
  'watchlists.update': (q) => ({ id: 'no-such-list', patch: { alert: q.labels } }),
};
const ALERT_ONLY = new Set<MethodName>(['watchlists.create', 'watchlists.update']);

const TYPOS: Array<{ q: LibraryQuery; says: RegExp; alert?: boolean }> = [
  {
    q: { platforms: ['photo_nett'] },
    says: /^"photo_nett" is not a network Loupe knows\. Did you mean photo_net\? \(Networks: .*micro_net/,
  },
  { q: { kinds: ['pots'] }, says: /^"pots" is not a kind of item\. Did you mean post\?/ },
  {
    q: { labels: [{ family: 'intnt', field: 'label', op: 'eq', value: 'complaining' }] },
    says: /^"intnt" is not a label family\. Did you mean intent\?/,
    alert: true,
  },
  {
    q: { labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaning' }] },
    says: /^"complaning" is not a value of intent\.label\. Did you mean complaining\?/,
    alert: true,
  },
  {
    q: { labels: [{ family: 'sentiment', field: 'lable', op: 'eq', value: 'negative' }] },
    says: /^"lable" is not a field of the sentiment labels\. Did you mean label\?/,
    alert: true,
  },
];

describe('unknown names in queries and alerts', () => {
  it('every method whose input can carry a query or an alert is covered here', () => {
    const carries = METHOD_NAMES.filter((m) =>
      /"(platforms|alert)"/.test(JSON.stringify(z.toJSONSchema(methods[m].input, { unrepresentable: 'any', io: 'input' }))),
    );
    expect(carries.sort()).toEqual(Object.keys(WITH_QUERY).sort());
  });

  for (const [method, input] of Object.entries(WITH_QUERY) as Array<[MethodName, (q: LibraryQuery) => unknown]>) {
    it(`${method}: refused with the sentence naming it and the nearest valid name`, async () => {
      for (const typo of TYPOS) {
        if (ALERT_ONLY.has(method) && !typo.alert) continue;
        const r = await dispatch(t.app, method, input(typo.q));
        expect(r.ok, `${method} ${JSON.stringify(typo.q)}`).toBe(false);
        if (!r.ok) {
          expect(r.error.kind).toBe('validation');
          expect(r.error.message).toMatch(typo.says);
        }
      }
    });
  }

  it("local.exportBundle (the command line's bundle at a path): refused with the same sentence, nothing written", async () => {
    const out = join(t.dir, 'never-written');
    for (const typo of TYPOS) {
      const e = await t.app.local['local.exportBundle'](parseLocalInput('local.exportBundle', { target: { query: typo.q }, out })).then(
        () => null,
        (err: unknown) => err as { kind: string; message: string },
      );
      expect(e?.kind).toBe('validation');
      expect(e?.message).toMatch(typo.says);
      expect(existsSync(out)).toBe(false);
    }
  });

  it('names the archive holds, and a network the catalogue lists with no item archived, are fine (0 rows)', async () => {
    const held = await t.call<LibraryQueryAnswer>('library.query', { platforms: ['photo_net'], kinds: ['post'], limit: 1 });
    expect(held.total).toBeGreaterThan(0);
    const none = await t.call<LibraryQueryAnswer>('library.query', {
      platforms: ['forum_net'],
      kinds: ['comment'],
      labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }],
    });
    expect(none.total).toBe(0);
    await t.call('watchlists.create', { name: 'ok alert', alert: [{ family: 'sentiment', field: 'label', op: 'eq', value: 'negative' }] });
  });

  it('everything the menus of the app offer passes: networks, kinds, label families and fields', async () => {
    const labels = [...POST_LABELS, ...COMMENT_LABELS].flatMap((family) =>
      Object.entries(LABEL_SPECS[family].fields).map(([field, s]) => ({
        family,
        field,
        op: 'eq' as const,
        value: s.type === 'enum' ? s.values[0] : s.type === 'bool' ? true : s.type === 'text' ? '' : 0.5,
      })),
    );
    for (const platform of PLATFORMS) await t.call('library.count', { platforms: [platform] });
    for (const kind of LIBRARY_KINDS) await t.call('library.count', { kinds: [kind] });
    for (const c of labels) await t.call('library.count', { labels: [c] });
  });

  it('finds queries wherever a method nests them', () => {
    expect(namesIn({ series: [{ query: { platforms: ['a'] } }, { query: { kinds: ['b'] } }] })).toEqual([
      { platforms: ['a'] },
      { kinds: ['b'] },
    ]);
    expect(namesIn({ id: 'x', patch: { alert: [{ family: 'f', field: 'g', op: 'eq', value: 1 }] } })).toEqual([
      { labels: [{ family: 'f', field: 'g', op: 'eq', value: 1 }] },
    ]);
    expect(namesIn({ target: { platform: 'x', params: { labels: 'intent' } } })).toEqual([]);
  });
});

describe('when the catalogue cannot be read', () => {
  const src = (catalogue: readonly string[] | null): NameSources => ({
    archive: {
      heldPlatformKinds: () => [{ platform: 'micro_net', kind: 'post' }],
      heldLabelFields: () => [],
      holdsLabelValue: () => false,
      heldLabelValues: () => [],
    },
    catalogueNetworks: async () => {
      if (!catalogue) throw new Error('the service did not answer');
      return catalogue;
    },
  });
  it('a name near one the archive holds is refused (a likely typo), saying why it could not be checked; any other cannot be checked and passes', async () => {
    const [p] = await queryNameProblems({ platforms: ['micro_nett'] }, src(null));
    expect(p).toMatch(
      /^"micro_nett" is not a network this archive holds \(the service's catalogue could not be read to check it: the service did not answer; these are the networks the archive holds\)\. Did you mean micro_net\?/,
    );
    expect(await queryNameProblems({ platforms: ['forum_net'] }, src(null))).toEqual([]);
    // with the catalogue: listed → fine, not listed → refused however far
    expect(await queryNameProblems({ platforms: ['forum_net'] }, src(['forum_net', 'micro_net']))).toEqual([]);
    expect(await queryNameProblems({ platforms: ['banana'] }, src(['forum_net', 'micro_net']))).toEqual([
      '"banana" is not a network Loupe knows. (Networks: forum_net, micro_net.)',
    ]);
  });
});
