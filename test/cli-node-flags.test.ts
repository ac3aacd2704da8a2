/**
 * Issue 14 (load RSS ≤ 256 MB): the main thread's young generation is bounded by a Node
 * flag that only takes effect at start-up (src/cli/memory.ts), so every way the CLI is
 * started must carry it: the built script's shebang (what `npm install -g` links) and the
 * checkout's `capstate` script.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../src/cli/memory.js';

describe('the CLI starts with its Node flags (issue 14, bounded young generation)', () => {
  it('the shebang of src/cli/main.ts runs node with every flag', () => {
    const first = readFileSync(new URL('../src/cli/main.ts', import.meta.url), 'utf8').split('\n')[0];
    expect(first.startsWith('#!/usr/bin/env -S node ')).toBe(true);
    for (const f of NODE_FLAGS) expect(first.split(' ')).toContain(f);
  });

  it('the capstate script passes every flag to node, and the CLI runs under it', () => {
    const script = readFileSync(new URL('../capstate', import.meta.url), 'utf8');
    const exec = script.split('\n').find((l) => l.startsWith('exec node '));
    expect(exec).toBeDefined();
    for (const f of NODE_FLAGS) expect(exec!.split(' ')).toContain(f);
    // node refuses an unknown flag: the script starting at all shows the flag is one node takes.
    const out = execFileSync('sh', [new URL('../capstate', import.meta.url).pathname, '--version'], { encoding: 'utf8' });
    expect(out.trim()).toMatch(/\d+\.\d+/);
  });
});
