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

self.onmessage = (ev: MessageEvent<Start | { type: 'stop' }>) => {
  const m = ev.data;
  if (m.type === 'stop') {
    running = false;
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
    (self as unknown as Worker).postMessage({ type: 'positions', nodes: nodes.slice(), done });
    if (done) running = false;
    else setTimeout(step, 0);
  };
  step();
};
