/**
 * The network view's drawing: a graphology graph of the view's nodes and edges drawn by sigma.js
 * (WebGL), laid out by ForceAtlas2 in a worker of the app's own (network-fa2.worker.ts), with
 * reducers for the edge-weight filter, the search and the selection.
 */
import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import { assignLayoutChanges } from 'graphology-layout-forceatlas2/helpers.js';
import Sigma from 'sigma';
import { EdgeLineProgram } from 'sigma/rendering';
import type { NetworkView } from '../../../../shared/contract-network';
import { snapshotGestures } from './network-gestures';
import { showName } from '../../lib/words';
import type { Point } from './network-motion';

/** Whether this browser can draw WebGL at all (headless Chromium without GPU may not). */
export function webglAvailable(): boolean {
  try {
    const c = document.createElement('canvas');
    return !!(c.getContext('webgl2') ?? c.getContext('webgl'));
  } catch {
    return false;
  }
}

export interface DrawState {
  minWeight: number;
  /** node keys matching the search (empty: no search) */
  matches: ReadonlySet<string>;
  selected: string | null;
}

export interface Drawing {
  sigma: Sigma;
  graph: Graph;
  update(s: DrawState): void;
  /** where a node is on screen (CSS pixels inside the container), for tests and the search jump */
  viewportOf(key: string): { x: number; y: number } | null;
  focus(key: string): void;
  stop(): void;
  kill(): void;
}

