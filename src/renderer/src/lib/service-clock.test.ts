import { afterEach, describe, expect, it } from 'vitest';
import { relative, serviceNow, setServiceClock } from './format';

afterEach(() => setServiceClock(null));

describe('times on the service clock (issue 14 #9)', () => {
  it('a post published after the sandbox clock was advanced is "ago", not "in 2 d"', () => {
    const real = Date.now();
    const sandboxNow = real + 2 * 86_400_000; // advanced two days
    const post = sandboxNow - 3 * 3_600_000;
    expect(relative(post)).toBe('in 2 d'); // the computer's clock: the bug
    setServiceClock({ now: sandboxNow, at: real, timeScale: 1 });
    expect(relative(post)).toBe('3 h ago');
  });
  it('a sandbox that runs faster keeps running faster', () => {
    setServiceClock({ now: 1_000_000, at: 0, timeScale: 60 });
    expect(serviceNow(10_000)).toBe(1_000_000 + 600_000);
  });
});
