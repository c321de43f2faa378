import { describe, expect, it } from 'vitest';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { singleFlight } from './single-flight';
import { SpendButton } from '../components/cells';

describe('one press = one action (issue 14 #1)', () => {
  it('a spend button is type="button" unless it is the form\'s submit button (then it has no click handler)', () => {
    const plain = renderToStaticMarkup(createElement(SpendButton, { label: 'Search', price: '20 credits', onClick: () => {} }));
    expect(plain).toMatch(/^<button type="button"/);
    const submit = renderToStaticMarkup(createElement(SpendButton, { label: 'Search', price: '20 credits', submit: true }));
    expect(submit).toMatch(/^<button type="submit"/);
  });

  it('singleFlight: a second call while the first runs starts nothing', async () => {
    let runs = 0;
    let release!: () => void;
    const f = singleFlight(async (n: number) => {
      runs++;
      await new Promise<void>((r) => (release = r));
      return n;
    }, null);
    const a = f(1);
    const b = f(2); // the form's submit right after the click
    expect(await b).toBeNull();
    expect(f.busy()).toBe(true);
    release();
    expect(await a).toBe(1);
    expect(runs).toBe(1);
    const c = f(3);
    release();
    expect(await c).toBe(3);
    expect(runs).toBe(2);
  });
});
