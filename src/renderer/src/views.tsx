/**
 * The views, each its own chunk of the build, loaded when first shown (React.lazy); the first view
 * is drawn with only its own code, and the others are fetched in the background once it is up, so
 * switching views does not wait (docs/renderer.md "Code splitting"). A new view is one line here
 * (and its entry in VIEWS, stores/ui.ts): `name: view(() => import('./features/NameView'), 'NameView')`.
 */
import { lazy, useEffect, type ComponentType, type LazyExoticComponent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { settleFirstView } from './first-view';
import type { ViewId } from './stores/ui';

type Loader = () => Promise<Record<string, unknown>>;
const loaders: Loader[] = [];

/** A lazily loaded view: the module `load` gives, its export `name`. */
function view(load: Loader, name: string): LazyExoticComponent<ComponentType> {
  loaders.push(load);
  return lazy(() => load().then((m) => ({ default: m[name] as ComponentType })));
}

export const VIEW_COMPONENTS: Record<ViewId, LazyExoticComponent<ComponentType>> = {
  search: view(() => import('./features/SearchView'), 'SearchView'),
  profiles: view(() => import('./features/ProfilesView'), 'ProfilesView'),
  comments: view(() => import('./features/CommentsView'), 'CommentsView'),
  watchlists: view(() => import('./features/WatchlistsView'), 'WatchlistsView'),
  collect: view(() => import('./features/collect/CollectView'), 'CollectView'),
  library: view(() => import('./features/LibraryView'), 'LibraryView'),
  analysis: view(() => import('./features/analysis/AnalysisView'), 'AnalysisView'),
  usage: view(() => import('./features/UsageView'), 'UsageView'),
  explorer: view(() => import('./features/ExplorerView'), 'ExplorerView'),
  settings: view(() => import('./features/SettingsView'), 'SettingsView'),
};

const preloaded = new WeakSet<Loader[]>();
/**
 * Fetches every view's chunk in the background (once), after the first view is drawn and the
 * page's first queries are answered (`busy()` says whether any is still out, checked for up to
 * 5 s): fetched earlier, ~20 chunks competed with the first rows for the host (one thread,
 * answering the first page) and for the page's main thread (issue 30 "Opening").
 */
export function preloadViews(busy: () => boolean = () => false, loads: Loader[] = loaders): void {
  if (preloaded.has(loads)) return;
  preloaded.add(loads);
  const idle = (fn: () => void): void => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(fn, { timeout: 2000 });
    else setTimeout(fn, 200);
  };
  const t0 = Date.now();
  const when = (): void => {
    if (busy() && Date.now() - t0 < 5000) setTimeout(when, 100);
    else idle(() => loads.forEach((load) => void load().catch(() => undefined)));
  };
  when();
}

/**
 * Rendered beside the first view inside its Suspense: once the view itself is drawn, the reads that
 * waited for it (first-view.ts) and the others' code follow.
 */
export function PreloadViews(): null {
  const qc = useQueryClient();
  useEffect(() => {
    const busy = () => qc.isFetching() > 0;
    settleFirstView(busy);
    preloadViews(busy);
  }, [qc]);
  return null;
}
