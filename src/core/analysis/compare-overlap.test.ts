/**
 * Compare says what its shares stand on (issue 27 #11): every label share carries the items judged
 * for it, and the series' overlap (items in more than one series) is counted. Generated archives
 * against a model.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../archive';
import { post } from '../archive/test-fixtures';
import { compare } from './compare';

const dir = mkdtempSync(join(tmpdir(), 'loupe-compare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const item = fc.record({
  platform: fc.constantFrom('photo_net', 'micro_net'),
  author: fc.constantFrom('ann', 'ben'),
  sentiment: fc.constantFrom('negative', 'positive', null),
});

describe('compare: shares with their base, overlap said', () => {
  it('judged counts and overlap match the items', () => {
    let n = 0;
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 20 }), (items) => {
        const a = openArchive(join(dir, `c${n++}.db`));
        try {
          for (const platform of ['photo_net', 'micro_net'])
            a.ingestItems(
              items.flatMap((it, k) =>
                it.platform === platform
                  ? [
                      {
                        platform,
                        kind: 'post',
                        record: post({
                          id: String(7000 + k),
                          author: { id: it.author, username: it.author, display_name: it.author },
                          labels: it.sentiment ? { sentiment: { label: it.sentiment, p: 0.9, score: 0.5 } } : undefined,
                        }),
                      },
                    ]
                  : [],
              ),
              { callId: `seed-${platform}`, source: 'test' },
            );
          const c = compare(a, {
            series: [
              { name: 'photo', query: { platforms: ['photo_net'] } },
              { name: 'ann', query: { author: 'ann' } },
            ],
          });
          const inA = items.map((it) => it.platform === 'photo_net');
          const inB = items.map((it) => it.author === 'ann');
          expect(c.overlap).toEqual({
            distinct: items.filter((_, k) => inA[k] || inB[k]).length,
            shared: items.filter((_, k) => inA[k] && inB[k]).length,
          });
          [inA, inB].forEach((member, s) => {
            const judged = items.filter((it, k) => member[k] && it.sentiment !== null).length;
            for (const row of c.series[s].labels.filter((l) => l.label === 'sentiment.label')) {
              expect(row.judged).toBe(judged);
              expect(row.share).toBeCloseTo(row.items / judged);
            }
          });
        } finally {
          a.close();
        }
      }),
      { numRuns: 15, seed: 11 },
    );
  });
});
