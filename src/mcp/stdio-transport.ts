/**
 * The MCP stdio transport of `capstate serve`: newline-delimited JSON-RPC on stdin and
 * stdout, like the SDK's StdioServerTransport, but a bad line is answered instead of
 * ending the session. The SDK's transport closed itself, silently and with exit 0, when a
 * line passed 10 MiB, and gave no answer to a line that is not JSON or not JSON-RPC.
 * Here an oversized line is skipped to its end and answered with -32600 and its own id
 * (found while it streams past, src/mcp/line-id.ts), an unparsable one with -32700
 * (JSON-RPC 2.0 §5.1), and the session goes on. An answer longer than the server's limit
 * is not written either: the caller gets an error with its id instead (issue 42).
 */
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { DEFAULT_MAX_ANSWER_BYTES } from '../serve/answer-bounds.js';
import { LineIdScanner, validId, type Id } from './line-id.js';

/** The longest request line read (the SDK's own limit); a longer one is answered with an error. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
/** Room for the JSON-RPC envelope (`jsonrpc`, the caller's id) around a result of the largest size. */
const ENVELOPE_BYTES = 1024;
/**
 * The JSON-RPC error code of an answer over the limit: implementation-defined server error
 * (JSON-RPC 2.0 §5.1 reserves -32000 to -32099; the SDK uses -32000 and -32001 itself).
 */
export const ANSWER_TOO_LARGE_CODE = -32010;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** While skipping an oversized line: the scanner looking for its id, and its length so far. */
  private skipping: { id: LineIdScanner; bytes: number } | null = null;
  private closed = false;
  /** Why the session ended, when stdin or stdout failed (the server then exits non-zero). */
  failure: Error | null = null;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly maxLineBytes = MAX_LINE_BYTES,
    /** The longest answer written (serve --max-answer-bytes), plus its envelope. */
    private readonly maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES,
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
        this.skipping.id.feed(part);
        this.skipping.bytes += part.length;
      } else if (this.size + part.length > this.maxLineBytes) {
        const id = new LineIdScanner();
        for (const c of this.chunks) id.feed(c);
        id.feed(part);
        this.skipping = { id, bytes: this.size + part.length };
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
      const { id, bytes } = this.skipping;
      this.skipping = null;
      this.fail(
        id.id(),
        -32600,
        `request line of ${bytes} bytes is over the ${this.maxLineBytes / 1024 / 1024} MiB limit; it was not read. Send smaller arguments`,
      );
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
      if (typeof p?.name !== 'string')
        return this.fail(m.id, -32602, 'invalid params: tools/call needs params.name, the tool name (a string)');
      if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
        return this.fail(
          m.id,
          -32602,
          `invalid params: tools/call arguments must be an object, not ${args === null ? 'null' : Array.isArray(args) ? 'an array' : `a ${typeof args}`}`,
        );
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
    let text = JSON.stringify(message) + '\n';
    // Tool results are bounded where they are made (callTool); this holds for every other answer.
    const m = message as { id?: Id; result?: unknown; error?: unknown };
    const bytes = Buffer.byteLength(text, 'utf8');
    if (
      m.id !== undefined &&
      ('result' in m || 'error' in m) &&
      bytes > this.maxAnswerBytes + ENVELOPE_BYTES + Buffer.byteLength(JSON.stringify(m.id))
    ) {
      const message = `answer-too-large: the answer is ${bytes} bytes, over the server's limit of ${this.maxAnswerBytes} bytes, and was not sent; ask for less, or start the server with a larger --max-answer-bytes`;
      this.onerror?.(new Error(message));
      text =
        JSON.stringify({
          jsonrpc: '2.0',
          id: m.id,
          error: { code: ANSWER_TOO_LARGE_CODE, message, data: { code: 'answer-too-large', bytes, max_bytes: this.maxAnswerBytes } },
        }) + '\n';
    }
    await new Promise<void>((resolve) => {
      if (this.output.write(text)) resolve();
      else this.output.once('drain', () => resolve());
    });
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
