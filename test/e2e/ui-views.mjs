// The views at scale and their words, in a real VS Code (code-server) driven through Chromium (issue 35,
// items 6 and 7). A 1,000-atom workspace opened twice: as a fresh clone (atoms/ only, no .atomic/) and
// again once it has been opened (its .atomic/ from the first window). Each time, as soon as the status bar
// counts the atoms: the first Search Atoms… query (from the typed query to its first result on screen),
// semantic_search through the extension's MCP server (the command line's bridge, as an agent), and the
// dependency graph (from the command to its painted summary: a box per group of atoms named alike). The figures are reported
// (.e2e/screenshots/views/measurements.json), not asserted; what shows is. Then a one-atom workspace: "1
// atom" in the status bar, the graph and the status details, and the history's compare tab, whose title
// stays true after a restore ("v1 ↔ current", the right side showing the restored text).
// Usage: node test/e2e/ui-views.mjs [--no-build] ; exit code 0 = every check passed.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log, openAtomicWorkbench, root, runWhenMain, startCodeServer, workbenchUrl } from '../../scripts/e2e/lib.mjs';
import { callTool, connectCli } from '../../scripts/e2e/sample.mjs';
import { checks, clean, runCommand, shot as shotIn, timeToVisible, until, graphStatus, webviewFrame, prepareRun, unexpected } from './uiSteps.mjs';

const shots = join(root, '.e2e', 'screenshots', 'views');
const { check, summary } = checks();
const measurements = {};
const shot = (page, name) => shotIn(page, shots, name);

const statusItem = (page) => page.locator('.part.statusbar .statusbar-item', { hasText: /\d+ atoms?\b/ }).first();

/** One window on the 1,000-atom folder: open, first search (quick pick, then MCP), graph. */
async function thousandSteps(page, label, folder, base) {
  const opened = Date.now();
  await page.goto(workbenchUrl(base, folder));
  await page.locator('.part.activitybar .action-item a[aria-label^="Atomic Coding"]').first().click({ timeout: 90_000 });
  await page.locator('.part.statusbar .statusbar-item', { hasText: '1000 atoms' }).first().waitFor({ timeout: 180_000 });
  measurements[`${label}OpenMs`] = Date.now() - opened;
  // The machine is shared: its load goes beside every figure.
  measurements[`${label}LoadAverage`] = loadavg().map((l) => l.toFixed(1)).join(' ');
  log(`${label}: the status bar counts 1000 atoms ${measurements[`${label}OpenMs`]} ms after the page started loading`);

  // The first search, as a person makes it the moment the workspace is open.
  await runCommand(page, 'Atomic Coding: Search Atoms');
  const pick = page.locator('.quick-input-widget', { hasText: 'Search Atoms' });
  await pick.waitFor({ timeout: 60_000 });
  const input = page.locator('.quick-input-widget input');
  const query = 'generated atom 520 in layer 8';
  const firstSearch = await timeToVisible(page, '.quick-input-widget .monaco-list-row', 'gen_l8_a520', () => input.fill(query), 30_000);
  measurements[`${label}FirstSearchMs`] = firstSearch.ms;
  // From the query in the box (the fill's input event) to the result: without the driver's own steps before it.
  measurements[`${label}FirstSearchFromInputMs`] = firstSearch.fromInputMs;
  const firstRow = clean(await pick.locator('.monaco-list-row').first().innerText().catch(() => ''));
  const title = clean(await pick.locator('.quick-input-title').innerText().catch(() => ''));
  check(`${label}: the first Search Atoms query answers with the atom described, first`, firstSearch.ms !== undefined && firstRow.includes('gen_l8_a520') && firstRow.includes('(n: number) => number'), `${firstSearch.ms} ms (${firstSearch.fromInputMs} ms from the query in the box); ${JSON.stringify(firstRow.slice(0, 160))}; title ${JSON.stringify(title)}`);
  measurements[`${label}SearchTitle`] = title;
  await shot(page, `${label}-1-first-search.png`);
  await page.keyboard.press('Escape');

  // semantic_search through the extension's own MCP server (the CLI bridges to it), as an agent asks.
  const agent = await connectCli(folder);
  try {
    const t = performance.now();
    const answer = await callTool(agent, 'semantic_search', { query: 'generated atom 730 in layer 11', limit: 5 });
    measurements[`${label}McpSearchMs`] = Math.round(performance.now() - t);
    check(`${label}: semantic_search through the extension's server finds the atom`, answer.includes('gen_l11_a730'), `${measurements[`${label}McpSearchMs`]} ms; ${JSON.stringify(answer.slice(0, 160))}`);
  } finally {
    await agent.close();
  }

  // The graph: from the command to the painted summary.
  // From the command (Enter, not the palette's typing before it) to the paint, on the page's own clock.
  const commandAt = await runCommand(page, 'Atomic Coding: Show Dependency Graph');
  const graph = await webviewFrame(page, 'status');
  const painted = await until('the 1,000-atom summary to paint', async () => {
    const s = await graphStatus(graph);
    return s.renderMs && s.view === 'summary' ? s : undefined;
  }, 120_000);
  measurements[`${label}GraphCommandToPaintMs`] = Number(painted.paintedAt) - commandAt;
  measurements[`${label}GraphRenderMs`] = Number(painted.renderMs);
  // Where the wait goes, from the page's own clock (epoch ms, the same machine): the webview and its script,
  // the snapshot's arrival, the first paint (the atoms; their edges follow).
  measurements[`${label}GraphCommandToScriptMs`] = Number(painted.scriptAt) - commandAt;
  measurements[`${label}GraphScriptMs`] = Number(painted.readyAt) - Number(painted.scriptAt);
  measurements[`${label}GraphScriptToLoadMs`] = Number(painted.loadAt) - Number(painted.scriptAt);
  measurements[`${label}GraphScriptToSnapshotMs`] = Number(painted.messageAt) - Number(painted.scriptAt);
  measurements[`${label}GraphCommandToSentMs`] = Number(painted.sentAt) - commandAt;
  measurements[`${label}GraphSentToSnapshotMs`] = Number(painted.messageAt) - Number(painted.sentAt);
  check(`${label}: the 1,000-atom graph first shows its summary, groups of atoms named alike`, painted.layoutIn === 'summary', `${painted.layoutIn}; painted ${measurements[`${label}GraphCommandToPaintMs`]} ms after the command (${painted.renderMs} ms in the page)`);
  // Each box reads as the page drew it: its words, then how many atoms of which type.
  const groups = await graph.evaluate(() => window.atomicGraph.groups());
  check(`${label}: the summary's groups cover every type and every atom, with their counts`, ['core', 'feature', 'util'].every((t) => groups.some((g) => g.type === t)) && groups.reduce((n, g) => n + g.atoms, 0) === 1000, JSON.stringify(groups.slice(0, 4)));
  check(`${label}: the status counts atoms, dependencies and unused ones`, /^1000 atoms · \d+ dependencies · \d+ unused/.test(painted.text), JSON.stringify(painted.text));
  await shot(page, `${label}-2-graph-summary.png`);
}

