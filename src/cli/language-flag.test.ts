/** `--language` (issue 27 #9): repeatable or comma-separated, checked like the app's filter. */
import { describe, expect, it } from 'vitest';
import { buildLibraryQuery } from './query-flags';

describe('--language', () => {
  it('builds the library query languages; a bad tag is a usage error naming the flag', () => {
    expect(buildLibraryQuery({ language: ['en,pt-BR', 'und'] }).languages).toEqual(['en', 'pt-BR', 'und']);
    expect(buildLibraryQuery({}).languages).toBeUndefined();
    expect(() => buildLibraryQuery({ language: ['en%'] })).toThrow(/language is a tag such as en/);
  });
});
