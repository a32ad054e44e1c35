// The checks in a real VS Code (code-server) driven through Chromium, as a person sees them: an atom with a
// failing example marked in the Atoms tree, the failure in the Problems panel, the atoms in the Test
// Explorer run with Run All, and the atom's file with the failing line and the gutter's test icons.
// Screenshots in .e2e/screenshots/checks/. Usage: node test/e2e/ui-checks.mjs [--no-build] ; exit code 0 = every check passed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { log, openAtomicWorkbench, root, runWhenMain, startCodeServer } from '../../scripts/e2e/lib.mjs';
import { callTool, connectCli } from '../../scripts/e2e/sample.mjs';
import { checks, clean, prepareRun, runCommand, shot as shotInto, unexpected } from './uiSteps.mjs';

const shots = process.env.ATOMIC_E2E_CHECKS_SHOTS || join(root, '.e2e', 'screenshots', 'checks');
const { check, summary } = checks();
const shot = (page, name) => shotInto(page, shots, name);

const CLAMP = {
  name: 'math_clamp',
  type: 'util',
  description: 'Keeps a value between min and max',
  inputs: [
    { name: 'value', type: 'number' },
    { name: 'min', type: 'number' },
    { name: 'max', type: 'number' },
  ],
  outputs: [{ name: 'clamped', type: 'number' }],
  code: 'function math_clamp(value, min, max) {\n  return Math.min(max, Math.max(min, value));\n}\n',
  examples: [
    { args: [5, 0, 3], returns: 3 },
    { args: [-1, 0, 3], returns: 0 },
    { args: [2, 0, 3], returns: 5 },
  ],
};
const SCENARIO = {
  name: 'test_clamp_range',
  type: 'test',
  description: 'Both ends of the range hold',
  code: 'function test_clamp_range() {\n  assert(math_clamp(-5, 0, 10) === 0, "low end");\n  assert(math_clamp(50, 0, 10) === 10, "high end");\n}\n',
};

