/**
 * The live loop in Chromium, with pixels: the example game runs in the loopback browser preview (its
 * sandboxed frame, the development form of latest.js); changed atoms are swapped in while it runs. The
 * cube, mid-jump, keeps its height across a change of draw_cube's colour and shows the new colour; a
 * change of the boot atom restarts the game (the cube stands on the ground again, its state fresh).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { isProgramAtom, type Atom } from '../../src/atoms/model.js';
import { BrowserLiveLoop, type LiveState, type LiveUpdate } from '../../src/preview/hotSwap.js';
import { PreviewServer } from '../../src/preview/previewServer.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

const root = join(__dirname, '..', '..');
const WAIT = 30_000;
const GROUND_TOP = 340; // ground_y 380 minus the 40 px cube

let browser: BrowserContext;
let workspace: AtomWorkspace;
let server: PreviewServer;
let loop: BrowserLiveLoop;
const reports: string[] = [];

function liveState(): LiveState {
  const atoms = new Map<string, Atom>();
  for (const atom of workspace.atoms.all()) if (isProgramAtom(atom)) atoms.set(atom.name, atom);
  return { atoms, entry: workspace.bootAtom(), page: null };
}

/** What the extension does after a build (views/previewPanel.ts BrowserPreview): swap, or restart. */
async function publish(): Promise<LiveUpdate> {
  await workspace.builder.idle();
  return loop.built(liveState(), true);
}

async function edit(name: string, change: (code: string) => string): Promise<void> {
  const atom = workspace.atoms.get(name)!;
  const code = change(atom.code);
  assert.notEqual(code, atom.code, `${name} changed`);
  await workspace.upsert({ ...atom, description: atom.description ?? undefined, code });
}

