/**
 * The built CLI in process (issue 43): a worker thread that imports dist/src/cli/run.js once
 * and runs one command line per request, with its own stdout, stderr, stdin and environment,
 * answering on `port` and waking the test's thread through `signal` (test/helpers.ts `cli`).
 */
import { Readable, Writable } from 'node:stream';
import { workerData } from 'node:worker_threads';

const { port, signal, runJs } = workerData;
const { run } = await import(runJs);

/** A stream that keeps what is written to it, in the shape of a non-TTY process stream. */
function sink() {
  const chunks = [];
  const stream = new Writable({
    write(chunk, _encoding, done) { chunks.push(Buffer.from(chunk)); done(); },
  });
  stream.isTTY = false;
  stream.fd = -1;
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

function swap(name, value) {
  const before = Object.getOwnPropertyDescriptor(process, name);
  Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => value });
  return () => Object.defineProperty(process, name, before);
}

let finish = null;
// Between commands no test is listening: said on this thread's own stderr, not lost.
const onFailure = (e) => { if (finish) finish(e); else process.stderr.write(`capstate (in process, between commands): ${e?.stack ?? e}\n`); };
process.on('uncaughtException', onFailure);
process.on('unhandledRejection', onFailure);
// A thread that ends (process.exit in a command) wakes the waiting test, which then fails.
process.on('exit', () => { Atomics.store(signal, 0, 2); Atomics.notify(signal, 0); });

port.on('message', async ({ args, env, input }) => {
  const out = sink(), err = sink();
  const restore = [swap('stdout', out.stream), swap('stderr', err.stream),
    swap('stdin', Readable.from(input === undefined ? [] : [Buffer.from(input, 'utf8')]))];
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
  let status;
  try {
    status = await new Promise((resolve) => {
      // A command that fails outside its own promise (an uncaught error in a callback) ends a
      // real process with status 1 and the stack on stderr: the same here.
      finish = (e) => { err.stream.write(`${e?.stack ?? e}\n`); resolve(1); };
      run(args).then(resolve, finish);
    });
  } finally {
    finish = null;
    for (const r of restore.reverse()) r();
  }
  await new Promise((resolve) => setImmediate(resolve));
  port.postMessage({ status, stdout: out.text(), stderr: err.text() });
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