export async function runChecksUi({ build = true } = {}) {
  const t0 = Date.now();
  const runDir = prepareRun('ui-checks', shots, build);
  const folder = join(runDir, 'clamp-project');
  mkdirSync(folder);
  const seed = await connectCli(folder);
  try {
    const answer = await callTool(seed, 'upsert_atom', CLAMP);
    check('the write answers with the failing example', /Examples: 2 passed, 1 FAILED/.test(answer), JSON.stringify(answer.split('\n').at(-1)));
    await callTool(seed, 'upsert_atom', SCENARIO);
  } finally {
    await seed.close();
  }
  const server = await startCodeServer({ runDir, folder });
  log(`code-server ${server.url} (run dir ${runDir}) after ${Date.now() - t0} ms`);
  let browser;
  try {
    let page;
    ({ browser, page } = await openAtomicWorkbench(server, folder, runDir));
    const row = (label) => page.locator('.part.sidebar .monaco-list-row', { has: page.locator(`.monaco-icon-label[aria-label="${label}"]`) }).first();

    // 1. The Atoms tree: the atom with a failing example says so (the checks run in the background at open).
    await row('math_clamp').waitFor({ timeout: 60_000 });
    const clampRow = await page.waitForFunction(() => {
      const r = [...document.querySelectorAll('.part.sidebar .monaco-list-row')].find((e) => e.textContent.includes('math_clamp'));
      return r && r.textContent.includes('failing') ? r.textContent : false;
    }, undefined, { timeout: 30_000 }).then((h) => h.jsonValue(), () => '');
    check('the tree marks the atom with a failing example', clean(clampRow).includes('✗ 1 of 3 examples failing'), JSON.stringify(clean(clampRow)));
    const errorIcon = await row('math_clamp').locator('.codicon-error').count();
    check('with a red error icon', errorIcon > 0, `${errorIcon} error icon(s)`);
    await shot(page, '1-tree-failing-example.png');

    // 2. The Problems panel.
    await runCommand(page, 'View: Focus Problems');
    const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'returned 2, expected 5' }).first();
    await problem.waitFor({ timeout: 30_000 }).catch(() => {});
    const problemText = clean(await problem.innerText().catch(() => ''));
    check('the Problems panel shows the failing example with its message', problemText.includes('math_clamp(2, 0, 3) returned 2, expected 5'), JSON.stringify(problemText));
    const panelText = clean(await page.locator('.markers-panel').first().innerText().catch(() => ''));
    check('… on the atom file, from Atomic Coding checks', panelText.includes('math_clamp.js') && panelText.includes('Atomic Coding checks'), JSON.stringify(panelText.slice(0, 200)));
    await shot(page, '2-problems-panel.png');

    // 3. Clicking the problem opens the atom's file at the @example line.
    await problem.click();
    await page.locator('.tabs-container .tab', { hasText: 'math_clamp.js' }).waitFor({ timeout: 20_000 });
    await page.locator('.editor-instance .view-lines', { hasText: '@example' }).first().waitFor({ timeout: 20_000 });
    const squiggles = await page.waitForFunction(() => document.querySelectorAll('.editor-instance .squiggly-error').length, undefined, { timeout: 15_000 }).then((h) => h.jsonValue(), () => 0);
    check('the atom file opens with the failing line underlined', squiggles > 0, `${squiggles} error squiggle(s)`);
    const glyphs = await page.waitForFunction(() => document.querySelectorAll('.editor-instance .margin-view-overlays .codicon-testing-failed-icon, .editor-instance .glyph-margin-widgets .codicon-testing-failed-icon, .editor-instance [class*="testing-"]').length, undefined, { timeout: 15_000 }).then((h) => h.jsonValue(), () => 0);
    check('the gutter shows test icons on the atom file', glyphs > 0, `${glyphs} gutter icon(s)`);
    await shot(page, '3-atom-file-gutter.png');

    // 4. The Test Explorer: both atoms, Run All, the failing ones marked.
    await runCommand(page, 'Testing: Focus on Test Explorer View');
    const testRow = (label) => page.locator('.test-explorer .monaco-list-row', { hasText: label }).first();
    await testRow('math_clamp').waitFor({ timeout: 30_000 }).catch(() => {});
    await runCommand(page, 'Test: Run All Tests');
    await page.waitForTimeout(1500);
    // Expand every item so the examples show.
    const collapsed = page.locator('.test-explorer .monaco-list-row[aria-expanded="false"]');
    for (let i = 0; i < 4 && (await collapsed.count()) > 0; i++) {
      await collapsed.first().click();
      await page.keyboard.press('ArrowRight');
      await page.waitForTimeout(200);
    }
    const explorer = clean((await page.locator('.test-explorer .monaco-list-row').allInnerTexts()).join(' | '));
    check('the Test Explorer lists the atom with examples and the test atom', explorer.includes('math_clamp') && explorer.includes('test_clamp_range'), JSON.stringify(explorer.slice(0, 300)));
    check('… with each example as a child', explorer.includes('math_clamp(2, 0, 3) => 5') && explorer.includes('math_clamp(5, 0, 3) => 3'), '');
    const failedIcons = await page.locator('.test-explorer .codicon-testing-failed-icon').count();
    const passedIcons = await page.locator('.test-explorer .codicon-testing-passed-icon').count();
    check('after Run All, failed and passed results show', failedIcons >= 2 && passedIcons >= 2, `${failedIcons} failed, ${passedIcons} passed icons`);
    await shot(page, '4-test-explorer.png');
  } catch (err) {
    await unexpected(err, check, browser, shots);
  } finally {
    await browser?.close().catch(() => {});
    server.stop();
  }
  return summary(`checks UI run (after ${Date.now() - t0} ms; screenshots in ${shots})`);
}

runWhenMain(import.meta.url, runChecksUi);
