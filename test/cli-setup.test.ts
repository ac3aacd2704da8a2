/**
 * Issue 46: the README's setup leaves `capstate` runnable as the README writes it. The
 * package's `bin` is the built CLI with its shebang (for `npm install -g` and `npm link`),
 * and `scripts/setup.sh` puts a wrapper around the checkout's ./capstate on PATH
 * (scripts/link-cli.sh), which runs from any folder.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, tempDir } from './helpers.js';

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
const dir = tempDir();

describe('capstate on PATH', () => {
  it('package.json bin capstate is the built CLI, starting with a node shebang', () => {
    expect(pkg.bin.capstate).toBe('dist/src/cli/main.js');
    const text = readFileSync(join(root, pkg.bin.capstate), 'utf8');
    expect(text.split('\n')[0]).toMatch(/^#!\/usr\/bin\/env -S node\b/);
  });

  it('scripts/setup.sh runs the linking step after npm ci', () => {
    const setup = readFileSync(join(root, 'scripts/setup.sh'), 'utf8');
    const ci = setup.indexOf('\nnpm ci\n');
    const link = setup.indexOf('\nbash scripts/link-cli.sh\n');
    expect(ci).toBeGreaterThan(0);
    expect(link).toBeGreaterThan(ci);
  });

  it('link-cli.sh writes an executable capstate that runs from another folder by name, and can run again', () => {
    const bin = join(dir, 'bin');
    for (let i = 0; i < 2; i++) execFileSync('bash', [join(root, 'scripts/link-cli.sh'), bin], { stdio: 'pipe' });
    expect(statSync(join(bin, 'capstate')).mode & 0o111).not.toBe(0);
    const r = spawnSync('capstate', ['--version'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
    const help = spawnSync('capstate', ['staet'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    expect(help.stderr).toMatch(/did you mean 'state'\?/);
  });

  it('link-cli.sh leaves a capstate it did not write as it is', () => {
    const bin = join(dir, 'theirs');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'capstate'), '#!/bin/sh\necho theirs\n');
    const r = spawnSync('bash', [join(root, 'scripts/link-cli.sh'), bin], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/was not written by capstate's setup; left as it is/);
    expect(readFileSync(join(bin, 'capstate'), 'utf8')).toBe('#!/bin/sh\necho theirs\n');
  });
});
