import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MotionSnapshot, nodeUnder, snapshotMatrix } from './network-motion';

describe('camera gestures move a snapshot of a big network (issue 16)', () => {
  it('snapshotMatrix: the CSS matrix of a pan, a zoom about a point, a rotation; null when nothing moved', () => {
    expect(snapshotMatrix((p) => p, 800, 500)).toBeNull();
    expect(snapshotMatrix((p) => ({ x: p.x + 30, y: p.y - 12 }), 800, 500)).toBe('matrix(1, 0, 0, 1, 30, -12)');
    // zoom ×2 about (400, 250): (x, y) → (2x − 400, 2y − 250)
    expect(snapshotMatrix((p) => ({ x: 2 * p.x - 400, y: 2 * p.y - 250 }), 800, 500)).toBe('matrix(2, 0, 0, 2, -400, -250)');
    // a quarter turn about the origin
    expect(snapshotMatrix((p) => ({ x: -p.y, y: p.x }), 800, 500)).toBe('matrix(0, 1, -1, 0, 0, 0)');
    // a point the map cannot place (an empty viewport's NaN): no transform rather than a broken one
    expect(snapshotMatrix(() => ({ x: NaN, y: 0 }), 800, 500)).toBeNull();
  });

  it('nodeUnder: the nearest node whose disc holds the point, the top one among equals; small nodes are hit within a few pixels', () => {
    const nodes = [
      { key: 'a', x: 100, y: 100, r: 10 },
      { key: 'b', x: 112, y: 100, r: 10 },
      { key: 'c', x: 300, y: 300, r: 0.5 },
    ];
    expect(nodeUnder({ x: 103, y: 100 }, nodes)).toBe('a');
    expect(nodeUnder({ x: 110, y: 100 }, nodes)).toBe('b');
    expect(nodeUnder({ x: 106, y: 100 }, nodes)).toBe('b'); // as near to both: b is drawn over a
    expect(nodeUnder({ x: 302, y: 301 }, nodes)).toBe('c');
    expect(nodeUnder({ x: 200, y: 200 }, nodes)).toBeNull();
    expect(nodeUnder({ x: 0, y: 0 }, [])).toBeNull();
  });

  describe('MotionSnapshot', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    function setup() {
      let css: string | null = null;
      const log: string[] = [];
      const host = {
        moved: null as string | null,
        transformNow: () => host.moved,
        setTransform: (c: string | null) => {
          css = c;
          log.push(`transform ${c ?? 'none'}`);
        },
        render: () => log.push('render'),
      };
      const m = new MotionSnapshot(host, 160);
      return { m, host, log, css: () => css };
    }

    it('while the camera moves the drawing is transformed, not drawn; once still for a moment sigma draws it in full, and the transform goes when it has', () => {
      const { m, host, log, css } = setup();
      host.moved = 'matrix(1, 0, 0, 1, 5, 0)';
      m.cameraMoved();
      vi.advanceTimersByTime(100);
      host.moved = 'matrix(1, 0, 0, 1, 9, 0)';
      m.cameraMoved();
      vi.advanceTimersByTime(100);
      expect(log).toEqual(['transform matrix(1, 0, 0, 1, 5, 0)', 'transform matrix(1, 0, 0, 1, 9, 0)']);
      expect(m.moved).toBe(true);
      vi.advanceTimersByTime(60); // 160 ms after the last move
      expect(log.at(-1)).toBe('render');
      // the transform stays until the full drawing is on the canvases (no jump back in between)
      expect(css()).toBe('matrix(1, 0, 0, 1, 9, 0)');
      m.rendered();
      expect(css()).toBeNull();
      expect(m.moved).toBe(false);
      vi.advanceTimersByTime(1000);
      expect(log.filter((l) => l === 'render')).toHaveLength(1);
    });

    it('a camera update that lands where sigma drew needs no transform and no drawing', () => {
      const { m, log } = setup();
      m.cameraMoved();
      vi.advanceTimersByTime(1000);
      expect(log).toEqual(['transform none']);
      expect(m.moved).toBe(false);
    });

    it('a drawing made for another reason (the layout, a filter) clears the transform and the pending redraw', () => {
      const { m, host, log } = setup();
      host.moved = 'matrix(2, 0, 0, 2, -400, -250)';
      m.cameraMoved();
      m.rendered();
      vi.advanceTimersByTime(1000);
      expect(log).toEqual(['transform matrix(2, 0, 0, 2, -400, -250)', 'transform none']);
    });

    it('flush asks for the drawing at once, only when the snapshot is moved; dispose cancels the pending one', () => {
      const { m, host, log } = setup();
      m.flush();
      expect(log).toEqual([]);
      host.moved = 'matrix(1, 0, 0, 1, 0, 3)';
      m.cameraMoved();
      m.flush();
      expect(log.at(-1)).toBe('render');
      const other = setup();
      other.host.moved = 'matrix(1, 0, 0, 1, 0, 3)';
      other.m.cameraMoved();
      other.m.dispose();
      vi.advanceTimersByTime(1000);
      expect(other.log).not.toContain('render');
    });
  });

  it('while a button is held (a drag) a short pause does not draw; a longer one does, and letting go draws soon after', () => {
    vi.useFakeTimers();
    try {
      let renders = 0;
      let held = true;
      const m = new MotionSnapshot(
        { transformNow: () => 'matrix(1, 0, 0, 1, 4, 0)', setTransform: () => {}, render: () => renders++, holding: () => held },
        160,
        600,
      );
      m.cameraMoved();
      vi.advanceTimersByTime(300);
      expect(renders).toBe(0);
      vi.advanceTimersByTime(300);
      expect(renders).toBe(1); // held still for 600 ms: the drawing catches up
      m.rendered();
      m.cameraMoved();
      vi.advanceTimersByTime(100);
      held = false;
      m.released();
      vi.advanceTimersByTime(159);
      expect(renders).toBe(1);
      vi.advanceTimersByTime(1);
      expect(renders).toBe(2);
      // released with nothing moved: nothing to draw
      m.rendered();
      m.released();
      vi.advanceTimersByTime(1000);
      expect(renders).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the settle delay is a pause of the hand, not of the frames: continuous updates never draw', () => {
    vi.useFakeTimers();
    try {
      let renders = 0;
      let n = 0;
      const m = new MotionSnapshot(
        { transformNow: () => `matrix(1, 0, 0, 1, ${++n}, 0)`, setTransform: () => {}, render: () => renders++ },
        160,
      );
      for (let i = 0; i < 120; i++) {
        m.cameraMoved();
        vi.advanceTimersByTime(16);
      }
      expect(renders).toBe(0);
      vi.advanceTimersByTime(160);
      expect(renders).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
