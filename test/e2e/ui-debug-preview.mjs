// Debug Live Preview in a real VS Code (code-server) driven through Chromium, as a person does it: open the
// jumping-cube sample, open atoms/draw_cube.js, set a breakpoint on a line of it, run "Atomic Coding: Debug
// Live Preview" from the command palette, and see VS Code's debugger (js-debug, built in) stop on that line
// with the call stack in atom files (draw_cube.js, then render_frame.js that called it) and the atom's
// variables; then step out into render_frame.js. Screenshots of both stops are checked for what they show
// and saved in .e2e/screenshots/debug-preview/.
// Usage: node test/e2e/ui-debug-preview.mjs [--no-build] ; exit code 0 = every check passed.
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { log, openAtomicWorkbench, root, runWhenMain, startCodeServer } from '../../scripts/e2e/lib.mjs';
import { checks, runCommand, until, prepareRun, unexpected } from './uiSteps.mjs';

const shots = join(root, '.e2e', 'screenshots', 'debug-preview');
const { check, summary } = checks();

/** The rows of a list in the Run and Debug view (`.debug-call-stack`, `.debug-variables`), as text. */
const rows = (page, view) => page.locator(`.${view} .monaco-list-row`).allInnerTexts();

export async function runDebugPreviewUi({ build = true } = {}) {
  const t0 = Date.now();
  const runDir = prepareRun('debug', shots, build);
  const folder = join(runDir, 'jumping-cube');
  mkdirSync(folder, { recursive: true });
  for (const f of ['atoms', 'preview.html']) cpSync(join(root, 'examples', 'jumping-cube', f), join(folder, f), { recursive: true });
  const lines = readFileSync(join(folder, 'atoms', 'draw_cube.js'), 'utf8').split('\n');
  // A line after `height` is computed, so the atom's variables all have values when it stops.
  const line = lines.findIndex((l) => l.includes('ctx.fillStyle')) + 1;
  const server = await startCodeServer({ runDir, folder });
  log(`code-server ${server.url} (run dir ${runDir}) after ${Date.now() - t0} ms`);
  let browser;
  try {
    let page;
    ({ browser, page } = await openAtomicWorkbench(server, folder, runDir));
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'feature' }).first().waitFor({ timeout: 60_000 });

    // 1. atoms/draw_cube.js in the editor, a breakpoint on its fillStyle line.
    await runCommand(page, 'Go to File...');
    await page.locator('.quick-input-widget input').fill('draw_cube.js');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'draw_cube.js' }).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab', { hasText: 'draw_cube.js' }).waitFor({ timeout: 20_000 });
    await runCommand(page, 'Go to Line/Column...');
    await page.locator('.quick-input-widget input').fill(`:${line}`);
    await page.keyboard.press('Enter');
    await runCommand(page, 'Debug: Toggle Breakpoint');
    await page.locator('.monaco-editor .codicon-debug-breakpoint').first().waitFor({ timeout: 15_000 });
    check('a breakpoint is set in atoms/draw_cube.js', true, `line ${line}`);

    // 2. Debug Live Preview: js-debug starts Chromium on the loopback preview and stops on the line.
    await runCommand(page, 'Atomic Coding: Debug Live Preview');
    const stack = await until(
      'the debugger to stop in draw_cube.js',
      async () => {
        // VS Code shows the top frame first and the rest when the debugger sends them.
        const r = await rows(page, 'debug-call-stack');
        return r.some((t) => /draw_cube\.js/.test(t)) && r.some((t) => /game_loop\.js/.test(t)) ? r : undefined;
      },
      120_000,
    );
    const frames = stack.map((t) => t.replace(/\s+/g, ' ').trim());
    log(`call stack: ${JSON.stringify(frames.slice(0, 8))}`);
    const top = frames.findIndex((t) => /draw_cube\.js/.test(t));
    check('the call stack shows draw_cube in atoms/draw_cube.js on the breakpoint line', new RegExp(`draw_cube.*draw_cube\\.js\\s*${line}:`).test(frames[top]), frames[top]);
    check('below it, the atom that called it: render_frame in render_frame.js', frames.slice(top + 1).some((t) => /render_frame.*render_frame\.js/.test(t)), JSON.stringify(frames.slice(top + 1, top + 4)));
    check('and the game loop in game_loop.js', frames.slice(top + 1).some((t) => /game_loop\.js/.test(t)), JSON.stringify(frames.slice(top + 1, top + 6)));
    const stopped = await until('the stopped line in the editor', async () => ((await page.locator('.monaco-editor .debug-top-stack-frame-line').count()) > 0 ? true : undefined));
    check('the editor shows atoms/draw_cube.js stopped on the line', stopped && (await page.locator('.tabs-container .tab.active', { hasText: 'draw_cube.js' }).count()) > 0);
    // The Local scope (VS Code names it after the function) opens with a click.
    await page.locator('.debug-variables .monaco-list-row', { hasText: 'Local' }).first().click();
    const variables = await until('the atom\'s variables', async () => {
      const r = await rows(page, 'debug-variables');
      // Rows read `x = 120`.
      const has = (name) => r.some((t) => new RegExp(`^${name}\\s*=\\s*\\S`).test(t.trim()));
      return ['x', 'y', 'size', 'height'].every(has) ? r : undefined;
    });
    check("the Variables view shows the atom's locals (x, y, ctx, size, height)", variables.some((t) => /^ctx\s*=/.test(t.trim())), JSON.stringify(variables.slice(0, 8).map((t) => t.replace(/\s+/g, ' '))));
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(shots, '1-stopped-in-draw_cube.png') });
    log('screenshot 1-stopped-in-draw_cube.png');

    // 3. Step out: the debugger stops in the atom that called it.
    await runCommand(page, 'Debug: Step Out');
    const out = await until(
      'the step out to stop in render_frame.js',
      async () => {
        const r = (await rows(page, 'debug-call-stack')).map((t) => t.replace(/\s+/g, ' ').trim());
        const first = r.find((t) => /\.js\s*\d+:\d+/.test(t));
        return first && /render_frame\.js/.test(first) ? r : undefined;
      },
      60_000,
    );
    check('stepping out of draw_cube stops in render_frame.js, the atom that called it', true, out.find((t) => /render_frame\.js/.test(t)));
    await until('the editor to show render_frame.js', async () => ((await page.locator('.tabs-container .tab.active', { hasText: 'render_frame.js' }).count()) > 0 ? true : undefined));
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(shots, '2-stepped-out-to-render_frame.png') });
    log('screenshot 2-stepped-out-to-render_frame.png');
    await runCommand(page, 'Debug: Stop');
  } catch (err) {
    await unexpected(err, check, browser, shots);
  } finally {
    await browser?.close().catch(() => {});
    server.stop();
  }
  return summary(`debug preview UI run (after ${Date.now() - t0} ms; screenshots in ${shots})`);
}

runWhenMain(import.meta.url, runDebugPreviewUi);
