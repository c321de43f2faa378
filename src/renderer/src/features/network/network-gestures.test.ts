import type Graph from 'graphology';
import type Sigma from 'sigma';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { snapshotGestures } from './network-gestures';

/** the slice of an event emitter sigma's camera and captor are (the renderer imports no Node built-ins) */
class EventEmitter {
  private ls = new Map<string, Array<(...a: unknown[]) => void>>();
  on(e: string, f: (...a: unknown[]) => void): this {
    this.ls.set(e, [...(this.ls.get(e) ?? []), f]);
    return this;
  }
  removeListener(e: string, f: (...a: unknown[]) => void): this {
    this.ls.set(
      e,
      (this.ls.get(e) ?? []).filter((x) => x !== f),
    );
    return this;
  }
  listeners(e: string): Array<(...a: unknown[]) => void> {
    return [...(this.ls.get(e) ?? [])];
  }
  listenerCount(e: string): number {
    return this.ls.get(e)?.length ?? 0;
  }
  emit(e: string, ...a: unknown[]): boolean {
    for (const f of this.listeners(e)) f(...a);
    return true;
  }
}

interface State {
  x: number;
  y: number;
  ratio: number;
  angle: number;
}

/** A stand-in for sigma: the public pieces snapshotGestures uses, with sigma's own listeners in place. */
function fakeSigma() {
  const W = 800;
  const H = 500;
  const S = 500; // viewport pixels per framed-graph unit at ratio 1
  const camera = Object.assign(new EventEmitter(), {
    state: { x: 0.5, y: 0.5, ratio: 1, angle: 0 } as State,
    getState(): State {
      return { ...camera.state };
    },
    setState(s: Partial<State>) {
      Object.assign(camera.state, s);
      camera.emit('updated', camera.getState());
    },
  });
  const captor = Object.assign(new EventEmitter(), { isMouseDown: false });
  const events = new EventEmitter();
  const count = { renders: 0, hoverPicks: 0, downPicks: 0, upPicks: 0, wheelPicks: 0 };
  // what sigma registers in its constructor
  camera.on('updated', () => count.renders++);
  captor.on('mousemove', () => count.hoverPicks++);
  captor.on('mousedown', () => count.downPicks++);
  captor.on('mouseup', () => count.upPicks++);
  captor.on('wheel', () => count.wheelPicks++);
  const canvases = {
    edges: { style: {} as Record<string, string> },
    nodes: { style: {} as Record<string, string> },
    labels: { style: {} as Record<string, string> },
    mouse: { style: {} as Record<string, string> },
  };
  const nodes: Record<string, { x: number; y: number; size: number; hidden?: boolean }> = {
    a: { x: 0.5, y: 0.5, size: 10 },
    b: { x: 0.7, y: 0.5, size: 4 },
    h: { x: 0.52, y: 0.5, size: 10, hidden: true },
  };
  const sigma = {
    getCamera: () => camera,
    getMouseCaptor: () => captor,
    getCanvases: () => canvases,
    getDimensions: () => ({ width: W, height: H }),
    framedGraphToViewport: (p: { x: number; y: number }, o: { cameraState?: State } = {}) => {
      const s = o.cameraState ?? camera.state;
      return { x: W / 2 + ((p.x - s.x) * S) / s.ratio, y: H / 2 - ((p.y - s.y) * S) / s.ratio };
    },
    viewportToFramedGraph: (v: { x: number; y: number }, o: { cameraState?: State } = {}) => {
      const s = o.cameraState ?? camera.state;
      return { x: s.x + ((v.x - W / 2) * s.ratio) / S, y: s.y - ((v.y - H / 2) * s.ratio) / S };
    },
    getNodeDisplayData: (k: string) => nodes[k],
    scaleSize: (size: number, ratio: number) => size / Math.sqrt(ratio),
    on: (e: string, f: () => void) => events.on(e, f),
  };
  const graph = { forEachNode: (f: (k: string) => void) => Object.keys(nodes).forEach(f) };
  const g = snapshotGestures(sigma as unknown as Sigma, graph as unknown as Graph);
  /** sigma drew the graph at the current camera */
  const draw = (): void => void events.emit('afterRender');
  const move = (buttons = 0) => captor.emit('mousemove', { x: 1, y: 1, original: { buttons } });
  return { g, camera, captor, canvases, count, draw, move };
}

