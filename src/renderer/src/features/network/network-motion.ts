/**
 * Camera gestures over a big network drawn from a snapshot (docs/analysis.md "Networks"), as map
 * viewers do: while the camera moves (drag, wheel, inertia, the search's jump), sigma does not draw;
 * the picture it drew last is moved and scaled by a CSS transform of its canvases (the compositor's
 * work, every frame), and sigma draws the graph again, at full quality, once the camera has been
 * still for a moment. Software WebGL takes ~0.3 s to draw 10,000 nodes and ~110k edges; a transform
 * takes nothing. DOM-free, so it is tested without a browser (network-motion.test.ts).
 */

export interface Point {
  x: number;
  y: number;
}

/**
 * The CSS `matrix()` that moves what was drawn to where the camera now puts it. `toNow` maps a
 * point of the viewport as drawn to the viewport as the camera now shows it (an affine map: pan,
 * zoom and rotation), read at three corners of a `width` × `height` viewport. Null when nothing moved.
 */
export function snapshotMatrix(toNow: (p: Point) => Point, width: number, height: number): string | null {
  const w = width || 1;
  const h = height || 1;
  const o = toNow({ x: 0, y: 0 });
  const ex = toNow({ x: w, y: 0 });
  const ey = toNow({ x: 0, y: h });
  const m = [(ex.x - o.x) / w, (ex.y - o.y) / w, (ey.x - o.x) / h, (ey.y - o.y) / h, o.x, o.y];
  if (m.some((v) => !Number.isFinite(v))) return null;
  const still =
    Math.abs(m[0] - 1) < 1e-6 &&
    Math.abs(m[1]) < 1e-6 &&
    Math.abs(m[2]) < 1e-6 &&
    Math.abs(m[3] - 1) < 1e-6 &&
    Math.abs(m[4]) < 0.01 &&
    Math.abs(m[5]) < 0.01;
  return still ? null : `matrix(${m.map((v) => +v.toFixed(6)).join(', ')})`;
}

/** A node as seen on screen: centre and radius in viewport pixels. */
export interface ScreenNode {
  key: string;
  x: number;
  y: number;
  r: number;
}

/**
 * The node under a point, on the CPU (no `readPixels`): the nearest node whose disc holds the
 * point; among equally near ones the later (drawn on top). Nodes smaller than `minR` pixels are
 * hit within `minR`.
 */
export function nodeUnder(p: Point, nodes: Iterable<ScreenNode>, minR = 3): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const n of nodes) {
    const r = Math.max(minR, n.r);
    const dx = p.x - n.x;
    const dy = p.y - n.y;
    const d = dx * dx + dy * dy;
    if (d <= r * r && d <= bestD) {
      best = n.key;
      bestD = d;
    }
  }
  return best;
}

export interface MotionHost {
  /** the transform from the camera last drawn to the current one (`snapshotMatrix`), null if the same */
  transformNow(): string | null;
  /** put the transform on the drawn layers (null: none) */
  setTransform(css: string | null): void;
  /** ask sigma for a full drawing at the current camera (its own camera listener: a render next frame) */
  render(): void;
  /** whether a mouse button is held (a drag under way: the hand has not finished) */
  holding?(): boolean;
}

/**
 * The gesture's state machine. `cameraMoved` on every camera update (instead of sigma's own
 * render), `released` when the button goes up, `rendered` after every drawing sigma makes, `flush`
 * when the drawing must catch up now. The full drawing comes `settleMs` after the last update, or
 * `holdMs` while a button is held (a drag that slows down for a moment is not over; in software
 * WebGL a full drawing stalls the page for a few hundred ms).
 */
export class MotionSnapshot {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private css: string | null = null;

  constructor(
    private readonly host: MotionHost,
    /** how long the camera stays still before the full drawing (ms) */
    private readonly settleMs = 160,
    private readonly holdMs = 600,
  ) {}

  /** whether the canvases show a moved snapshot (the camera is not where sigma last drew) */
  get moved(): boolean {
    return this.css !== null;
  }

  cameraMoved(): void {
    const css = this.host.transformNow();
    this.css = css;
    this.host.setTransform(css);
    this.schedule(this.host.holding?.() ? this.holdMs : this.settleMs);
  }

  /** the button went up: the drawing `settleMs` from now unless the camera moves on (inertia) */
  released(): void {
    this.schedule(this.settleMs);
  }

  /** sigma drew the graph at the current camera: the canvases are right without a transform */
  rendered(): void {
    this.clearTimer();
    if (this.css !== null) this.host.setTransform(null);
    this.css = null;
  }

  flush(): void {
    this.clearTimer();
    if (this.css !== null) this.host.render();
  }

  dispose(): void {
    this.clearTimer();
  }

  private schedule(ms: number): void {
    this.clearTimer();
    if (this.css !== null) this.timer = setTimeout(() => this.flush(), ms);
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
