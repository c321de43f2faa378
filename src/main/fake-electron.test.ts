/**
 * The fake of Electron cannot drift from Electron: it compiles on its own against the electron
 * package's electron.d.ts (this test, beside npm test's typecheck), and main imports nothing from
 * electron that the fake does not provide.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { FAKED_EXPORTS } from './testing/fake-electron';

const here = import.meta.dirname;

it('compiles against electron.d.ts with no error', () => {
  const file = join(here, 'testing', 'fake-electron.ts');
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    skipLibCheck: true,
    esModuleInterop: true,
  });
  const electronDts = program.getSourceFiles().find((f) => /node_modules[\\/]electron[\\/]electron\.d\.ts$/.test(f.fileName));
  expect(electronDts, 'electron.d.ts is part of the program').toBeDefined();
  const diags = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(diags).toEqual([]);
}, 60_000);

it('main imports from electron only what the fake provides', () => {
  const used = new Set<string>();
  for (const f of readdirSync(here)) {
    if (!f.endsWith('.ts') || f.endsWith('.test.ts')) continue;
    const src = readFileSync(join(here, f), 'utf8');
    for (const m of src.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'electron'/g)) {
      if (m[1]) continue;
      for (const name of m[2]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean))
        if (!name.startsWith('type ')) used.add(name);
    }
  }
  expect([...used].filter((n) => !(FAKED_EXPORTS as readonly string[]).includes(n))).toEqual([]);
  expect(used.size).toBeGreaterThan(5);
});
