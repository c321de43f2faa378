// Vite plugin (issue 30 "Opening"): `<link rel="modulepreload">` in index.html for the Library
// view's chunk and the chunks it imports, so the browser fetches them while it parses the page,
// beside the app's first script, instead of once that script has run and React has asked for the
// lazy view — by then the host is busy answering the first page's query and the view's code waited
// behind it. Only fetched and compiled, not run: an app opened on another view loses a few KB.
// It also ships src/renderer/first-page.js, run (deferred) before the app's script: in a browser
// opened on the Library it asks for the first page while the app's code loads.
// Used by both builds of the renderer (electron.vite.config.ts, scripts/serve.mjs).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The lazily loaded views whose code the page preloads (paths under src/renderer/src). */
export const FIRST_VIEWS = ['features/LibraryView.tsx'];

/** The chunk files `views` need beyond what the entry already loads (for tests and the plugin). */
export function firstViewFiles(bundle, views = FIRST_VIEWS) {
  const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const walk = (file, into) => {
    if (into.has(file)) return;
    into.add(file);
    for (const i of byFile.get(file)?.imports ?? []) walk(i, into);
  };
  const loaded = new Set();
  for (const c of chunks) if (c.isEntry) walk(c.fileName, loaded);
  const wanted = new Set();
  for (const c of chunks) {
    const id = (c.facadeModuleId ?? '').replace(/\\/g, '/');
    if (views.some((v) => id.endsWith(`/src/renderer/src/${v}`))) walk(c.fileName, wanted);
  }
  return [...wanted].filter((f) => !loaded.has(f));
}

export function firstViewPreload(views = FIRST_VIEWS) {
  // the script under assets/ with its content's hash in its name: cached like the app's code (a
  // revalidation on each reload held the deferred module script behind it)
  let script = { fileName: '', source: '' };
  return {
    name: 'loupe-first-view-preload',
    apply: 'build',
    configResolved(config) {
      const source = readFileSync(join(config.root, 'first-page.js'), 'utf8'); // src/renderer in both builds
      const hash = createHash('sha256').update(source).digest('base64url').slice(0, 8);
      script = { fileName: `assets/first-page-${hash}.js`, source };
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: script.fileName, source: script.source });
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        if (!ctx.bundle) return [];
        return [
          { tag: 'script', attrs: { src: `./${script.fileName}`, defer: true }, injectTo: 'head-prepend' },
          ...firstViewFiles(ctx.bundle, views).map((f) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `./${f}` },
            injectTo: 'head',
          })),
        ];
      },
    },
  };
}
