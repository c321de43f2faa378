import { expect, it } from 'vitest';
import { SPEC_VARIANTS } from '../../sandbox';
import { SPEC_VARIANT_NAMES } from '../../shared/spec-variants';

it("the manifest's list of spec variants is the sandbox's", () => {
  expect([...SPEC_VARIANT_NAMES]).toEqual(SPEC_VARIANTS.map((v) => v.name));
});
