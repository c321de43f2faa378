/** Facets over loaded rows: label values and, since issue 27 #9, the rows' languages. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyFacets, facetCounts, languageFacet } from './records';

const row = (lang: string | null) => ({ labels: null, overrides: {}, relevance: null, lang });

describe('the language facet', () => {
  it('counts every row once under its primary tag and filters by it', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('en', 'EN', 'pt-BR', 'pt', 'ja', 'zh_Hant', '', null), { maxLength: 30 }), (langs) => {
        const rows = langs.map(row);
        const g = facetCounts(rows).find((x) => x.family === 'language');
        const total = (g?.values ?? []).reduce((a, v) => a + v.count, 0);
        expect(total).toBe(rows.length);
        for (const v of g?.values ?? []) expect(applyFacets(rows, new Set([v.key]), null)).toHaveLength(v.count);
      }),
      { seed: 9, numRuns: 50 },
    );
    expect(languageFacet(row('pt-BR'))).toEqual({ family: 'language', key: 'language=pt', text: 'pt' });
    expect(languageFacet(row(null)).text).toBe('not known');
  });
});
