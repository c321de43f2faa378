/**
 * Wires network-motion.ts to a sigma instance (the network view's big drawings). Types only from
 * sigma and graphology, so it is tested with a stand-in (network-gestures.test.ts).
 */
import type Graph from 'graphology';
import type Sigma from 'sigma';
import type { CameraState, MouseCoords } from 'sigma/types';
import { MotionSnapshot, nodeUnder, snapshotMatrix, type Point, type ScreenNode } from './network-motion';

export interface Gestures {
  /** whether the canvases show a moved snapshot */
  moved(): boolean;
  /** the node under a point of the viewport at the current camera, from the nodes' positions */
  nodeAt(p: Point): string | null;
  dispose(): void;
}

/**
 * Camera gestures over a big network (network-motion.ts): sigma's own camera listener (a full
 * render next frame) is replaced by one that moves the last drawing with a CSS transform and asks
 * for the full render once the camera has been still for a moment; hover picking (sigma reads a
 * pixel back from the GPU on every mouse move, which waits for the frame in flight) is skipped
 * while a button is down or the snapshot is moved. Only sigma's public API and its event emitters.
 */
export function snapshotGestures(sigma: Sigma, graph: Graph): Gestures {
  const camera = sigma.getCamera();
  const layers = Object.entries(sigma.getCanvases())
    .filter(([name]) => name !== 'mouse')
    .map(([, c]) => c);
  for (const c of layers) {
    c.style.transformOrigin = '0 0';
    c.style.willChange = 'transform';
  }
  let drawn: CameraState = camera.getState();
  const transformNow = (): string | null => {
    const { width, height } = sigma.getDimensions();
    const now = camera.getState();
    return snapshotMatrix(
      (p) => sigma.framedGraphToViewport(sigma.viewportToFramedGraph(p, { cameraState: drawn }), { cameraState: now }),
      width,
      height,
    );
  };
  const sigmaListeners = camera.listeners('updated');
  for (const l of sigmaListeners) camera.removeListener('updated', l);
  const captor = sigma.getMouseCaptor();
  const motion = new MotionSnapshot({
    transformNow,
    holding: () => captor.isMouseDown,
    setTransform(css) {
      for (const c of layers) c.style.transform = css ?? '';
    },
    render() {
      for (const l of sigmaListeners) l(camera.getState());
    },
  });
  const onCamera = (): void => motion.cameraMoved();
  camera.on('updated', onCamera);
  sigma.on('afterRender', () => {
    drawn = camera.getState();
    motion.rendered();
  });

  // sigma's listeners that pick what is under the pointer (a pixel read back from the GPU): on
  // every move for the hover, and on press, release and wheel for its down/up/wheel events (the
  // view uses none); the click keeps its own (`clicked` above)
  const gate = (event: 'mousemove' | 'mousedown' | 'mouseup', skip: (e: MouseCoords) => boolean): void => {
    const picks = captor.listeners(event);
    for (const l of picks) captor.removeListener(event, l);
    captor.on(event, (e: MouseCoords) => {
      if (!skip(e)) for (const l of picks) l(e);
    });
  };
  gate('mousemove', (e) => motion.moved || !!(e.original as MouseEvent).buttons);
  gate('mousedown', () => motion.moved);
  gate('mouseup', () => motion.moved);
  captor.on('mouseup', () => motion.released());
  const wheelPicks = captor.listeners('wheel');
  for (const l of wheelPicks) captor.removeListener('wheel', l);
  captor.on('wheel', (e) => {
    if (!motion.moved) for (const l of wheelPicks) l(e);
  });

  return {
    moved: () => motion.moved,
    // the node under a point of the viewport at the current camera, from the nodes' positions
    nodeAt(p) {
      const now = camera.getState();
      const o = sigma.framedGraphToViewport({ x: 0, y: 0 }, { cameraState: now });
      const ex = sigma.framedGraphToViewport({ x: 1, y: 0 }, { cameraState: now });
      const ey = sigma.framedGraphToViewport({ x: 0, y: 1 }, { cameraState: now });
      const nodes: ScreenNode[] = [];
      graph.forEachNode((key) => {
        const d = sigma.getNodeDisplayData(key);
        if (!d || d.hidden) return;
        nodes.push({
          key,
          x: o.x + (ex.x - o.x) * d.x + (ey.x - o.x) * d.y,
          y: o.y + (ex.y - o.y) * d.x + (ey.y - o.y) * d.y,
          r: sigma.scaleSize(d.size, now.ratio),
        });
      });
      return nodeUnder(p, nodes);
    },
    dispose() {
      motion.dispose();
      camera.removeListener('updated', onCamera);
    },
  };
}
