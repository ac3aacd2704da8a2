/**
 * Help text (issue 19): citty colours its usage whenever `NO_COLOR` is not exactly "1",
 * even into a pipe. Colour is kept only for a terminal with `NO_COLOR` unset or empty
 * (https://no-color.org), and `TERM=dumb` turns it off as well.
 */
import type { CommandDef } from 'citty';
import { renderUsage } from 'citty';

/** Whether text written to `stream` may carry ANSI colours. */
export function colourFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}

export function stripColour(text: string): string {
  // ANSI SGR sequences.
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

/** Writes a command's usage to `stream` (stdout for asked-for help, stderr after a usage error). */
// `any`: citty's CommandDef is generic over each command's args.
export async function writeUsage(stream: NodeJS.WriteStream, cmd: CommandDef<any>, parent?: CommandDef<any>): Promise<void> {
  const text = await renderUsage(cmd, parent);
  // citty pads every row's last column to the longest one: trailing blanks a pipe or a diff keeps.
  stream.write((colourFor(stream) ? text : stripColour(text)).replace(/[ \t]+$/gm, '') + '\n');
}