function css(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** Lay the nodes on a golden-angle spiral (heaviest in the middle) so the first frame is readable. */
function spiral(i: number): { x: number; y: number } {
  const r = Math.sqrt(i + 1) * 10;
  const a = i * 2.399963;
  return { x: r * Math.cos(a), y: r * Math.sin(a) };
}

/**
 * ForceAtlas2's node and edge matrices (graphology-layout-forceatlas2's `graphToByteArrays`
 * layout: 10 floats a node, 3 an edge; a node's mass grows with its weighted degree), the edges
 * taken from the view: the drawn graph holds none yet while the layout runs.
 */
function layoutMatrices(graph: Graph, view: NetworkView): { nodes: Float32Array; edges: Float32Array } {
  const PPN = 10;
  const nodes = new Float32Array(graph.order * PPN);
  const index = new Map<string, number>();
  let j = 0;
  graph.forEachNode((key, a) => {
    index.set(key, j);
    nodes[j] = Number(a.x);
    nodes[j + 1] = Number(a.y);
    nodes[j + 6] = 1; // mass
    nodes[j + 7] = 1; // convergence
    nodes[j + 8] = Number(a.size) || 1;
    j += PPN;
  });
  const edges = new Float32Array(view.edges.length * 3);
  let k = 0;
  for (const e of view.edges) {
    const s = index.get(e.source);
    const t = index.get(e.target);
    if (s === undefined || t === undefined || s === t) continue;
    const w = e.weight || 1;
    nodes[s + 6] += w;
    nodes[t + 6] += w;
    edges[k] = s;
    edges[k + 1] = t;
    edges[k + 2] = w;
    k += 3;
  }
  return { nodes, edges: edges.slice(0, k) };
}

export function draw(
  container: HTMLElement,
  view: NetworkView,
  on: {
    select: (key: string) => void;
    layout: (running: boolean) => void;
    rendered: () => void;
    /** sigma has drawn the edges once (they join when the layout ends) */
    edgesDrawn?: () => void;
  },
): Drawing {
  const graph = new Graph({ type: view.directed ? 'directed' : 'undirected', multi: false });
  const hashtag = css('--accent', '#2f6fb3');
  const account = css('--pos', '#1f7a45');
  const edgeColor = css('--line', '#cccccc');
  const maxW = Math.max(1, ...view.nodes.map((n) => n.weight));
  view.nodes.forEach((n, i) => {
    graph.addNode(n.key, {
      label: showName(n.label),
      ...spiral(i),
      size: 2 + 10 * Math.sqrt(n.weight / maxW),
      color: n.kind === 'hashtag' ? hashtag : account,
      weight: n.weight,
    });
  });
  // Edges join the drawing when the layout ends (at once when there is none): while ForceAtlas2
  // runs, every batch of positions makes sigma process the whole graph again, and with 10,000
  // nodes and ~100k edges that took seconds per batch and starved the page (the layout itself
  // uses every edge, in the worker).
  let edgesIn = false;
  let edgesPending = false;
  const addEdges = (): void => {
    if (edgesIn) return;
    edgesIn = true;
    edgesPending = true;
    for (const e of view.edges)
      if (e.source !== e.target)
        graph.mergeEdge(e.source, e.target, { weight: e.weight, size: Math.min(5, 0.5 + Math.log1p(e.weight) / 2), color: edgeColor });
  };
  const big = view.nodes.length > 2_000 || view.edges.length > 5_000;
  // camera gestures move a snapshot of the drawing (network-motion.ts) instead of drawing every frame
  const snapshotMotion = view.nodes.length > 500 || view.edges.length > 2_000;

  const sigma = new Sigma(graph, container, {
    defaultEdgeType: view.directed ? 'arrow' : 'line',
    // a big network's edges as 1-pixel lines (gl.LINES, 2 vertices an edge) instead of the default
    // antialiased quads, which software WebGL fills pixel by pixel
    ...(big && !view.directed ? { edgeProgramClasses: { line: EdgeLineProgram } } : {}),
    labelColor: { color: css('--text', '#1d1d1b') },
    labelRenderedSizeThreshold: 8,
    zIndex: true,
  });
  const motion = snapshotMotion ? snapshotGestures(sigma, graph) : null;
  // while the snapshot is moved, sigma's picking (the last drawing's) is stale: what the user sees
  // under the pointer is found from the nodes' positions
  const clicked = (node: string | null, at: Point): void => {
    const k = motion?.moved() ? motion.nodeAt(at) : node;
    if (k) on.select(k);
  };
  sigma.on('clickNode', ({ node, event }) => clicked(node, event));
  sigma.on('clickStage', ({ event }) => clicked(null, event));
  sigma.on('afterRender', () => {
    if (edgesPending) {
      edgesPending = false;
      on.edgesDrawn?.();
    }
    on.rendered();
  });

  // ForceAtlas2 in the worker for a few seconds (the positions arrive every ~30 ms)
  let worker: Worker | null = null;
  if (graph.order > 1) {
    const { nodes, edges } = layoutMatrices(graph, view);
    worker = new Worker(new URL('./network-fa2.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (ev: MessageEvent<{ type: 'positions'; nodes: Float32Array; done: boolean }>) => {
      assignLayoutChanges(graph, ev.data.nodes, null);
      if (ev.data.done) {
        addEdges();
        on.layout(false);
      }
      // the next batch once these positions are on screen
      else requestAnimationFrame(() => worker?.postMessage({ type: 'more' }));
    };
    worker.onerror = () => {
      addEdges();
      on.layout(false);
    };
    const settings = {
      ...forceAtlas2.inferSettings(graph),
      adjustSizes: false,
      edgeWeightInfluence: 1,
      linLogMode: false,
      outboundAttractionDistribution: false,
      barnesHutTheta: 0.5,
    };
    worker.postMessage({ type: 'start', nodes, edges, settings, budgetMs: Math.min(8000, 1500 + graph.order) }, [
      nodes.buffer,
      edges.buffer,
    ]);
    on.layout(true);
  } else addEdges();

  let state: DrawState = { minWeight: 1, matches: new Set(), selected: null };
  sigma.setSetting('edgeReducer', (_e, a) => (Number(a.weight) < state.minWeight ? { ...a, hidden: true } : a));
  sigma.setSetting('nodeReducer', (n, a) => {
    const hit = state.matches.size > 0 && state.matches.has(n);
    const dim = state.matches.size > 0 && !hit && n !== state.selected;
    if (n === state.selected) return { ...a, highlighted: true, forceLabel: true, zIndex: 2 };
    if (hit) return { ...a, highlighted: true, forceLabel: true, zIndex: 1 };
    return dim ? { ...a, color: edgeColor, label: '', zIndex: 0 } : a;
  });

  const stop = (): void => {
    worker?.postMessage({ type: 'stop' });
    worker?.terminate();
    worker = null;
    addEdges();
    on.layout(false);
  };
  return {
    sigma,
    graph,
    update(s) {
      state = s;
      sigma.refresh();
    },
    viewportOf(key) {
      if (!graph.hasNode(key)) return null;
      const d = sigma.getNodeDisplayData(key);
      return d ? sigma.framedGraphToViewport(d) : null;
    },
    focus(key) {
      const d = sigma.getNodeDisplayData(key);
      if (d) void sigma.getCamera().animate({ x: d.x, y: d.y, ratio: 0.4 }, { duration: 400 });
    },
    stop,
    kill() {
      stop();
      motion?.dispose();
      sigma.kill();
    },
  };
}
