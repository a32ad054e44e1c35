// Atoms as JavaScript in a real VS Code (code-server) driven through Chromium with keys and the mouse, on
// the jumping-cube sample opened from its files (a clone: atoms/ only) and on a 1,000-atom workspace: the
// code lens above the function, a hover on a call to another atom (its signature, ports, description and
// "used by"), the completion list while typing (atom names with signatures), parameter hints, F12 on a
// call opening the callee, the call-arity and unknown-name problems in the Problems panel, and F2 with
// the rename preview (applied on the sample: the callee's file and the caller's call follow). The time
// from the mouse move to the first hover and from the keypress to the first completion list is measured
// in the page and reported (.e2e/screenshots/language/measurements.json), never asserted.
// Screenshots in .e2e/screenshots/language/ (look at them: a pass on a blank page proves nothing).
// Usage: node test/e2e/ui-language.mjs [--no-build] ; exit code 0 = every check passed.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { log, openAtomicWorkbench, root, runWhenMain, startCodeServer, workbenchUrl } from '../../scripts/e2e/lib.mjs';
import { checks, clean, quickOpen, shot as shotIn, timeToVisible, until, prepareRun, unexpected } from './uiSteps.mjs';

const shots = join(root, '.e2e', 'screenshots', 'language');
const { check, summary } = checks();
const measurements = {};
const shot = (page, name) => shotIn(page, shots, name);

const editorText = async (page) => clean(await page.locator('.editor-instance .view-lines').first().innerText());
/** The span of the first call of `name` on screen (a call is one token: the name alone), not the header's mention. */
const callToken = (page, name) => page.locator('.editor-instance .view-line', { hasText: `${name}(` }).locator('span span', { hasText: new RegExp(`^${name}$`) }).first();

/**
 * Clicks the first call of `name` in the active editor, scrolled to its top first with the mouse wheel, as
 * a person would; returns the call's line. After lines were typed and undone the editor can stay scrolled
 * down (VS Code scrolls beyond the last line), and a call on the top line is then under its function's
 * sticky-scroll header, which takes the click: a fresh-clone run failed twice on that.
 */
async function clickCall(page, name) {
  const atTop = () =>
    until(`the editor scrolled to its top`, async () => ((await page.locator('.editor-instance .sticky-widget .sticky-line-content').count()) === 0 ? true : undefined), 5_000).catch(
      () => false,
    );
  await page.locator('.editor-instance .view-lines').first().hover();
  await page.mouse.wheel(0, -5_000);
  // Once, after the editor had reloaded twice, the wheel left it scrolled: then the keyboard's way up.
  if (!(await atTop())) {
    await page.keyboard.press('Control+Home');
    await atTop();
  }
  const token = callToken(page, name);
  const line = await lineOf(token);
  await token.click();
  return line;
}

/** The line number VS Code shows in the gutter beside the view line that holds `token`. */
const lineOf = (token) =>
  token.evaluate((span) => {
    const top = span.closest('.view-line')?.style.top;
    const gutter = [...span.closest('.monaco-editor').querySelectorAll('.margin-view-overlays > div')].find((d) => d.style.top === top);
    return Number(gutter?.querySelector('.line-numbers')?.textContent.trim());
  });

/** The cursor's line, as the status bar shows it ("Ln 13, Col 10"). */
const cursorLine = async (page) => Number(/Ln (\d+)/.exec(await page.locator('.statusbar-item', { hasText: /^Ln \d+, Col \d+/ }).first().innerText().catch(() => ''))?.[1]);

/**
 * One workspace's run. `w`: { label, caller, callee, hover: [texts the hover shows], renameTo, apply }.
 * The caller's file is opened, and everything is done on a call of `callee` in it.
 */
