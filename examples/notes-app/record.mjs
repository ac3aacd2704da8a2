#!/usr/bin/env node
/**
 * Records the notes app with Playwright's recordHar in Chromium (Debian's /usr/bin/chromium;
 * set CHROMIUM to use another): open the page, let it read, add a note, rename another.
 *
 *   node examples/notes-app/record.mjs OUT.har
 */
import { chromium } from 'playwright-core';
import { createNotesServer } from './server.mjs';

export async function recordNotesApp(out, executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium') {
  const server = createNotesServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(null)));
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  const browser = await chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const context = await browser.newContext({ recordHar: { path: out, content: 'embed', mode: 'full' } });
    const page = await context.newPage();
    await page.goto(base + '/');
    await page.waitForSelector('body[data-ready="yes"]');
    await page.click('#add');
    await page.waitForSelector('body[data-added]');
    await page.click('#rename');
    await page.waitForSelector('body[data-renamed="yes"]');
    await context.close(); // writes the HAR
  } finally {
    await browser.close();
    server.close();
  }
  return base;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: node examples/notes-app/record.mjs OUT.har\n');
    process.exit(2);
  }
  const base = await recordNotesApp(out);
  process.stderr.write(`recorded ${base} into ${out}\n`);
}