describe('snapshotGestures: sigma wired to move a snapshot (issue 16)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a camera move transforms the drawn layers (not the mouse layer) instead of a render; sigma renders once the camera is still, and the transform goes when it has drawn', () => {
    const f = fakeSigma();
    f.camera.setState({ x: 0.6 }); // 0.1 to the right: the picture moves 50 px left
    expect(f.count.renders).toBe(0);
    expect(f.canvases.edges.style.transform).toBe('matrix(1, 0, 0, 1, -50, 0)');
    expect(f.canvases.nodes.style.transform).toBe('matrix(1, 0, 0, 1, -50, 0)');
    expect(f.canvases.labels.style.transform).toBe('matrix(1, 0, 0, 1, -50, 0)');
    expect(f.canvases.mouse.style.transform).toBeUndefined();
    f.camera.setState({ ratio: 0.5 }); // zoomed in ×2 about the centre as well
    expect(f.canvases.nodes.style.transform).toBe('matrix(2, 0, 0, 2, -500, -250)');
    expect(f.g.moved()).toBe(true);
    vi.advanceTimersByTime(160);
    expect(f.count.renders).toBe(1);
    expect(f.canvases.nodes.style.transform).toBe('matrix(2, 0, 0, 2, -500, -250)');
    f.draw();
    expect(f.canvases.nodes.style.transform).toBe('');
    expect(f.g.moved()).toBe(false);
    // the next gesture starts from that drawing
    f.camera.setState({ x: 0.61 });
    expect(f.canvases.nodes.style.transform).toBe('matrix(1, 0, 0, 1, -10, 0)');
  });

  it('no pixel picking while a button is down or the snapshot is moved; hovering a still drawing picks as before', () => {
    const f = fakeSigma();
    f.move();
    expect(f.count.hoverPicks).toBe(1);
    f.move(1); // dragging
    expect(f.count.hoverPicks).toBe(1);
    f.camera.setState({ x: 0.55 });
    f.move();
    f.captor.emit('mousedown', { x: 1, y: 1 });
    f.captor.emit('mouseup', { x: 1, y: 1 });
    f.captor.emit('wheel', { x: 1, y: 1, delta: 1 });
    expect(f.count).toMatchObject({ hoverPicks: 1, downPicks: 0, upPicks: 0, wheelPicks: 0 });
    vi.advanceTimersByTime(1000);
    f.draw();
    f.move();
    f.captor.emit('mousedown', { x: 1, y: 1 });
    f.captor.emit('mouseup', { x: 1, y: 1 });
    f.captor.emit('wheel', { x: 1, y: 1, delta: 1 });
    expect(f.count).toMatchObject({ hoverPicks: 2, downPicks: 1, upPicks: 1, wheelPicks: 1 });
  });

  it('a drag held still waits longer before the full render; letting go renders soon after', () => {
    const f = fakeSigma();
    f.captor.isMouseDown = true;
    f.camera.setState({ x: 0.55 });
    vi.advanceTimersByTime(400);
    expect(f.count.renders).toBe(0);
    f.captor.isMouseDown = false;
    f.captor.emit('mouseup', { x: 1, y: 1 });
    vi.advanceTimersByTime(160);
    expect(f.count.renders).toBe(1);
  });

  it('nodeAt: the node under a point at the current camera, from the nodes positions (hidden nodes are not hit)', () => {
    const f = fakeSigma();
    f.camera.setState({ x: 0.6 });
    // a at framed 0.5 → 400 + (0.5 − 0.6) × 500 = 350; b at 450
    expect(f.g.nodeAt({ x: 352, y: 251 })).toBe('a');
    expect(f.g.nodeAt({ x: 360, y: 250 })).toBe('a'); // h (hidden) is nearer
    expect(f.g.nodeAt({ x: 451, y: 250 })).toBe('b');
    expect(f.g.nodeAt({ x: 400, y: 400 })).toBeNull();
  });

  it('dispose leaves no timer and no listener of its own', () => {
    const f = fakeSigma();
    f.camera.setState({ x: 0.6 });
    f.g.dispose();
    vi.advanceTimersByTime(1000);
    expect(f.count.renders).toBe(0);
    expect(f.camera.listenerCount('updated')).toBe(0);
  });
});
