/**
 * ForceAtlas2 in a worker (the network view). graphology-layout-forceatlas2 ships a supervisor
 * whose worker is built from a Blob URL, which the renderer's CSP (`script-src 'self'`, no
 * `worker-src`) refuses; this worker is a file of the app itself (bundled by Vite, served from
 * 'self'), so the CSP stays as it is. It runs the library's own iteration on the matrices the view
 * sends, and posts the node matrix back after every batch of iterations.
 */
import iterate from 'graphology-layout-forceatlas2/iterate.js';

interface Start {
  type: 'start';
  nodes: Float32Array;
  edges: Float32Array;
  settings: Record<string, unknown>;
  /** stop after this long (ms) */
  budgetMs: number;
}

let running = false;
/** the next batch, run when the view has drawn the last positions (it asks with 'more') */
let next: (() => void) | null = null;

self.onmessage = (ev: MessageEvent<Start | { type: 'stop' } | { type: 'more' }>) => {
  const m = ev.data;
  if (m.type === 'stop') {
    running = false;
    return;
  }
  if (m.type === 'more') {
    const f = next;
    next = null;
    f?.();
    return;
  }
  running = true;
  const { nodes, edges, settings } = m;
  const until = performance.now() + m.budgetMs;
  const step = (): void => {
    if (!running) return;
    const t = performance.now();
    // iterate for ~30 ms, then show the positions
    do iterate(settings, nodes, edges);
    while (performance.now() - t < 30);
    const done = performance.now() >= until;
    // eslint-disable-next-line no-restricted-syntax -- a module worker's global is the worker scope; the DOM lib types `self` as a Window
    (self as unknown as Worker).postMessage({ type: 'positions', nodes: nodes.slice(), done });
    // wait for the view: with 10,000 nodes a frame can take longer than a batch, and positions
    // posted faster than they are drawn queue up and starve the page
    if (done) running = false;
    else next = step;
  };
  step();
};
