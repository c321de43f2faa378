import { describe, expect, it } from 'vitest';
import type { DoorAnswer, ResultBridge } from '../../../shared/errors';
import { ApiError, electronBridge, errorText } from './api';

// The renderer's side of the IPC door: the preload passes typed results, the client turns a failed
// one back into an ApiError with the same kind — no JSON inside a message, no regular expression.
function preload(answer: DoorAnswer | Error): ResultBridge {
  return {
    call: (async () => {
      if (answer instanceof Error) throw answer;
      return answer;
    }) as ResultBridge['call'],
    onEvent: () => () => {},
  };
}

async function failure(b: ResultBridge): Promise<ApiError> {
  try {
    await electronBridge(b).call('library.query', { after: 'garbage!' });
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('did not fail');
}

describe('the Electron door in the renderer', () => {
  it('passes a result through', async () => {
    await expect(
      electronBridge(preload({ ok: true, result: { total: 0, rows: [], next: null } })).call('library.query', {}),
    ).resolves.toEqual({ total: 0, rows: [], next: null });
  });

  it('a user mistake (a bad library cursor) is an ApiError of kind validation with its sentence', async () => {
    const e = await failure(preload({ ok: false, error: { kind: 'validation', message: 'invalid cursor' } }));
    expect(e.kind).toBe('validation');
    expect(errorText(e)).toBe('invalid cursor');
  });

  it('keeps the type and request id of a refusal', async () => {
    const e = await failure(
      preload({ ok: false, error: { kind: 'api', type: 'INSUFFICIENT_CREDITS', requestId: 'req_1', message: 'Out of credits' } }),
    );
    expect([e.kind, e.type, e.requestId]).toEqual(['api', 'INSUFFICIENT_CREDITS', 'req_1']);
    expect(errorText(e)).toBe('Out of credits (request req_1)');
  });

  it('an unknown kind or a failed IPC is internal', async () => {
    expect((await failure(preload({ ok: false, error: { kind: 'from_the_future' as 'internal', message: 'x' } }))).kind).toBe('internal');
    const gone = await failure(preload(new Error('Error invoking remote method: object has been destroyed')));
    expect(gone.kind).toBe('internal');
    expect(gone.message).toMatch(/object has been destroyed/);
  });
});
