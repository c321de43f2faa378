/**
 * Issue 14 #10 without a browser: human words in generated forms (API name on hover), chosen
 * label families instead of free text, the `?` shortcut list. (Headings and colour contrast:
 * src/host/renderer-source.test.ts; the Playwright journeys run axe-core on every view.)
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { CatalogueEndpoint } from '../../../shared/api-types';
import { ParamForm } from './ParamForm';
import { SHORTCUTS } from './Dialog';
import { VIEWS } from '../stores/ui';

const p = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  required: false,
  in: 'query',
  type: 'string',
  description: `${name} description`,
  ...extra,
});

describe('generated forms speak an analyst’s words', () => {
  it('max_pages, fit, goal: human label, the API name on hover; label: families to tick', () => {
    const ep = {
      platform: 'photo_net',
      path: 'search/reels',
      params: [
        p('query', { required: true }),
        p('max_pages', { type: 'integer', minimum: 1, maximum: 5 }),
        p('fit'),
        p('goal'),
        p('label'),
      ],
    } as unknown as CatalogueEndpoint;
    const html = renderToStaticMarkup(createElement(ParamForm, { endpoint: ep, values: { label: 'intent' }, onChange: () => {} }));
    expect(html).toContain('Pages per request');
    expect(html).toMatch(/title="API parameter: max_pages/);
    expect(html).toContain('Keep only rows for a goal');
    expect(html).not.toMatch(/field-label">max_pages/);
    expect(html).toMatch(/role="group" aria-label="Extra labels"/);
    expect(html).toMatch(/<input type="checkbox" checked=""\/> Intent/);
    expect(html).not.toMatch(/data-testid="param-label"[^>]*type="text"/);
  });
});

describe('keyboard help and headings', () => {
  it('`?` lists every shortcut', () => {
    const keys = SHORTCUTS.map(([k]) => k).join(' ');
    for (const k of ['Ctrl/⌘ K', '/', 'Esc', 'Enter', '?']) expect(keys).toContain(k);
    // every view of the rail, by letter and by number
    for (const v of VIEWS) expect(keys).toContain(`g ${v.key}`);
    expect(SHORTCUTS.find(([, what]) => what.startsWith('go to '))?.[1]).toBe(`go to ${VIEWS.map((v) => v.label).join(', ')}`);
    expect(keys).toContain(VIEWS.length === 10 ? 'Alt 0' : `Alt ${VIEWS.length}`);
  });
});
