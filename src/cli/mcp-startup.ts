/**
 * `capstate serve` over stdio is started by an MCP client, and a server that exits before it
 * answers shows there as "Connection closed", whatever stderr said (issue 46). So a failure
 * before the session starts — a usage error, no store, several captures of the wrong kind, a
 * stale state — answers the client's first request with a JSON-RPC error carrying the
 * message, which the client shows (the MCP SDK's client raises it from `connect`), and the
 * command then exits as it would have. Written by hand, not through the SDK: the failure may
 * come before the SDK's modules were ever imported.
 */

/** Set by `serve` once the MCP session is connected: a later failure is the session's own. */
export const mcpSession = { started: false };

/** An implementation-defined server error (JSON-RPC 2.0 §5.1 reserves -32000 to -32099). */
export const STARTUP_FAILED_CODE = -32001;

/** Whether `serve`'s arguments ask for MCP over stdio rather than HTTP. */
export const servesStdio = (args: string[]): boolean =>
  !args.some((a) => a === '--http' || a.startsWith('--http=') || a === '--port' || a.startsWith('--port='));

/**
 * Waits for the first request on `input` (a line holding a JSON-RPC message with a method and
 * an id; notifications and other lines are passed over) and answers it on `output` with
 * `message` as an error. Returns when it has answered, when the input ends, or after
 * `waitMs`, for a caller that pipes in something other than MCP and never sends a request.
 */
export function answerFirstRequest(
  message: string,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  waitMs = 30_000,
): Promise<void> {
  return new Promise<void>((resolve) => {
    // An input that has already ended sends no request (and no second 'end').
    if ((input as { readableEnded?: boolean }).readableEnded) return resolve();
    let pending = '';
    const finish = () => {
      clearTimeout(timer);
      input.off('data', onData);
      input.off('end', finish);
      input.off('close', finish);
      input.off('error', finish);
      // The client keeps its end open until we exit: stop reading so nothing holds the process.
      input.pause();
      resolve();
    };
    const onData = (chunk: Buffer | string) => {
      pending += chunk.toString();
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        const id = requestId(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        if (id !== undefined) {
          const answer = { jsonrpc: '2.0', id, error: { code: STARTUP_FAILED_CODE, message } };
          output.write(JSON.stringify(answer) + '\n', () => finish());
          input.off('data', onData);
          return;
        }
        nl = pending.indexOf('\n');
      }
    };
    const timer = setTimeout(finish, waitMs);
    input.on('data', onData);
    input.once('end', finish);
    input.once('close', finish);
    input.once('error', finish);
    input.resume();
  });
}

/** The id of a JSON-RPC request on `line`, or undefined for anything else. */
function requestId(line: string): string | number | undefined {
  try {
    const m = JSON.parse(line) as { method?: unknown; id?: unknown };
    if (typeof m?.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')) return m.id;
  } catch {
    // Not JSON: not a request to answer.
  }
  return undefined;
}
