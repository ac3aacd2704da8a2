/**
 * One line per request on stderr (issue 46), the way json-server and Mockoon log, so a user
 * sees which parts of the app the capture lacks as the app runs:
 *
 *     GET /posts?_page=1 200 state get_posts 3 ms
 *     PUT /posts/1 501 declined no-route 1 ms
 *
 * method, path as asked, status, how it was answered (`state`, `convention`, `replay`,
 * `declined`; `data-plane`, `preflight`, `refused` or `error` for what the model did not
 * answer), what answered (tool, convention or error code), and the time taken.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Where request lines go (the CLI: stderr; none under `--quiet`). */
export type RequestLogger = (line: string) => void;

/** The longest path a line shows; a longer one is cut with an ellipsis. */
const MAX_PATH = 200;

/** The headers each answer was sent with (writeHead's are not kept on the response). */
const sent = new WeakMap<ServerResponse, Record<string, string>>();

/** Notes the headers `res` is answered with, for its log line. */
export function noteAnswer(res: ServerResponse, headers: Record<string, string>): void {
  sent.set(res, headers);
}

/** How an answer was made, from the headers it was sent with. */
function howAnswered(res: ServerResponse, path: string): string {
  const header = (name: string): string | undefined => sent.get(res)?.[name];
  const answer = header('capstate-answer');
  const error = header('x-capstate-error');
  if (answer === 'declined') return `declined ${error ?? ''}`.trim();
  if (answer) return [answer, header('capstate-convention') ?? header('x-capstate-tool')].filter(Boolean).join(' ');
  if (error) return res.statusCode === 403 ? `refused ${error}` : `error ${error}`;
  if (path.startsWith('/__capstate/')) return 'data-plane';
  return header('access-control-allow-methods') !== undefined ? 'preflight' : 'answered';
}

/** Logs `req`'s line once its answer is sent (or the connection closed before it was). */
export function logRequest(log: RequestLogger, req: IncomingMessage, res: ServerResponse): void {
  const started = process.hrtime.bigint();
  const method = (req.method ?? 'GET').toUpperCase();
  const raw = req.url ?? '/';
  const path = raw.length > MAX_PATH ? `${raw.slice(0, MAX_PATH)}…` : raw;
  let done = false;
  const line = (closed: boolean) => {
    if (done) return;
    done = true;
    const ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
    log(
      closed
        ? `${method} ${path} closed before the answer was sent ${ms} ms`
        : `${method} ${path} ${res.statusCode} ${howAnswered(res, path)} ${ms} ms`,
    );
  };
  res.once('finish', () => line(false));
  res.once('close', () => line(!res.writableFinished));
}
