/**
 * The MCP stdio transport of `capstate serve`: newline-delimited JSON-RPC on stdin and
 * stdout, like the SDK's StdioServerTransport, but a bad line is answered instead of
 * ending the session. The SDK's transport closed itself, silently and with exit 0, when a
 * line passed 10 MiB, and gave no answer to a line that is not JSON or not JSON-RPC.
 * Here an oversized line is skipped to its end and answered with -32600, an unparsable
 * one with -32700 (JSON-RPC 2.0 §5.1), and the session goes on.
 */
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The longest request line read (the SDK's own limit); a longer one is answered with an error. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
/** Bytes of an oversized line kept to find its id, so the caller's request gets its answer. */
const ID_PROBE_BYTES = 64 * 1024;

type Id = string | number | null;

/** The id of a line's request, from the start of its text (a line too long to parse whole). */
function probeId(head: string): Id {
  const m = /^\s*\{(?:[^{}"]|"(?:[^"\\]|\\.)*")*?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head);
  if (!m) return null;
  try { return JSON.parse(m[1]) as string | number; } catch { return null; }
}

const validId = (v: unknown): Id => (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)) ? v : null);

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** While skipping an oversized line: its first bytes (for the id) and its length so far. */
  private skipping: { head: Buffer; bytes: number } | null = null;
  private closed = false;
  /** Why the session ended, when stdin or stdout failed (the server then exits non-zero). */
  failure: Error | null = null;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer) => {
    try {
      this.take(chunk);
    } catch (e) {
      this.broken(e as Error);
    }
  };
  private readonly onInputError = (e: Error) => this.broken(new Error(`reading stdin failed: ${e.message}`));
  private readonly onOutputError = (e: Error) => this.broken(new Error(`writing stdout failed: ${e.message}`));

  /** A stream failed: the session cannot go on. */
  private broken(e: Error): void {
    this.failure ??= e;
    this.onerror?.(e);
    void this.close();
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  private take(chunk: Buffer): void {
    let from = 0;
    for (let nl = chunk.indexOf(10, from); ; nl = chunk.indexOf(10, from)) {
      const end = nl < 0 ? chunk.length : nl;
      const part = chunk.subarray(from, end);
      if (this.skipping) {
        if (this.skipping.head.length < ID_PROBE_BYTES) this.skipping.head = Buffer.concat([this.skipping.head, part.subarray(0, ID_PROBE_BYTES - this.skipping.head.length)]);
        this.skipping.bytes += part.length;
      } else if (this.size + part.length > this.maxLineBytes) {
        const head = Buffer.concat([...this.chunks, part]).subarray(0, ID_PROBE_BYTES);
        this.skipping = { head: Buffer.from(head), bytes: this.size + part.length };
        this.chunks = [];
        this.size = 0;
      } else if (part.length) {
        this.chunks.push(Buffer.from(part));
        this.size += part.length;
      }
      if (nl < 0) return;
      this.endLine();
      from = nl + 1;
    }
  }

  private endLine(): void {
    if (this.skipping) {
      const { head, bytes } = this.skipping;
      this.skipping = null;
      this.fail(probeId(head.toString('utf8')), -32600,
        `request line of ${bytes} bytes is over the ${this.maxLineBytes / 1024 / 1024} MiB limit; it was not read. Send smaller arguments`);
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      this.fail(null, -32700, `parse error: the line is not JSON (${(e as Error).message})`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = value !== null && typeof value === 'object' && !Array.isArray(value) ? validId((value as { id?: unknown }).id) : null;
      // A response or notification that does not parse has nobody waiting for an answer.
      if (id !== null || !(value && typeof value === 'object' && ('result' in value || 'error' in value))) {
        this.fail(id, -32600, 'invalid request: not a JSON-RPC 2.0 message (jsonrpc "2.0", a method, an id that is a string or integer)');
      }
      return;
    }
    const m = parsed.data as { id?: Id; method?: string; params?: { name?: unknown; arguments?: unknown } };
    // The SDK parses tools/call params inside its handler, where a failure becomes -32603
    // (internal error); arguments that are not an object are the caller's error, -32602.
    if (m.method === 'tools/call' && m.id !== undefined) {
      const p = m.params;
      const args = p?.arguments;
      if (typeof p?.name !== 'string') return this.fail(m.id, -32602, 'invalid params: tools/call needs params.name, the tool name (a string)');
      if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
        return this.fail(m.id, -32602, `invalid params: tools/call arguments must be an object, not ${args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`}`);
      }
    }
    this.onmessage?.(parsed.data);
  }

  private fail(id: Id, code: number, message: string): void {
    this.onerror?.(new Error(`answered a bad request line with ${code}: ${message}`));
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const text = JSON.stringify(message) + '\n';
    await new Promise<void>((resolve) => { if (this.output.write(text)) resolve(); else this.output.once('drain', () => resolve()); });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.output.off('error', this.onOutputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }
}
