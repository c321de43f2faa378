/**
 * The views, each its own chunk of the build, loaded when first shown (React.lazy); the first view
 * is drawn with only its own code, and the others are fetched in the background once it is up, so
 * switching views does not wait (docs/renderer.md "Code splitting"). A new view is one line here
 * (and its entry in VIEWS, stores/ui.ts): `name: view(() => import('./features/NameView'), 'NameView')`.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
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

let preloaded = false;
/** Fetches every view's chunk in the background (once), after the first view is drawn. */
export function preloadViews(): void {
  if (preloaded) return;
  preloaded = true;
  const idle = (fn: () => void): void => {
    if ('requestIdleCallback' in window) window.requestIdleCallback(fn, { timeout: 2000 });
    else setTimeout(fn, 200);
  };
  idle(() => {
    for (const load of loaders) void load().catch(() => undefined);
  });
}
