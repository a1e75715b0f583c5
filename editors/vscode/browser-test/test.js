// Drives VS Code (code-server) in Chromium as a user would, through the
// packaged extension: diagnostics, hover and the hole's quick fix in a
// Tensor file, diagnostics and hover in a PyTorch file. Saves a screenshot
// of each step in OUT_DIR and exits non-zero at the first thing missing.
//
//   node test.js URL OUT_DIR        (run.sh starts code-server and calls it)

const assert = require('node:assert/strict');
const path = require('node:path');
const { chromium } = require('playwright-core');

const [url, out] = process.argv.slice(2);
// Chromium's flags for a closed network and a root user (no sandbox).
const CHROMIUM_FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

async function main() {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const shot = (name) => page.screenshot({ path: path.join(out, `${name}.png`) });
  try {
    await page.goto(url);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });

    const open = async (name) => {
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first().click();
      await page.locator('.tab.active', { hasText: name }).first().waitFor({ timeout: 30000 });
    };
    const goTo = async (line, column) => {
      await page.keyboard.press('Control+G');
      await page.waitForSelector('.quick-input-widget .quick-input-box input');
      await page.keyboard.type(`${line}:${column}`);
      await page.keyboard.press('Enter');
      await page.waitForTimeout(300);
    };
    const hoverAt = async (line, column) => {
      await goTo(line, column);
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');
      const hover = page.locator('.monaco-hover:not(.hidden)').first();
      await hover.waitFor({ timeout: 30000 });
      const text = (await hover.innerText()).replace(/\n/g, ' | ');
      await page.keyboard.press('Escape');
      return text;
    };
    const squiggles = async (count) => {
      await page.waitForFunction((n) => document.querySelectorAll('.squiggly-error').length >= n, count, {
        timeout: 60000,
      });
      return page.locator('.squiggly-error').count();
    };

    // 1. A Tensor file: the wrong claim and the call that makes it fail.
    await open('model.tensor');
    assert.equal(await squiggles(2), 2, 'two errors in model.tensor');
    await page.locator('.statusbar-item', { hasText: 'tensorfit' }).first().waitFor();
    await shot('1-diagnostics');
    console.log('model.tensor: 2 errors underlined');

    // 2. Hover on `c` (line 9): its shape, and at the call.
    const hover = await hoverAt(9, 9);
    assert.match(hover, /c: Tensor\[batch, 5, input\.shape\[2\] \/ 2, input\.shape\[3\] \/ 2\]/);
    assert.match(hover, /at the call on line 18: Tensor\[12, 5, 16, 16\]/);
    console.log(`hover on c: ${hover}`);

    // 3. The hole's quick fix (line 6), from the light bulb's menu.
    await goTo(6, 33);
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Fill the hole with 320' }).first();
    await fix.waitFor({ timeout: 30000 });
    await shot('2-quick-fix');
    // The row is focused: Enter applies it.
    await page.keyboard.press('Enter');
    // Monaco draws spaces as no-break spaces, and lines in any DOM order.
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('.view-lines .view-line')].some((line) =>
          line.textContent.replace(/\u00a0/g, ' ').includes('Linear(in_features: 320,'),
        ),
      null,
      { timeout: 30000 },
    );
    console.log('quick fix: `__` became 320');

    // 4. A PyTorch file: its shape error and a hover.
    await open('model.py');
    assert.equal(await squiggles(1), 1, 'one error in model.py');
    const pyHover = await hoverAt(2, 1);
    assert.match(pyHover, /x: Tensor\[2, 3\]/);
    await shot('3-python');
    console.log(`model.py: 1 error underlined; hover on x: ${pyHover}`);
  } catch (error) {
    await shot('failure').catch(() => undefined);
    throw error;
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
