// A browser app against a served capture (not part of capstate): opens URL in Debian's
// Chromium (playwright-core), waits until the page's text contains TEXT, and prints the text.
//
//   node examples/open-page.mjs URL TEXT [CHROMIUM]     (default /usr/bin/chromium)
//
// The README runs it against `capstate serve CAPTURE --http PORT`: the page is the capture's
// own, its requests are answered by the model (scripts/readme-examples.mjs runs it).
import { chromium } from 'playwright-core';

const [url, text, executablePath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!url || !text) {
  process.stderr.write('usage: node examples/open-page.mjs URL TEXT [CHROMIUM]\n');
  process.exit(2);
}
// Chromium refuses its sandbox as root; elsewhere it keeps it.
const browser = await chromium.launch({ executablePath, headless: true, chromiumSandbox: process.getuid?.() !== 0 });
try {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction((t) => document.body.innerText.includes(t), text, { timeout: 20_000 });
  process.stdout.write(`${(await page.innerText('body')).trimEnd()}\n`);
} finally {
  await browser.close();
}
