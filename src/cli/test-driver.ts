/**
 * Test helper (not shipped): runs several `loupe` command lines in ONE process and prints their
 * exit codes and output as JSON — the CLI tests start it as another user (a read-only data folder
 * when the tests run as root) or under `ulimit`, paying the TypeScript start-up once.
 *   tsx src/cli/test-driver.ts '[["walks","--json"],["columns"]]'
 */
import { runCaptured, type Captured } from './run-captured';

const commands = JSON.parse(process.argv[2] ?? '[]') as string[][];
const results: Array<Captured & { args: string[] }> = [];
for (const args of commands) results.push({ args, ...(await runCaptured(args, process.env)) });
process.stdout.write(JSON.stringify(results));