/** The frame that runs the game (new after every restart). */
async function gameFrame(page: Page): Promise<Frame> {
  const deadline = Date.now() + WAIT;
  for (;;) {
    const frame = page.frames().find((f) => f.url().includes('/frame.html'));
    if (frame && (await frame.evaluate(() => typeof (self as unknown as { __atomicEval?: unknown }).__atomicEval === 'function').catch(() => false))) return frame;
    if (Date.now() > deadline) throw new Error('no game frame');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A value of the game's state, read in the frame through the development form's hook. */
function state(frame: Frame, key: string): Promise<number> {
  return frame.evaluate((k) => (self as unknown as { __atomicEval(code: string): number }).__atomicEval(`game_state(${JSON.stringify(k)})`), key);
}

/** The top row of pixels of exactly this colour on the canvas, or -1. */
function topOf(frame: Frame, rgb: [number, number, number]): Promise<number> {
  return frame.evaluate(([r, g, b]) => {
    const c = document.getElementById('game') as HTMLCanvasElement;
    const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < data.length; i += 4) if (data[i] === r && data[i + 1] === g && data[i + 2] === b) return Math.floor(i / 4 / c.width);
    return -1;
  }, rgb);
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + WAIT;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

before(async () => {
  const dir = tempDir('atomic-hot-swap-');
  mkdirSync(join(dir, 'atoms'));
  cpSync(join(root, 'examples', 'jumping-cube', 'atoms'), join(dir, 'atoms'), { recursive: true });
  workspace = await AtomWorkspace.open(dir, { embeddings: wordsOnly });
  await workspace.builder.rebuild();
  server = await PreviewServer.start({ bundle: () => workspace.builder.readBundle(), page: () => null, hotSwap: () => true });
  loop = new BrowserLiveLoop(server, liveState());
  server.onDidReport((r) => reports.push(r.kind === 'console' ? r.text : `error: ${r.message}`));
  const lib = (await import(join(root, 'scripts', 'e2e', 'lib.mjs'))) as { launchBrowser(runDir: string, viewport?: object): Promise<BrowserContext> };
  browser = await lib.launchBrowser(tempDir('hot-swap-browser-'), { width: 900, height: 560 });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await workspace?.close();
});

describe('hot swap in the browser preview', () => {
  it('mid-jump, a new colour for draw_cube shows and the cube keeps its height; a boot atom change restarts', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    let game = await gameFrame(page);
    await until('the cube on the ground', async () => (await state(game, 'y')) === GROUND_TOP);

    // A slow, long jump (a swap of physics_config), so the cube is surely in the air for the next swap.
    await edit('physics_config', (code) => code.replace('gravity: 1900', 'gravity: 30').replace('jump_force: 720', 'jump_force: 60'));
    const physics = await publish();
    assert.deepEqual(physics, { kind: 'swap', atoms: [{ name: 'physics_config', code: workspace.atoms.get('physics_config')!.code }] });
    await until('the swap reported', async () => reports.includes('swapped: physics_config'));
    assert.equal(await state(game, 'y'), GROUND_TOP, 'still the same game: no restart');

    await game.evaluate(() => window.dispatchEvent(new KeyboardEvent('keydown', { code: 'Space' })));
    await until('the cube in the air', async () => (await state(game, 'y')) < GROUND_TOP - 10);
    const before = await state(game, 'y');
    assert.equal(await state(game, 'jumps'), 1);

    await edit('draw_cube', (code) => code.replace(/ctx\.fillStyle = [^;]*;/, "ctx.fillStyle = 'rgb(255, 0, 255)';"));
    const colour = await publish();
    assert.equal(colour.kind, 'swap');
    const top = await until('magenta pixels: the new draw_cube runs', async () => {
      const y = await topOf(game, [255, 0, 255]);
      return y >= 0 ? y : undefined;
    });
    const after = await state(game, 'y');
    // A restart would stand the cube on the ground with no jump; kept, it is still in the air and the
    // new draw_cube draws it where the kept state has it. (Not compared with its height before the
    // swap: the cube keeps rising meanwhile, ~60 px a second, and a loaded machine took 0.45 s once.)
    assert.ok(top < GROUND_TOP - 5, `the new colour is drawn mid-air (top row ${top}), not on the ground (${GROUND_TOP})`);
    assert.ok(after < GROUND_TOP - 5, `the cube kept its height across the swap: ${before} before, drawn at ${top}, state ${after}`);
    assert.ok(Math.abs(top - after) <= 20, `the new draw_cube draws the kept state: drawn at ${top}, state ${after} (${before} before the swap)`);
    assert.equal(await state(game, 'jumps'), 1, "game_state's store survived the swap");
    // The page reports the swap on its own channel: the new colour can be on screen before it arrives.
    await until('the swap of draw_cube reported', async () => reports.includes('swapped: draw_cube'));
    const shot = await page.screenshot();
    assert.ok(shot.length > 1000);
    if (process.env.HOT_SWAP_SHOT) writeFileSync(process.env.HOT_SWAP_SHOT, shot);

    // The boot atom changed: the game starts again.
    await edit('game_loop', (code) => code.replace("console.info('Jumping cube started", "console.info('Jumping cube restarted"));
    const restart = await publish();
    assert.deepEqual(restart, { kind: 'restart', reason: 'boot atom changed' });
    game = await until('a fresh game', async () => {
      const frame = await gameFrame(page);
      return (await state(frame, 'jumps')) === 0 && (await state(frame, 'y')) === GROUND_TOP ? frame : undefined;
    });
    const standing = await until('the magenta cube on the ground', async () => {
      const y = await topOf(game, [255, 0, 255]);
      return y >= GROUND_TOP ? y : undefined;
    });
    assert.ok(standing >= GROUND_TOP && standing <= GROUND_TOP + 3, `restarted: the cube stands on the ground (top row ${standing})`);
    assert.ok(reports.some((r) => r.startsWith('Jumping cube restarted')), JSON.stringify(reports));
    await page.close();
  });
});
