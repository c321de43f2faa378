/**
 * The sandbox's OpenAPI document through the real validators (issue 26): `dry_run` and
 * `label_evidence` were typed boolean with `example: 1`, which gave 176 Spectral errors
 * (oas3-valid-media-example) and 176 of Redocly's 195 warnings (no-invalid-parameter-examples).
 * Spectral's `spectral:oas` ruleset must find no error and Redocly no invalid parameter example.
 * Both run offline, on the document as the sandbox serves it.
 */
import { describe, expect, it } from 'vitest';
import { Document, Spectral } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import * as parsers from '@stoplight/spectral-parsers';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { buildOpenApi, typedExample } from './catalogue';
import { ENDPOINTS } from './index';

const text = JSON.stringify(buildOpenApi('http://127.0.0.1:8787'), null, 2);
// the parsers are CommonJS: named under Node's import, or under `default`
const Json = ((parsers as unknown as { Json?: unknown }).Json ??
  (parsers as unknown as { default: { Json: unknown } }).default.Json) as ConstructorParameters<typeof Document>[1];

describe('the OpenAPI document', () => {
  it("has no error under Spectral's spectral:oas ruleset", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] } as never);
    const results = await spectral.run(new Document(text, Json, 'openapi.json'));
    const errors = results.filter((r) => r.severity === 0);
    expect(errors.map((e) => `${e.code} at ${e.path.join('.')}: ${e.message}`).slice(0, 5)).toEqual([]);
  }, 60_000);

  it("has no invalid parameter example under Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ['recommended'] } as never);
    const problems = await lintFromString({ source: text, absoluteRef: '/openapi.json', config });
    const bad = problems.filter((p) => p.ruleId === 'no-invalid-parameter-examples' || p.severity === 'error');
    expect(bad.map((p) => `${p.ruleId}: ${p.message}`).slice(0, 5)).toEqual([]);
  }, 60_000);

  it("gives each parameter's example in its schema's type (the catalogue keeps its own)", () => {
    for (const def of ENDPOINTS)
      for (const p of def.params) {
        const x = typedExample(p);
        if (x === undefined) continue;
        const want = ({ boolean: 'boolean', integer: 'number', number: 'number', string: 'string' } as Record<string, string>)[p.type];
        expect(typeof x, `${def.platform}/${def.path} ${p.name}`).toBe(want);
      }
  });
});
