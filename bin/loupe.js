#!/usr/bin/env node
// `npx loupe`: the command line runs the TypeScript sources through tsx, so it works
// right after `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