/** Waits until no process holds the folder's lock (the window before was closed). */
async function lockReleased(folder) {
  await until(`${folder}/.atomic/lock to be released`, () => !existsSync(join(folder, '.atomic', 'lock')), 60_000);
}

export async function runViewsUi({ build = true } = {}) {
  const t0 = Date.now();
  const runDir = prepareRun('views', shots, build);
  // A user cache of this run's own (the extension host and the command line inherit it): no vectors
  // from earlier runs of the same generated atoms, so the clone is as fresh as on a new machine.
  process.env.ATOMIC_CODING_CACHE_DIR = join(runDir, 'user-cache');
  // The 1,000 atoms are written as files by a workspace; the clone takes only its atoms/.
  const generated = join(runDir, 'generated');
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'seed-example.ts'), '--generate', '1000', generated], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const clone = join(runDir, 'thousand-atoms');
  mkdirSync(clone);
  cpSync(join(generated, 'atoms'), join(clone, 'atoms'), { recursive: true });
  const one = join(runDir, 'one-atom');
  mkdirSync(join(one, 'atoms'), { recursive: true });
  writeFileSync(join(one, 'atoms', 'solo_greeting.js'), '/**\n * The greeting shown on the title screen.\n *\n * @kind util\n * @returns {string} text - The greeting\n */\nfunction solo_greeting() {\n  return "hello";\n}\n');
  const server = await startCodeServer({ runDir, folder: clone });
  log(`code-server ${server.url} (run dir ${runDir}) after ${Date.now() - t0} ms`);
  let browser;
  try {
    // 1. The fresh clone, then the same folder opened again.
    let page;
    ({ browser, page } = await openAtomicWorkbench(server, one, runDir));
    const cloneWindow = await browser.newPage();
    await thousandSteps(cloneWindow, 'clone', clone, server.url);
    check('the first window wrote the store into the clone', existsSync(join(clone, '.atomic')));
    await cloneWindow.close();
    await lockReleased(clone);
    const again = await browser.newPage();
    await thousandSteps(again, 'reopened', clone, server.url);
    await again.close();

    // 2. One atom: the words in the singular, and the history's compare tab through a restore.
    await page.bringToFront();
    const status = clean(await statusItem(page).innerText({ timeout: 60_000 }));
    check('the status bar says "1 atom"', /(^|\s)1 atom$/.test(status.trim()), JSON.stringify(status));
    await statusItem(page).click();
    const details = page.locator('.quick-input-widget');
    await details.locator('.monaco-list-row', { hasText: 'MCP server running' }).waitFor({ timeout: 15_000 });
    const detailRows = clean((await details.locator('.monaco-list-row').allInnerTexts()).join(' | '));
    check('the status details say "1 atom"', /1 atom(?!s)/.test(detailRows) && !/1 atoms/.test(detailRows), JSON.stringify(detailRows.slice(0, 240)));
    await shot(page, 'one-1-status-details.png');
    await page.keyboard.press('Escape');
    await runCommand(page, 'Atomic Coding: Show Dependency Graph');
    const graph = await webviewFrame(page, 'status');
    const painted = await until('the graph of one atom', async () => {
      const s = await graphStatus(graph);
      return s.renderMs ? s : undefined;
    });
    check('the graph says "1 atom · 0 dependencies"', /^1 atom · 0 dependencies/.test(painted.text), JSON.stringify(painted.text));
    await shot(page, 'one-2-graph.png');

    const agent = await connectCli(one);
    try {
      await callTool(agent, 'upsert_atom', { name: 'solo_greeting', type: 'util', description: 'The greeting shown on the title screen.', outputs: [{ name: 'text', type: 'string', description: 'The greeting' }], code: 'function solo_greeting() {\n  return "hello, second take";\n}\n' });
    } finally {
      await agent.close();
    }
    // Show History from the palette, answered with the keyboard: which atom, which version, what to do.
    const history = async (version, action) => {
      const widget = page.locator('.quick-input-widget');
      const input = widget.locator('input');
      const choose = async (title, text) => {
        await widget.locator('.quick-input-title', { hasText: title }).waitFor({ timeout: 15_000 });
        await input.fill(text);
        await widget.locator('.monaco-list-row.focused', { hasText: text }).waitFor({ timeout: 15_000 });
        await page.keyboard.press('Enter');
      };
      // From an editor of the atom (the diff) the command knows which atom; from elsewhere it asks.
      const pickShown = async () => (await widget.locator('.quick-input-title', { hasText: 'History of solo_greeting' }).isVisible()) || (await widget.locator('.monaco-list-row', { hasText: 'solo_greeting' }).first().isVisible());
      // A pick that opens while the graph's webview takes the focus back closes at once (seen under load,
      // the machine otherwise idle for the 30 s waited): as a person would, the command again.
      for (let attempt = 1; ; attempt++) {
        await runCommand(page, 'Atomic Coding: Show History / Restore Version');
        if (await until('the history pick', pickShown, attempt < 3 ? 8_000 : 30_000).then(() => true, () => false)) break;
        const focused = await page.evaluate(() => `${document.activeElement?.tagName}.${document.activeElement?.className}`.slice(0, 80));
        if (attempt === 3) throw new Error(`the history pick did not show in ${attempt} tries (focus on ${focused})`);
        log(`no history pick 8 s after the command (focus on ${focused}; load ${loadavg()[0].toFixed(1)}): the command again`);
        await page.keyboard.press('Escape');
        await page.locator('.part.sidebar .monaco-list-row', { hasText: 'solo_greeting' }).first().click();
      }
      if (!(await widget.locator('.quick-input-title', { hasText: 'History of' }).isVisible())) {
        await input.fill('solo_greeting');
        await widget.locator('.monaco-list-row.focused', { hasText: 'solo_greeting' }).waitFor({ timeout: 15_000 });
        await page.keyboard.press('Enter');
      }
      await choose('History of solo_greeting', `v${version}`);
      await choose(`solo_greeting v${version}`, action);
    };
    // Keyboard focus out of the graph's webview (a quick pick that opens from there can lose focus and close).
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'solo_greeting' }).first().click();
    await history(1, 'Compare with Current');
    const compareTab = page.locator('.tabs-container .tab', { hasText: 'solo_greeting: v1 ↔ current' }).first();
    const diffSides = async () => clean((await page.locator('.editor-instance .monaco-diff-editor .editor.modified .view-lines').first().innerText().catch(() => '')));
    // The tab shows before the diff editor has drawn its sides: wait for both, as a person looks.
    const compared = async () => (await compareTab.isVisible().catch(() => false)) && (await diffSides()).includes('second take');
    await until('the compare tab and its sides', compared, 20_000).catch(() => {});
    check('Compare opens the old version beside the current one, titled "v1 ↔ current"', await compared(), JSON.stringify((await diffSides()).slice(-120)));
    await shot(page, 'one-3-history-compare.png');
    await history(1, 'Restore v1');
    const restored = await until('the compare tab to show the restored text', async () => ((await diffSides()).includes('return "hello";') ? true : undefined)).catch(() => false);
    const tabs = clean((await page.locator('.tabs-container .tab').allInnerTexts()).join(' | '));
    check('after a restore the compare tab is still titled "v1 ↔ current" and its right side shows the restored text', restored && tabs.includes('solo_greeting: v1 ↔ current'), JSON.stringify(tabs));
    await shot(page, 'one-4-history-after-restore.png');
  } catch (err) {
    await unexpected(err, check, browser, shots);
  } finally {
    await browser?.close().catch(() => {});
    server.stop();
  }
  writeFileSync(join(shots, 'measurements.json'), JSON.stringify(measurements, null, 2));
  log(`measurements: ${JSON.stringify(measurements)}`);
  return summary(`views UI run (${Date.now() - t0} ms; screenshots in ${shots})`);
}

runWhenMain(import.meta.url, runViewsUi);
