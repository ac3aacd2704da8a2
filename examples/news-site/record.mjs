#!/usr/bin/env node
/**
 * Records the news site with Playwright's recordHar in Chromium (Debian's /usr/bin/chromium;
 * set CHROMIUM to use another). Every host is mapped to the local server. A path ending in
 * `.zip` records Playwright's zipped HAR (bodies as `content._file` members beside it).
 *
 *   node examples/news-site/record.mjs OUT.har|OUT.zip
 */
import { chromium } from 'playwright-core';
import { createNewsServer } from './server.mjs';

export async function recordNewsSite(out, executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium') {
  const server = createNewsServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(null)));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
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
      '--host-resolver-rules=MAP * 127.0.0.1',
      '--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable',
    ],
  });
  try {
    const context = await browser.newContext({
      recordHar: { path: out, mode: 'full', ...(out.endsWith('.zip') ? {} : { content: 'embed' }) },
    });
    const page = await context.newPage();
    await page.goto(`http://news.test:${port}/`);
    await page.waitForSelector('body[data-ready="yes"]');
    await context.close(); // writes the HAR
  } finally {
    await browser.close();
    server.close();
  }
  return port;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: node examples/news-site/record.mjs OUT.har|OUT.zip\n');
    process.exit(2);
  }
  const port = await recordNewsSite(out);
  process.stderr.write(`recorded the news site (port ${port}) into ${out}\n`);
}