async function languageSteps(page, w) {
  const p = (n) => `${w.label}-${n}`;
  await quickOpen(page, `${w.caller}.js`);
  await page.locator('.editor-instance .view-lines', { hasText: `function ${w.caller}(` }).first().waitFor({ timeout: 30_000 });
  const original = await editorText(page);

  // 1. The code lens above the function: the language features answer for this file.
  const lens = page.locator('.codelens-decoration', { hasText: 'used by' }).first();
  await lens.waitFor({ timeout: 90_000 }).catch(() => {});
  const lensText = clean(await lens.textContent().catch(() => ''));
  check(`${w.label}: the code lens says who uses the atom, its version and run`, /used by \d+.*v\d+.*▶ run/.test(lensText), JSON.stringify(lensText));
  await shot(page, p('1-code-lens.png'));

  // 2. The first hover on a call to another atom, from the mouse move to the widget on screen.
  // The editor re-renders its lines as tokens arrive (a span can go between finding and measuring it).
  const box = await until(`a call of ${w.callee} on screen`, () => callToken(page, w.callee).boundingBox({ timeout: 2_000 }));
  await page.mouse.move(box.x + box.width / 2, box.y - 60);
  const hover = page.locator('.monaco-hover', { hasText: 'used by' }).filter({ visible: true }).first();
  let hoverTime = await timeToVisible(page, '.monaco-hover', 'used by', () => page.mouse.move(box.x + box.width / 2, box.y + box.height / 2), 30_000);
  // A pointer that arrives during a re-render can be missed; arrive again (the first time stays unmeasured).
  for (let i = 0; i < 3 && !(await hover.isVisible().catch(() => false)); i++) {
    await page.mouse.move(box.x + box.width / 2, box.y - 60);
    await page.mouse.move(box.x + box.width / 2 + 2, box.y + box.height / 2);
    await hover.waitFor({ timeout: 10_000 }).catch(() => {});
    hoverTime = { ms: undefined };
  }
  measurements[`${w.label}FirstHoverMs`] = hoverTime.ms;
  // The machine is shared: its load goes beside the figures.
  measurements[`${w.label}LoadAverage`] = loadavg().map((l) => l.toFixed(1)).join(' ');
  const hoverText = clean(await hover.innerText().catch(() => ''));
  check(`${w.label}: hovering a call to ${w.callee} shows its signature, ports, description and "used by"`, w.hover.every((t) => hoverText.includes(t)) && /used by \d+ atoms?\b/.test(hoverText), JSON.stringify(hoverText.slice(0, 300)));
  log(`${w.label}: first hover ${hoverTime.ms} ms after the mouse arrived (editor.hover.delay 300 ms included)`);
  await shot(page, p('2-hover.png'));
  await page.mouse.move(box.x + box.width / 2, box.y - 200);
  await page.keyboard.press('Escape');
  await hover.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
  // The same hover again, for a figure on this (shared, busy) machine without the first request's costs.
  const again = await timeToVisible(page, '.monaco-hover', 'used by', () => page.mouse.move(box.x + box.width / 2 + 1, box.y + box.height / 2), 30_000);
  measurements[`${w.label}SecondHoverMs`] = again.ms;
  await page.mouse.move(box.x + box.width / 2, box.y - 200);
  await page.keyboard.press('Escape');

  // 3. Completion while typing: a new line at the end of the function's last line, the first letter typed.
  await page.locator('.editor-instance .view-line', { hasText: w.lastLine }).first().click();
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  const completionTime = await timeToVisible(page, '.suggest-widget .monaco-list-row', w.calleePrefix, () => page.keyboard.press(w.callee[0]), 30_000);
  measurements[`${w.label}FirstCompletionMs`] = completionTime.ms;
  log(`${w.label}: first completion list ${completionTime.ms} ms after the keypress`);
  const firstRows = clean((await page.locator('.suggest-widget .monaco-list-row').allInnerTexts().catch(() => [])).join(' | '));
  check(`${w.label}: typing a letter lists atoms with their signatures`, completionTime.ms !== undefined && w.rowSignature.test(firstRows), JSON.stringify(firstRows.slice(0, 240)));
  await shot(page, p('3-completion-first-letter.png'));
  // And again: the list closed, the letter taken back and typed anew.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Backspace');
  await page.locator('.suggest-widget .monaco-list-row').first().waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
  const secondCompletion = await timeToVisible(page, '.suggest-widget .monaco-list-row', w.calleePrefix, () => page.keyboard.press(w.callee[0]), 30_000);
  measurements[`${w.label}SecondCompletionMs`] = secondCompletion.ms;
  log(`${w.label}: completion list again ${secondCompletion.ms} ms after the keypress`);
  await page.keyboard.type(w.callee.slice(1), { delay: 30 });
  const row = page.locator('.suggest-widget .monaco-list-row.focused', { hasText: w.callee }).first();
  await row.waitFor({ timeout: 30_000 }).catch(() => {});
  const rowText = clean(await row.innerText().catch(() => ''));
  check(`${w.label}: completion offers ${w.callee} with its signature`, rowText.includes(w.callee) && rowText.includes(w.completionDetail), JSON.stringify(rowText));
  await shot(page, p('4-completion.png'));

  // 4. Accepting it writes the call and shows the ports being typed.
  await page.keyboard.press('Enter');
  await page.keyboard.type('1, ', { delay: 30 });
  const hints = page.locator('.parameter-hints-widget', { hasText: w.callee }).filter({ visible: true }).first();
  await hints.waitFor({ timeout: 20_000 }).catch(() => {});
  const hintsText = clean(await hints.innerText().catch(() => ''));
  check(`${w.label}: parameter hints show ${w.callee}'s ports`, hintsText.includes(w.hints), JSON.stringify(hintsText.slice(0, 160)));
  await shot(page, p('5-parameter-hints.png'));
  await page.keyboard.press('Escape');

  // 5. A wrong call (too many or too few arguments) and a name that is no atom, in the Problems panel.
  await page.keyboard.type('2', { delay: 30 });
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type(`${w.callee}zz`, { delay: 20 });
  await page.keyboard.press('Escape');
  await page.keyboard.type('(1);', { delay: 20 });
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+Shift+M');
  const arity = page.locator('.markers-panel .monaco-list-row', { hasText: w.arity }).first();
  const unknown = page.locator('.markers-panel .monaco-list-row', { hasText: `${w.callee}zz is no atom` }).first();
  await arity.waitFor({ timeout: 30_000 }).catch(() => {});
  await unknown.waitFor({ timeout: 10_000 }).catch(() => {});
  const problems = clean((await page.locator('.markers-panel .monaco-list-row').allInnerTexts().catch(() => [])).join(' | '));
  check(`${w.label}: the Problems panel lists the wrong call`, await arity.isVisible().catch(() => false), JSON.stringify(problems.slice(0, 400)));
  check(`${w.label}: the Problems panel lists the unknown name with the atom it may mean`, (await unknown.isVisible().catch(() => false)) && problems.includes(`Did you mean ${w.callee}`), JSON.stringify(problems.slice(0, 400)));
  await shot(page, p('6-problems.png'));
  await page.keyboard.press('Control+Shift+M');
  // Undone as a person would (code-server may have auto-saved the lines meanwhile: then the text tree
  // refused the file, "Not taken into the atom store", and the save of the undone text takes it again).
  await page.locator('.editor-instance .view-lines').first().click();
  const undone = await until('the typed lines to be undone', async () => {
    if ((await editorText(page)) === original) return true;
    await page.keyboard.press('Control+Z');
    return undefined;
  }).catch(() => false);
  await page.keyboard.press('Control+S');
  check(`${w.label}: undo takes the typed lines out again`, undone);

  // 6. F12 on the call opens the callee.
  await clickCall(page, w.callee);
  await page.keyboard.press('F12');
  const opened = await until(`${w.callee}.js to open`, async () => ((await page.locator(`.tab.active[aria-label^="${w.callee}.js"]`).count()) > 0 && (await editorText(page)).includes(`function ${w.callee}(`) ? true : undefined)).catch(() => false);
  check(`${w.label}: F12 on a call opens ${w.callee}.js`, opened);
  await shot(page, p('7-go-to-definition.png'));
  await quickOpen(page, `${w.caller}.js`);

  // 7. F2 on the call: the rename input, then Ctrl+Enter for the preview of what rename_atom will do.
  const renameInput = page.locator('.rename-box input, .rename-box textarea').first();
  // A rename box can wait for the other rename providers (TypeScript's) on a busy machine: a short wait
  // first, Escape (which ends a pending rename) and F2 again, and a long last wait. And now and then the
  // caller's file is written again after the click (the undone lines saved above, taken into the store and
  // written back): its editor reloads, the cursor goes to the first line, and F2 there says "You cannot
  // rename this element." (seen in this step's screenshots). Then the call is clicked again at once.
  const waits = [8_000, 8_000, 30_000];
  let lost = '';
  for (let attempt = 0; !(await renameInput.isVisible()); attempt++) {
    if (attempt === waits.length) throw new Error(`F2 on ${w.callee} showed no rename box in ${attempt} tries`);
    if (attempt > 0) {
      log(`${w.label}: no rename box after F2 (${lost}; load ${loadavg()[0].toFixed(1)}); Escape and F2 again`);
      await shot(page, p(`8-no-rename-box-${attempt}.png`)); // what the page showed instead
      await page.keyboard.press('Escape');
    }
    const line = await clickCall(page, w.callee);
    await page.locator('.editor-instance .monaco-editor.focused').first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('F2');
    lost = await until('the rename box, or the cursor off the call', async () => {
      if (await renameInput.isVisible()) return 'shown';
      const now = await cursorLine(page);
      return now !== line ? `the cursor went from line ${line} to line ${now}` : undefined;
    }, waits[attempt]).catch(() => `nothing after ${waits[attempt]} ms`);
  }
  check(`${w.label}: F2 on a call offers to rename ${w.callee}`, (await renameInput.inputValue()) === w.callee, await renameInput.inputValue());
  await renameInput.fill(w.renameTo);
  await shot(page, p('8-rename-input.png'));
  await page.keyboard.press('Control+Enter'); // this VS Code's "Ctrl+Enter to Preview" (Shift+Enter in older ones)
  // The Refactor Preview in the panel: VS Code lists the file operation, "/<old>.js → /<new>.js (renaming)".
  const previewRow = page.locator('.part.panel .monaco-list-row', { hasText: `${w.renameTo}.js` }).first();
  await previewRow.waitFor({ timeout: 60_000 }).catch(() => {});
  const previewText = clean(await previewRow.innerText().catch(() => ''));
  check(`${w.label}: the rename preview shows the atom's file renamed`, previewText.includes(`${w.callee}.js → /${w.renameTo}.js`), JSON.stringify(previewText));
  await shot(page, p('9-rename-preview.png'));
  const button = (label) => page.locator('.part.panel .monaco-button', { hasText: new RegExp(`^${label}$`) }).filter({ visible: true }).first();
  if (w.apply) {
    await button('Apply').click();
    // Once applied, VS Code moves the callee's open tab to the new name (and may bring it forward):
    // then back to the caller's own tab.
    await page.locator(`.tab[aria-label^="${w.renameTo}.js"]`).first().waitFor({ timeout: 60_000 }).catch(() => {});
    await page.locator(`.tab[aria-label^="${w.caller}.js"]`).first().click();
    await page.locator(`.tab.active[aria-label^="${w.caller}.js"]`).first().waitFor({ timeout: 15_000 });
    const applied = await until('the caller to call the new name', async () => {
      const text = await editorText(page);
      return text.includes(`function ${w.caller}(`) && text.includes(`${w.renameTo}(`) && !text.includes(`${w.callee}(`) ? true : undefined;
    }, 60_000).catch(() => false);
    check(`${w.label}: applying the rename rewrites the call in the caller's editor`, applied, JSON.stringify((await editorText(page)).slice(0, 400)));
    await shot(page, p('10-renamed.png'));
    // F12 on the rewritten call opens the renamed atom's file.
    await clickCall(page, w.renameTo);
    await page.keyboard.press('F12');
    const follows = await until(`${w.renameTo}.js to open`, async () => ((await page.locator(`.tab.active[aria-label^="${w.renameTo}.js"]`).count()) > 0 && (await editorText(page)).includes(`function ${w.renameTo}(`) ? true : undefined)).catch(() => false);
    check(`${w.label}: F12 on the rewritten call opens the renamed atom's file`, follows);
    await shot(page, p('11-renamed-definition.png'));
  } else {
    await button('Discard').click();
    await previewRow.waitFor({ state: 'hidden', timeout: 15_000 }).catch(() => {});
    check(`${w.label}: discarding the preview changes nothing`, (await editorText(page)).includes(`${w.callee}(`) && !(await editorText(page)).includes(w.renameTo));
  }
}

