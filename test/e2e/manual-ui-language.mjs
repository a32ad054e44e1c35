// Atoms as JavaScript in a real VS Code (code-server) driven through Chromium, on the jumping-cube
// sample opened from its files (atoms/): the code lens above the function, a hover on a call, the
// completion list and parameter hints while typing a call, and the problem a wrong call makes in the
// Problems panel. Not yet part of `npm run test:e2e` (run.mjs runs ui-*.mjs): it has not had a run yet;
// rename it to ui-language.mjs once it passed. Screenshots in .e2e/screenshots/language/ (look at them: a pass on a blank page
// proves nothing). Usage: node test/e2e/manual-ui-language.mjs [--no-build] ; exit code 0 = every check passed.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildAndPackage, ensureInstalled, installVsix, log, newRunDir, openAtomicWorkbench, root, runWhenMain, startCodeServer, vsixPath } from '../../scripts/e2e/lib.mjs';

const shots = join(root, '.e2e', 'screenshots', 'language');
const results = [];

function check(name, ok, detail = '') {
  results.push({ name, ok: !!ok });
  log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` ${detail}` : ''}`);
}

async function shot(page, name) {
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(shots, name) });
  log(`screenshot ${join(shots, name)}`);
}

/** Opens a file through Quick Open, as a person would. */
async function quickOpen(page, file) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(file);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: file }).first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Enter');
  await page.locator(`.tab[aria-label^="${file}"]`).first().waitFor({ timeout: 30_000 });
}

export async function runLanguageUi({ build = true } = {}) {
  if (!process.env.ATOMIC_E2E_SKIP_INSTALL) ensureInstalled();
  const vsix = build ? buildAndPackage() : vsixPath();
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  const runDir = newRunDir('language');
  installVsix(vsix, join(runDir, 'ext'), join(runDir, 'ud'));
  const folder = join(runDir, 'jumping-cube');
  mkdirSync(folder, { recursive: true });
  cpSync(join(root, 'examples', 'jumping-cube', 'atoms'), join(folder, 'atoms'), { recursive: true });
  const server = await startCodeServer({ runDir, folder });
  let browser;
  try {
    let page;
    ({ browser, page } = await openAtomicWorkbench(server, folder, runDir));
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'feature' }).first().waitFor({ timeout: 90_000 });
    await quickOpen(page, 'player_movement.js');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.waitFor({ timeout: 30_000 });

    // 6. The code lens above the function.
    const lens = page.locator('.codelens-decoration', { hasText: 'used by' }).first();
    await lens.waitFor({ timeout: 60_000 }).catch(() => {});
    const lensText = (await lens.textContent().catch(() => '')) ?? '';
    check('the code lens says who uses the atom, its version and run', /used by \d+.*v\d+.*▶ run/.test(lensText), JSON.stringify(lensText));
    await shot(page, '1-code-lens.png');

    // 2. Hover on a call.
    const call = page.locator('.view-line span', { hasText: /^math_clamp$/ }).first();
    await call.hover();
    const hover = page.locator('.monaco-hover:visible', { hasText: 'used by' }).first();
    await hover.waitFor({ timeout: 30_000 }).catch(() => {});
    const hoverText = (await hover.innerText().catch(() => '')) ?? '';
    check('hover on a call shows the signature and use', /math_clamp\(value: number, min: number, max: number\): number/.test(hoverText) && /used by \d+ atom/.test(hoverText), JSON.stringify(hoverText.slice(0, 200)));
    await shot(page, '2-hover.png');
    await page.keyboard.press('Escape');

    // 3. Completion and parameter hints: a new line at the end of the function body.
    await page.locator('.view-line', { hasText: 'return math_clamp' }).first().click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('math_cl', { delay: 40 });
    await page.keyboard.press('Control+Space');
    const row = page.locator('.suggest-widget .monaco-list-row', { hasText: 'math_clamp' }).first();
    await row.waitFor({ timeout: 30_000 }).catch(() => {});
    const rowText = (await row.innerText().catch(() => '')) ?? '';
    check('completion offers math_clamp with its signature', /math_clamp/.test(rowText) && /value: number/.test(rowText), JSON.stringify(rowText));
    await shot(page, '3-completion.png');
    await page.keyboard.press('Enter');
    const hints = page.locator('.parameter-hints-widget', { hasText: 'min: number' }).first();
    await page.keyboard.type('1, ', { delay: 40 });
    await hints.waitFor({ timeout: 20_000 }).catch(() => {});
    const hintsText = (await hints.innerText().catch(() => '')) ?? '';
    check('parameter hints show the ports', /math_clamp\(value: number, min: number, max: number\)/.test(hintsText), JSON.stringify(hintsText.slice(0, 120)));
    await shot(page, '4-parameter-hints.png');
    await page.keyboard.press('Escape');

    // 5. The wrong call (two arguments where three are needed) in the Problems panel.
    await page.keyboard.type('2', { delay: 40 });
    await page.keyboard.press('End');
    await page.keyboard.press('Control+Shift+M');
    const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'math_clamp takes 3 arguments, got 2' }).first();
    await problem.waitFor({ timeout: 30_000 }).catch(() => {});
    check('the Problems panel lists the wrong call', await problem.isVisible().catch(() => false));
    await shot(page, '5-problems.png');
  } catch (err) {
    check(`the run finished (${err.message})`, false);
  } finally {
    await browser?.close().catch(() => {});
    server.stop();
  }
  const failed = results.filter((r) => !r.ok).length;
  log(`language UI: ${results.length - failed} passed, ${failed} failed; screenshots in ${shots}`);
  return failed === 0 ? 0 : 1;
}

runWhenMain(import.meta.url, () => runLanguageUi({ build: !process.argv.includes('--no-build') }));
