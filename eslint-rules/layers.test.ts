/**
 * The layer rules of docs/architecture.md fail lint when broken (and stay quiet when kept).
 * Uses the project's own ESLint config, linting text as if it lived at a path inside src/.
 */
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { join } from 'node:path';

const eslint = new ESLint({ cwd: join(import.meta.dirname, '..') });

async function layerErrors(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: join(import.meta.dirname, '..', file) });
  return r.messages.filter((m) => m.ruleId === 'loupe/layers').map((m) => m.message);
}

describe('layer rules (eslint-rules/layers.js)', () => {
  it('shared imports nothing outside itself (zod allowed)', async () => {
    expect(await layerErrors('src/shared/x.ts', "import { z } from 'zod';\nexport const a = z;\n")).toEqual([]);
    expect(await layerErrors('src/shared/x.ts', "import fs from 'node:fs';\nexport const a = fs;\n")).toHaveLength(1);
    expect(
      await layerErrors('src/shared/x.ts', "import { realClock } from '../core/api/clock';\nexport const a = realClock;\n"),
    ).toHaveLength(1);
    // its tests may import the test runner, and nothing more
    expect(await layerErrors('src/shared/x.test.ts', "import { it } from 'vitest';\nexport const a = it;\n")).toEqual([]);
    expect(await layerErrors('src/shared/x.ts', "import { it } from 'vitest';\nexport const a = it;\n")).toHaveLength(1);
    expect(await layerErrors('src/shared/x.test.ts', "import fc from 'fast-check';\nexport const a = fc;\n")).toEqual([]);
    expect(await layerErrors('src/shared/x.ts', "import fc from 'fast-check';\nexport const a = fc;\n")).toHaveLength(1);
    expect(await layerErrors('src/shared/x.test.ts', "import fs from 'node:fs';\nexport const a = fs;\n")).toHaveLength(1);
  });

  it('core never imports electron, renderer or sandbox', async () => {
    expect(await layerErrors('src/core/x.ts', "import { app } from 'electron';\nexport const a = app;\n")).toHaveLength(1);
    expect(await layerErrors('src/core/x.ts', "import { api } from '../renderer/src/lib/api';\nexport const a = api;\n")).toHaveLength(1);
    expect(await layerErrors('src/core/x.ts', "import { startSandbox } from '../sandbox';\nexport const a = startSandbox;\n")).toHaveLength(
      1,
    );
    expect(
      await layerErrors(
        'src/core/x.ts',
        "import fs from 'node:fs';\nimport { PLATFORMS } from '../shared/api-types';\nexport const a = [fs, PLATFORMS];\n",
      ),
    ).toEqual([]);
  });

  it('renderer imports shared only: no core, no node:, no electron', async () => {
    expect(
      await layerErrors('src/renderer/src/x.ts', "import { createApp } from '../../core/app';\nexport const a = createApp;\n"),
    ).toHaveLength(1);
    expect(await layerErrors('src/renderer/src/x.ts', "import fs from 'node:fs';\nexport const a = fs;\n")).toHaveLength(1);
    expect(
      await layerErrors('src/renderer/src/x.ts', "import { ipcRenderer } from 'electron';\nexport const a = ipcRenderer;\n"),
    ).toHaveLength(1);
    expect(
      await layerErrors('src/renderer/src/x.ts', "import { methods } from '../../shared/contract';\nexport const a = methods;\n"),
    ).toEqual([]);
  });

  it('sandbox imports shared only; tests of any layer may start the sandbox', async () => {
    expect(
      await layerErrors('src/sandbox/x.ts', "import { realClock } from '../core/api/clock';\nexport const a = realClock;\n"),
    ).toHaveLength(1);
    expect(await layerErrors('src/core/x.test.ts', "import { startSandbox } from '../sandbox';\nexport const a = startSandbox;\n")).toEqual(
      [],
    );
    expect(
      await layerErrors('src/core/test-app.ts', "import { startSandbox } from '../sandbox';\nexport const a = startSandbox;\n"),
    ).toEqual([]);
  });

  it('only main and preload import electron; doors may import core', async () => {
    expect(
      await layerErrors(
        'src/main/x.ts',
        "import { app } from 'electron';\nimport { createApp } from '../core/app';\nexport const a = [app, createApp];\n",
      ),
    ).toEqual([]);
    expect(await layerErrors('src/host/x.ts', "import { app } from 'electron';\nexport const a = app;\n")).toHaveLength(1);
    expect(await layerErrors('src/cli/x.ts', "import { app } from 'electron';\nexport const a = app;\n")).toHaveLength(1);
  });

  it('inside core: a unit imports only lower units, and a package only through its index.ts', async () => {
    // a back edge (the archive reaching up to the analyses, the analyses to the exports) fails
    expect(
      await layerErrors('src/core/archive/x.ts', "import { frequencyTable } from '../analysis';\nexport const a = frequencyTable;\n"),
    ).toHaveLength(1);
    expect(
      await layerErrors('src/core/analysis/x.ts', "import { exportAny } from '../export';\nexport const a = exportAny;\n"),
    ).toHaveLength(1);
    // siblings on one level import nothing of each other
    expect(
      await layerErrors('src/core/api/x.ts', "import { frequencyTable } from '../analysis';\nexport const a = frequencyTable;\n"),
    ).toHaveLength(1);
    // down the order, through the index: fine; past the index: fails
    expect(
      await layerErrors(
        'src/core/analysis/x.ts',
        "import { DAY_SQL } from '../archive';\nimport { extractTerms } from '../text';\nexport const a = [DAY_SQL, extractTerms];\n",
      ),
    ).toEqual([]);
    expect(
      await layerErrors('src/core/analysis/x.ts', "import { DAY_SQL } from '../archive/days';\nexport const a = DAY_SQL;\n"),
    ).toHaveLength(1);
    // the text package is the bottom: it may not use the archive
    expect(
      await layerErrors('src/core/text/x.ts', "import { openArchive } from '../archive';\nexport const a = openArchive;\n"),
    ).toHaveLength(1);
    // tests sit outside the order
    expect(
      await layerErrors(
        'src/core/archive/x.test.ts',
        "import { frequencyTable } from '../analysis/frequency';\nexport const a = frequencyTable;\n",
      ),
    ).toEqual([]);
  });

  it('the command line reaches core through the composition only (eslint-rules/cli-core.js)', async () => {
    // the composition and the ground: fine
    expect(
      await layerErrors(
        'src/cli/x.ts',
        "import { composeApp, type ArchiveMode } from '../core/compose';\nimport { archivePath } from '../core/paths';\nexport const a = [composeApp, archivePath];\nexport type M = ArchiveMode;\n",
      ),
    ).toEqual([]);
    // core's internals, static, type-only or on use: each fails
    expect(
      await layerErrors('src/cli/x.ts', "import { openArchive } from '../core/archive';\nexport const a = openArchive;\n"),
    ).toHaveLength(1);
    expect(
      await layerErrors('src/cli/commands/x.ts', "import type { WalkResult } from '../../core/api';\nexport type W = WalkResult;\n"),
    ).toHaveLength(1);
    expect(await layerErrors('src/cli/x.ts', "export const a = () => import('../core/export/formats');\n")).toHaveLength(1);
    // no file has an exception (the export went through local.exportFile, issue 25)
    expect(
      await layerErrors('src/cli/commands/export-file.ts', "export const a = () => import('../../core/export/formats');\n"),
    ).toHaveLength(1);
    // tests may read anything
    expect(
      await layerErrors('src/cli/x.test.ts', "import { openArchive } from '../core/archive';\nexport const a = openArchive;\n"),
    ).toEqual([]);
  });
});