/** A caller near the top of a generated workspace and the first atom its code calls. */
function pickCall(folder) {
  const files = readdirSync(join(folder, 'atoms')).filter((f) => f.endsWith('.js'));
  const index = (f) => Number(/_a(\d+)\.js$/.exec(f)?.[1] ?? -1);
  for (const f of files.sort((a, b) => index(b) - index(a))) {
    const m = /return (gen_l\d+_a\d+)\(n\)/.exec(readFileSync(join(folder, 'atoms', f), 'utf8'));
    if (m) return { caller: f.replace(/\.js$/, ''), callee: m[1] };
  }
  throw new Error('no call in the generated workspace');
}

export async function runLanguageUi({ build = true } = {}) {
  const t0 = Date.now();
  const runDir = prepareRun('language', shots, build);
  const folder = join(runDir, 'jumping-cube');
  mkdirSync(folder, { recursive: true });
  cpSync(join(root, 'examples', 'jumping-cube', 'atoms'), join(folder, 'atoms'), { recursive: true });
  const large = join(runDir, 'thousand-atoms');
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'seed-example.ts'), '--generate', '1000', large], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const big = pickCall(large);
  const server = await startCodeServer({ runDir, folder });
  log(`code-server ${server.url} (run dir ${runDir}) after ${Date.now() - t0} ms`);
  let browser;
  try {
    let page;
    ({ browser, page } = await openAtomicWorkbench(server, folder, runDir));
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'feature' }).first().waitFor({ timeout: 90_000 });
    await languageSteps(page, {
      label: 'sample',
      caller: 'player_movement',
      callee: 'math_clamp',
      lastLine: 'return math_clamp',
      hover: ['function math_clamp(value: number, min: number, max: number): number', 'Clamp a number between min and max.', 'value: number — The number to limit', 'clamped: number'],
      calleePrefix: 'math_',
      rowSignature: /math_clamp\s*\(value: number, min: number, max: number\): number/,
      completionDetail: '(value: number, min: number, max: number): number',
      hints: 'math_clamp(value: number, min: number, max: number): number',
      arity: 'math_clamp takes 3 arguments, got 2',
      renameTo: 'clamp_value',
      apply: true,
    });

    // The same on 1,000 atoms, in a window of its own (its own extension host), as the first requests there.
    const second = await browser.newPage();
    await second.goto(workbenchUrl(server.url, large));
    await second.locator('.part.activitybar .action-item a[aria-label^="Atomic Coding"]').first().click({ timeout: 90_000 });
    await second.locator('.part.statusbar .statusbar-item', { hasText: '1000 atoms' }).first().waitFor({ timeout: 120_000 });
    const layer = /^gen_l(\d+)_a(\d+)$/.exec(big.callee);
    await languageSteps(second, {
      label: 'thousand',
      caller: big.caller,
      callee: big.callee,
      lastLine: `return ${big.callee}`,
      hover: [`function ${big.callee}(n: number): number`, `Generated atom ${layer[2]} in layer ${layer[1]}`, 'n: number', 'value: number'],
      calleePrefix: 'gen_l',
      rowSignature: /gen_l\d+_a\d+\s*\(n: number\): number/,
      completionDetail: '(n: number): number',
      hints: `${big.callee}(n: number): number`,
      arity: `${big.callee} takes 1 argument, got 2`,
      renameTo: `${big.callee}_renamed`,
      apply: false,
    });
  } catch (err) {
    await unexpected(err, check, browser, shots);
  } finally {
    await browser?.close().catch(() => {});
    server.stop();
  }
  writeFileSync(join(shots, 'measurements.json'), JSON.stringify(measurements, null, 2));
  log(`measurements: ${JSON.stringify(measurements)}`);
  return summary(`language UI run (${Date.now() - t0} ms; screenshots in ${shots})`);
}

runWhenMain(import.meta.url, runLanguageUi);
