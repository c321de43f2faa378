/**
 * The simulation's second process as plain JavaScript (docs/simulation.md "What a round costs"): the
 * walker child (test-sim-child.ts) and the core's worker threads bundled once per run with esbuild
 * into a temporary folder, as the command line is built (scripts/build-cli.mjs: its plugins and
 * workers, split where the core loads a part on use), so each kill starts `node <bundle>` — the
 * Loupe process itself, which a SIGKILL ends — without compiling the core's TypeScript again
 * (`node --import tsx` did, at every kill). Built from the sources as they are when the run
 * starts, as tsx would have read them. Not shipped: a test harness.
 */
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { CLI_EXTERNAL, CLI_PLUGINS, WORKERS } from '../../../scripts/build-cli.mjs';

const here = import.meta.dirname;
const root = join(here, '..', '..', '..');

/** native modules stay in node_modules, imported by absolute path: the bundle runs from any folder */
const nativeByPath: Plugin = {
  name: 'native-by-path',
  setup(b) {
    const req = createRequire(join(root, 'package.json'));
    const filter = new RegExp(`^(${CLI_EXTERNAL.map((n) => n.replace(/[/.]/g, '\\$&')).join('|')})(/.*)?$`);
    b.onResolve({ filter }, (a) => {
      try {
        return { path: req.resolve(a.path), external: true };
      } catch {
        return { path: a.path, external: true }; // not installed here (electron): never loaded by the child
      }
    });
  },
};

let built: Promise<string> | undefined;

/** The bundled child's path: built on first use, once per process; the folder is removed when the process exits. */
export function walkerBundle(): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loupe-sim-child-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await build({
      absWorkingDir: root,
      entryPoints: { child: join(here, 'test-sim-child.ts'), ...WORKERS },
      outdir: dir,
      chunkNames: 'chunks/[name]-[hash]',
      splitting: true,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      minify: true,
      keepNames: true,
      // beside the code, read only with --enable-source-maps (a failing child's stack can be mapped)
      sourcemap: 'linked',
      logLevel: 'warning',
      plugins: [...CLI_PLUGINS, nativeByPath],
      // bundled CommonJS packages call require() for Node's own modules
      banner: { js: "import { createRequire as __simRequire } from 'node:module';\nconst require = __simRequire(import.meta.url);" },
    });
    // ES modules named `.js`, where src/core/worker-entry.ts looks for the workers
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    return join(dir, 'child.js');
  })();
  return built;
}
