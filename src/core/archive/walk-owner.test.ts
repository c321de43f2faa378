/**
 * A walk whose process died reads `interrupted`, not `running` (issue #12, migration 0005).
 */
import { describe, it, expect, afterEach } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, migrate, openArchive, currentOwner } from './index';
import type { WalkState } from '../ports';
import { testDb } from './testing';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'loupe-owner-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function walk(id: string, over: Partial<WalkState> = {}): WalkState {
  return {
    walkId: id,
    platform: 'photo_net',
    endpoint: 'profile/posts',
    params: '{"handle":"x"}',
    cursorParam: 'cursor',
    cursor: 'sdr_c1',
    pagesDone: 1,
    creditsSpent: 20,
    itemsSeen: 12,
    status: 'running',
    stopReason: null,
    source: 'cli',
    createdAt: 1,
    updatedAt: 1,
    error: null,
    ...over,
  };
}

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid as number;
}

describe('the owner of a running walk', () => {
  it('records this process; a running walk whose owner is gone (no such pid, pid reused, no owner recorded) reads interrupted', () => {
    const a = openArchive(':memory:');
    a.saveWalk(walk('mine'));
    expect(a.getWalk('mine')).toMatchObject({ status: 'running', owner: currentOwner() });

    for (const id of ['dead', 'reused', 'legacy', 'elsewhere', 'done-dead'])
      a.saveWalk(walk(id, id === 'done-dead' ? { status: 'done' } : {}));
    const set = testDb(a).prepare('UPDATE walks SET owner_pid = ?, owner_host = ?, owner_start = ? WHERE walk_id = ?');
    const me = currentOwner();
    set.run(deadPid(), me.host, me.start.replace(/:\d+$/, ':1'), 'dead');
    set.run(deadPid(), me.host, me.start.replace(/:\d+$/, ':1'), 'done-dead');
    // the same pid as this process, but a different start: a later process got the pid
    set.run(process.pid, me.host, me.start.startsWith('linux:') ? me.start.replace(/:\d+$/, ':1') : 'ms:1', 'reused');
    set.run(null, null, null, 'legacy');
    set.run(deadPid(), `not-${hostname()}`, 'linux:other-boot:1', 'elsewhere');

    expect(a.getWalk('dead')?.status).toBe('interrupted');
    if (me.start.startsWith('linux:')) expect(a.getWalk('reused')?.status).toBe('interrupted');
    expect(a.getWalk('legacy')?.status).toBe('interrupted');
    expect(a.getWalk('elsewhere')?.status).toBe('running'); // another machine: cannot tell
    expect(a.getWalk('done-dead')?.status).toBe('done'); // only running walks change
    // nothing was written by reading
    expect((testDb(a).prepare("SELECT count(*) AS n FROM walks WHERE status = 'running'").get() as { n: number }).n).toBe(5);

    const ids = (s: WalkState[]) => s.map((w) => w.walkId).sort();
    expect(ids(a.listWalks({ status: ['running'] }))).toEqual(['elsewhere', 'mine']);
    expect(ids(a.listWalks({ status: ['interrupted'] }))).toEqual(['dead', 'legacy', ...(me.start.startsWith('linux:') ? ['reused'] : [])]);
    expect(a.listWalks().find((w) => w.walkId === 'dead')?.status).toBe('interrupted');

    // resuming (saving it running again) takes it over: running, owned by this process
    a.saveWalk({ ...(a.getWalk('dead') as WalkState), status: 'running' });
    expect(a.getWalk('dead')).toMatchObject({ status: 'running', owner: currentOwner() });
    a.close();
  });

  it('migration 0005 adds the owner columns; a walk left running before it reads interrupted', () => {
    const file = join(tmp(), 'loupe.db');
    const db = new Database(file);
    migrate(db, MIGRATIONS.slice(0, 4));
    db.prepare(
      `INSERT INTO walks (walk_id, platform, endpoint, params, cursor_param, cursor, pages_done, credits_spent, items_seen, status, source, created_at, updated_at)
       VALUES ('old', 'photo_net', 'profile/posts', '{}', 'cursor', 'c', 2, 40, 24, 'running', 'cli', 1, 2)`,
    ).run();
    db.close();
    const a = openArchive(file);
    const cols = (testDb(a).prepare('PRAGMA table_info(walks)').all() as Array<{ name: string }>).map((c) => c.name);
    expect(cols).toEqual(expect.arrayContaining(['owner_pid', 'owner_host', 'owner_start']));
    expect(a.getWalk('old')).toMatchObject({ status: 'interrupted', pagesDone: 2, cursor: 'c', owner: null });
    a.close();
  });

  it.skipIf(process.platform === 'win32')(
    'a process that saved a running walk and was killed with SIGKILL leaves it interrupted',
    async () => {
      const dir = tmp();
      const file = join(dir, 'loupe.db');
      openArchive(file).close();
      const script = join(dir, 'walker.ts');
      writeFileSync(
        script,
        `import { openArchive } from ${JSON.stringify(resolve('src/core/archive/index.ts'))};
const a = openArchive(process.argv[2]);
a.saveWalk({ walkId: 'killed', platform: 'photo_net', endpoint: 'profile/posts', params: '{}', cursorParam: 'cursor', cursor: 'sdr_c2',
  pagesDone: 2, creditsSpent: 40, itemsSeen: 24, status: 'running', stopReason: null, source: 'cli', createdAt: 1, updatedAt: 2, error: null });
process.stdout.write('saved\\n');
setInterval(() => undefined, 1000);
`,
      );
      const child = spawn(resolve('node_modules/.bin/tsx'), [script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((res, rej) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('saved') && res());
        child.on('exit', (c) => rej(new Error(`child exited early (${c})`)));
      });
      const a = openArchive(file);
      try {
        // tsx runs the script in a child of its own: the owner is that grandchild, alive
        expect(a.getWalk('killed')?.status).toBe('running');
        const owner = a.getWalk('killed')?.owner?.pid as number;
        expect(owner).toBeGreaterThan(0);
        process.kill(owner, 'SIGKILL');
        child.kill('SIGKILL');
        await new Promise((res) => child.once('exit', res));
        // the owner was reaped by its parent (tsx) or by init: wait until the pid is gone
        for (let i = 0; i < 100 && a.getWalk('killed')?.status === 'running'; i++) await new Promise((r) => setTimeout(r, 50));
        expect(a.getWalk('killed')).toMatchObject({ status: 'interrupted', pagesDone: 2, cursor: 'sdr_c2' });
        expect(a.listWalks({ status: ['interrupted'] }).map((w) => w.walkId)).toEqual(['killed']);
      } finally {
        a.close();
        child.kill('SIGKILL');
      }
    },
  );
});
