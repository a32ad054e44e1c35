// Steps the UI scripts share (test/e2e/ui-*.mjs): a run's start, checks that are counted, an unexpected error, screenshots,
// polling, the command palette and Quick Open as a person uses them, and timing a widget in the page.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildAndPackage, ensureInstalled, installVsix, log, newRunDir, vsixPath } from '../../scripts/e2e/lib.mjs';

/**
 * A UI run's start: what the runs need installed (unless the caller did), the extension packaged (or the
 * last package), `shots` emptied, and a run folder `label-*` with the extension installed for code-server.
 */
export function prepareRun(label, shots, build) {
  if (!process.env.ATOMIC_E2E_SKIP_INSTALL) ensureInstalled();
  const vsix = build ? buildAndPackage() : vsixPath();
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  const runDir = newRunDir(label);
  installVsix(vsix, join(runDir, 'ext'), join(runDir, 'ud'));
  return runDir;
}

/** An error no step expected: logged, counted as a failed check, and the last page kept as failure.png. */
export async function unexpected(err, check, browser, shots) {
  log(`ERROR ${err.stack ?? err}`);
  check('no unexpected error', false, err.message);
  const page = browser?.pages().at(-1);
  if (page) await page.screenshot({ path: join(shots, 'failure.png') }).catch(() => {});
}

/** A list of named checks; `ok()` is the run's exit code (0 only when there were checks and all passed). */
export function checks() {
  const results = [];
  return {
    check(name, ok, detail = '') {
      results.push({ name, ok: !!ok });
      log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` ${detail}` : ''}`);
    },
    summary(what) {
      const failed = results.filter((r) => !r.ok);
      log(`${what}: ${results.length - failed.length} checks passed, ${failed.length} failed${failed.length ? `: ${failed.map((f) => f.name).join('; ')}` : ''}`);
      return failed.length || results.length === 0 ? 1 : 0;
    },
  };
}

export const clean = (s) => (s ?? '').replace(/\u00a0/g, ' ');

/** Polls `probe` until it returns something truthy; fails with `what` after `ms`. */
export async function until(what, probe, ms = 30_000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try {
      last = await probe();
      if (last) return last;
    } catch (err) {
      last = err.message;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)?.slice(0, 200)})`);
}

export async function shot(page, dir, name) {
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(dir, name) });
  log(`screenshot ${join(dir, name)}`);
}

export async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 15_000 });
  const pressedAt = Date.now();
  await page.keyboard.press('Enter');
  // When the command was run (epoch ms), for figures measured from it.
  return pressedAt;
}

/** Opens a file through Quick Open (Ctrl+P), as a person would, and waits for its tab. */
export async function quickOpen(page, file) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(file);
  // Enter takes the focused row: wait until the list has filtered down to the file (a recently opened one
  // stays focused for a moment after typing).
  await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: file }).first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Enter');
  await page.locator(`.tab.active[aria-label^="${file}"]`).first().waitFor({ timeout: 30_000 });
}

/**
 * Milliseconds from just before `act` (a key press, a mouse move) to the first frame in which an element
 * matching `selector` whose text contains `text` is visible, measured inside the page (a mutation
 * observer), so polling from the test adds nothing. Resolves with { ms } or { ms: undefined } on timeout.
 */
export async function timeToVisible(page, selector, text, act, timeout = 60_000) {
  await page.evaluate(
    ([sel, txt]) => {
      const look = () => [...document.querySelectorAll(sel)].some((el) => el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) && el.textContent.includes(txt));
      window.__atomicSeen = undefined;
      window.__atomicInputAt = undefined;
      window.__atomicObserver?.disconnect();
      // When the page took the text (a fill's last input event), apart from when the driver was asked.
      document.addEventListener('input', () => (window.__atomicInputAt = performance.now()), { capture: true });
      const observer = new window.MutationObserver(() => {
        if (window.__atomicSeen === undefined && look()) {
          window.__atomicSeen = performance.now();
          observer.disconnect();
        }
      });
      window.__atomicObserver = observer;
      observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    },
    [selector, text],
  );
  const start = await page.evaluate(() => performance.now());
  await act();
  const seen = await page.waitForFunction(() => window.__atomicSeen, null, { timeout, polling: 50 }).then((h) => h.jsonValue(), () => undefined);
  const inputAt = await page.evaluate(() => window.__atomicInputAt);
  await page.evaluate(() => window.__atomicObserver?.disconnect());
  return {
    ms: seen === undefined ? undefined : Math.round(seen - start),
    /** From the page's last input event during `act` (the text typed or filled in) to the sight, if there was one. */
    fromInputMs: seen === undefined || inputAt === undefined || inputAt < start ? undefined : Math.round(seen - inputAt),
  };
}

/** The frame of a webview whose document has an element with `id` (webviews are nested iframes). */
export async function webviewFrame(page, id) {
  return until(`a webview with #${id}`, async () => {
    for (const frame of page.frames()) {
      if (await frame.evaluate((i) => !!document.getElementById(i), id).catch(() => false)) return frame;
    }
    return undefined;
  });
}

/** The graph view's status: its data attributes (render and layout times, counts, selection) and its text. */
export const graphStatus = (frame) => frame.evaluate(() => ({ ...document.getElementById('status').dataset, text: document.getElementById('status').textContent }));
