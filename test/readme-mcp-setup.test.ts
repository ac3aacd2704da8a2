/**
 * Issue 19: the README's MCP set-up is copy-paste configuration for Claude Desktop, Claude
 * Code, Cursor and VS Code, in plain words. Each snippet must parse, start the real
 * binary (the package's `bin`) and pass `serve` only options it has.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ArgsDef } from 'citty';
import { loadCommands } from '../src/cli/commands.js';
import { checkOptions } from '../src/cli/strict-args.js';
import { root } from './helpers.js';

const commands = await loadCommands();

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const start = readme.indexOf('## Serve over MCP');
const section = readme.slice(start, readme.indexOf('**Environment tools**', start));
const bin = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: { capstate: string } }).bin.capstate;
const jsonBlocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map(
  (m) => JSON.parse(m[1]) as Record<string, Record<string, { command: string; args: string[]; type?: string }>>,
);

/** The command line a snippet starts: it runs the package's bin and `serve` with options serve has. */
function expectServes(command: string, args: string[]): void {
  expect(command).toBe('node');
  expect(args[0]).toBe(`/path/to/capstate/${bin}`);
  expect(args[1]).toBe('serve');
  expect(() => checkOptions('serve', args.slice(2), (commands.serve.args ?? {}) as ArgsDef)).not.toThrow();
  expect(args.slice(2)).toEqual(['--db', '/path/to/env.sqlite']);
}

describe('README MCP set-up', () => {
  it('names each client and where its configuration goes', () => {
    for (const s of [
      'Claude Desktop',
      'claude_desktop_config.json',
      'Claude Code',
      'claude mcp add',
      'Cursor',
      '.cursor/mcp.json',
      'VS Code',
      '.vscode/mcp.json',
    ]) {
      expect(section, s).toContain(s);
    }
  });

  it('the mcpServers block (Claude Desktop, Cursor) and the VS Code servers block start capstate serve', () => {
    expect(jsonBlocks.length).toBe(2);
    const [desktop, vscode] = jsonBlocks;
    expectServes(desktop.mcpServers['my-app'].command, desktop.mcpServers['my-app'].args);
    expect(vscode.servers['my-app'].type).toBe('stdio');
    expectServes(vscode.servers['my-app'].command, vscode.servers['my-app'].args);
  });

  it('the claude mcp add line starts the same command after --', () => {
    const line = /^claude mcp add (\S+) -- (.+)$/m.exec(section);
    expect(line).not.toBeNull();
    expect(line![1]).toBe('my-app');
    const [command, ...args] = line![2].split(' ');
    expectServes(command, args);
  });

  it('is written in plain words: no rule IDs or spec section marks', () => {
    expect(section).not.toMatch(/\b(ES|OQ|BS|DESC|SRV)-\d+|§\s?\d/);
  });
});
