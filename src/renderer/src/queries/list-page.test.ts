/** Issue 14: the Library's pages are asked for lean (no raw record per row); the drawer reads it through library.item. */
import { describe, expect, it, vi } from 'vitest';

vi.mock('../lib/api', () => ({ api: { call: vi.fn(async () => ({ rows: [], next: null, total: 0 })) } }));

import { api } from '../lib/api';
import { listPage } from './hooks';

describe('the Library asks for lean pages', () => {
  it('library.query with lean: true and the query as given', async () => {
    await listPage({ text: 'bread', limit: 200, after: 'c1' });
    expect(api.call).toHaveBeenCalledWith('library.query', { text: 'bread', limit: 200, after: 'c1', lean: true });
  });
});
