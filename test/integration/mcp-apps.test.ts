/**
 * MCP Apps (issue 17): the graph and the running game inside the chat. A host built with the ext-apps
 * SDK's host side (test/support/mcpAppsHost.mts) runs in Chromium (playwright-core and Debian's chromium,
 * launched as the e2e suite launches it); the real server (dist/cli.js) is reached over HTTP on loopback by
 * the official client. The test checks what a person sees: nodes drawn, a click lighting up neighbours and
 * reading the atom's code through the host, query_graph's impact lit up, the game's canvas drawn, and a
 * runtime error tied to its atom and line. Screenshots go to .e2e/screenshots/mcp-apps/.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ReadResourceResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { connectHttp, startServer, type RunningServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

const root = join(__dirname, '..', '..');
const shots = join(root, '.e2e', 'screenshots', 'mcp-apps');
/** Every wait is bounded; a step that takes longer fails with what it waited for. */
const WAIT = 30_000;

interface SampleAtom {
  name: string;
  type: string;
  code: string;
  inputs?: unknown[];
  outputs?: unknown[];
  dependencies?: string[];
}

let server: RunningServer;
let client: Client;
let browser: BrowserContext;
let page: Page;
/** The host page's uncaught errors, named when an app does not mount. */
const pageErrors: string[] = [];
let tools: Tool[];
let sample: SampleAtom[];
let mounted = 0;

async function callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** Renders the app of `tool` for one call, as a host does: reads its ui:// page, then sends the call's input and result. */
async function mountApp(toolName: string, input: Record<string, unknown>, result: CallToolResult): Promise<Frame> {
  const tool = tools.find((t) => t.name === toolName)!;
  const uri = (tool._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
  assert.ok(uri, `${toolName} names an app`);
  const read = await client.readResource({ uri });
  const content = read.contents[0] as { mimeType?: string; text?: string };
  assert.equal(content.mimeType, 'text/html;profile=mcp-app');
  const id = `app-${++mounted}`;
  // Bounded like every wait here: an app whose script fails never finishes mounting.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the ${toolName} app did not mount within ${WAIT} ms (its page's errors: ${pageErrors.join('; ') || 'none'})`)), WAIT);
  });
  try {
    await Promise.race([page.evaluate((m) => window.mountApp(m as never), { id, html: content.text!, tool, input, result }), late]);
  } finally {
    clearTimeout(timer);
  }
  const frame = await (await page.$(`iframe#${id}`))!.contentFrame();
  assert.ok(frame, 'the app frame exists');
  return frame;
}

async function shot(name: string, selector: string): Promise<void> {
  await page.locator(selector).screenshot({ path: join(shots, name) });
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  const lib = (await import(join(root, 'scripts', 'e2e', 'lib.mjs'))) as { launchBrowser(runDir: string, viewport?: object): Promise<BrowserContext> };
  sample = ((await import(join(root, 'scripts', 'e2e', 'sample.mjs'))) as { SAMPLE_ATOMS: SampleAtom[] }).SAMPLE_ATOMS;
  server = await startServer(tempDir('mcp-apps-'));
  client = await connectHttp(server.url, server.token, 'mcp-apps-test');
  tools = (await client.listTools()).tools;
  const host = await esbuild.build({
    entryPoints: [join(root, 'test', 'support', 'mcpAppsHost.mts')],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    logLevel: 'silent',
  });
  browser = await lib.launchBrowser(tempDir('mcp-apps-browser-'), { width: 1000, height: 900 });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => process.env.MCP_APPS_DEBUG && console.log('[browser]', m.text()));
  // The browser reaches nothing: the app asks the host, and the host asks the server through these.
  await page.route('**/*', (route) => route.abort());
  await page.exposeFunction('mcpCallTool', (params: { name: string; arguments?: Record<string, unknown> }) => client.callTool(params));
  await page.exposeFunction('mcpReadResource', (params: { uri: string }) => client.readResource(params));
  await page.setContent('<!doctype html><html><head><title>MCP Apps test host</title></head><body style="background:#111;margin:0"></body></html>');
  await page.addScriptTag({ content: host.outputFiles[0]!.text });
});

after(async () => {
  await browser?.close().catch(() => {});
  await client?.close().catch(() => {});
  await server?.stop();
});

describe('MCP Apps: the graph and the running game inside the chat', () => {
  it('lists apps, icons and no structured content; upserts and reads link their atoms', async () => {
    const listed = JSON.stringify({ tools });
    console.log(`tools/list: ${Buffer.byteLength(listed)} bytes for ${tools.length} tools`);
    const appOf = (name: string) => (tools.find((t) => t.name === name)?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
    assert.equal(appOf('get_code_structure'), 'ui://atomic/graph');
    assert.equal(appOf('query_graph'), 'ui://atomic/graph');
    assert.equal(appOf('upsert_atom'), 'ui://atomic/game');
    assert.equal(appOf('upsert_atoms'), 'ui://atomic/game');
    assert.equal(appOf('read_atoms'), undefined);
    for (const tool of tools) {
      assert.ok(tool.icons?.length, `${tool.name} has an icon`);
      for (const icon of tool.icons!) {
        assert.match(icon.src, /^data:image\/svg\+xml,/, `${tool.name}'s icon is an inline SVG (nothing to fetch)`);
        assert.equal(icon.mimeType, 'image/svg+xml');
      }
    }
    const info = client.getServerVersion() as { icons?: { src: string }[] };
    assert.match(info.icons?.[0]?.src ?? '', /^data:image\/svg\+xml,/, 'the server has an icon');

    for (const atom of sample) {
      const r = await callTool('upsert_atom', atom as unknown as Record<string, unknown>);
      assert.notEqual(r.isError, true, textOf(r));
      assert.equal(r.content[0]!.type, 'text');
      assert.match((r.content[0] as { text: string }).text, new RegExp(`^Atom "${atom.name}" saved`), 'the contract text comes first, unchanged');
      assert.deepEqual(r.content.slice(1), [{ type: 'resource_link', uri: `atom://${atom.name}`, name: atom.name, mimeType: 'text/javascript' }]);
      assert.equal(r.structuredContent, undefined, 'no structuredContent: VS Code would give the model that instead of the text');
    }
    const read = await callTool('read_atoms', { names: ['player_jump', 'game_loop'] });
    assert.deepEqual(read.content.slice(1).map((c) => (c as { uri: string }).uri), ['atom://player_jump', 'atom://game_loop']);
    const refused = await callTool('read_atoms', { names: ['ghost'] });
    assert.equal(refused.isError, true);
    assert.equal(refused.content.length, 1, 'a refused call links nothing');
    const app = (await client.readResource({ uri: 'ui://atomic/graph' })) as ReadResourceResult;
    const page = app.contents[0] as { text: string; _meta?: { ui?: { csp?: Record<string, string[]> } } };
    assert.deepEqual(page._meta?.ui?.csp, { connectDomains: [], resourceDomains: [] }, 'the app asks for no domain');
    assert.match(page.text, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/);
    assert.ok(!/<script[^>]+\bsrc=|<link[^>]+\bhref=|<img[^>]+\bsrc=|<iframe[^>]+\bsrc=/i.test(page.text), 'the page loads nothing from an address');
    assert.match(page.text, /connect-src 'none'/, 'and connects to none');
    await assert.rejects(client.readResource({ uri: 'ui://atomic/nope' }), /Unknown app ui:\/\/atomic\/nope: the apps are ui:\/\/atomic\/graph and ui:\/\/atomic\/game/);
  });

  it('draws the graph from get_code_structure; a click lights up neighbours and shows the code', async () => {
    const result = await callTool('get_code_structure', {});
    const frame = await mountApp('get_code_structure', {}, result);
    await frame.waitForSelector('#status[data-nodes="6"][data-edges="8"]', { timeout: WAIT });
    await frame.waitForFunction(() => (window as unknown as { atomicGraph: { positionOf(n: string): unknown } }).atomicGraph.positionOf('player_jump') !== null, undefined, { timeout: WAIT });
    await shot('1-graph.png', 'iframe#app-1');

    // Click player_jump where it is drawn, as a person would.
    const box = (await page.locator('iframe#app-1').boundingBox())!;
    const where = await frame.evaluate(() => {
      const graph = document.getElementById('graph')!.getBoundingClientRect();
      const p = (window as unknown as { atomicGraph: { positionOf(n: string): { x: number; y: number } } }).atomicGraph.positionOf('player_jump');
      return { x: graph.x + p.x, y: graph.y + p.y };
    });
    await page.mouse.click(box.x + 1 + where.x, box.y + 1 + where.y);
    await frame.waitForSelector('#status[data-selected="player_jump"]', { timeout: WAIT });
    const classes = await frame.evaluate(() => {
      const g = (window as unknown as { atomicGraph: { classesOf(n: string): string[] } }).atomicGraph;
      return Object.fromEntries(['player_jump', 'physics_config', 'game_loop', 'math_clamp', 'draw_scene'].map((n) => [n, g.classesOf(n)]));
    });
    assert.ok(classes.player_jump!.includes('selected-node'), JSON.stringify(classes));
    assert.ok(classes.physics_config!.includes('highlight'), 'what it uses lights up');
    assert.ok(classes.game_loop!.includes('highlight'), 'what uses it lights up');
    assert.ok(classes.math_clamp!.includes('faded') && classes.draw_scene!.includes('faded'), 'the rest fades');
    // The app read the atom's code through the host (read_atoms).
    await frame.waitForSelector('#code[data-atom="player_jump"]:not([hidden])', { timeout: WAIT });
    assert.match(await frame.locator('#code').innerText(), /function player_jump\(velocity_y, is_grounded\)/);
    await shot('2-graph-click.png', 'iframe#app-1');
  });

  it("shows query_graph's question on the map: the impact of physics_config", async () => {
    const input = { operation: 'impact', name: 'physics_config' };
    const result = await callTool('query_graph', input);
    const frame = await mountApp('query_graph', input, result);
    await frame.waitForSelector('#status[data-selected="physics_config"]', { timeout: WAIT });
    await frame.waitForSelector('#impact[aria-pressed="true"]', { timeout: WAIT });
    const impacted = await frame.evaluate(() => {
      const g = (window as unknown as { atomicGraph: { classesOf(n: string): string[] } }).atomicGraph;
      return ['player_jump', 'apply_gravity', 'draw_scene', 'game_loop', 'math_clamp'].filter((n) => g.classesOf(n).includes('impacted'));
    });
    assert.deepEqual(impacted, ['player_jump', 'apply_gravity', 'draw_scene', 'game_loop']);
    assert.match(await frame.locator('#notice').innerText(), /^Changing physics_config may change 4 atoms/);
    await shot('3-graph-impact.png', `iframe#app-${mounted}`);
  });

  it('runs the game after an upsert: the canvas is drawn', async () => {
    const loop = sample.find((a) => a.name === 'game_loop')!;
    const result = await callTool('upsert_atom', loop as unknown as Record<string, unknown>);
    const frame = await mountApp('upsert_atom', loop as unknown as Record<string, unknown>, result);
    await frame.waitForSelector('#state[data-status="running"]', { timeout: WAIT });
    if (process.env.MCP_APPS_DEBUG) console.log(await frame.locator('body').innerText());
    const game = await (await frame.waitForSelector('#frame', { timeout: WAIT })).contentFrame();
    assert.ok(game, 'the game frame exists');
    if (process.env.MCP_APPS_DEBUG) {
      await new Promise((r) => setTimeout(r, 2000));
      console.log('GAME', game.url(), (await game.evaluate(() => document.documentElement.outerHTML)).slice(0, 1500));
    }
    // The ground, the cube and the text: several colours on the canvas.
    await game.waitForFunction(
      () => {
        const c = document.getElementById('game') as HTMLCanvasElement | null;
        if (!c) return false;
        const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        const colours = new Set<number>();
        for (let i = 0; i < data.length; i += 4 * 97) colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
        return colours.size >= 3;
      },
      undefined,
      { timeout: WAIT },
    );
    assert.match(await frame.locator('#result').innerText(), /^Atom "game_loop" saved \(core\)/);
    await shot('4-game.png', `iframe#app-${mounted}`);
  });

  it('ties a runtime error to its atom and line, and shows that line of the code', async () => {
    const draw = sample.find((a) => a.name === 'draw_scene')!;
    const broken = { ...draw, code: draw.code.replace('ctx.fillRect(120, y, cfg.cube_size, cfg.cube_size);', 'ctx.fillRect(120, y, cfg.cube_size, cfg.cube_size);\n  window.cube_shadow(120, y);') };
    assert.notEqual(broken.code, draw.code);
    const result = await callTool('upsert_atom', broken as unknown as Record<string, unknown>);
    assert.equal(result.isError ?? false, false, textOf(result));
    const frame = await mountApp('upsert_atom', broken as unknown as Record<string, unknown>, result);
    const link = frame.locator('#console-list .entry.error a[data-atom="draw_scene"]').first();
    await link.waitFor({ timeout: WAIT });
    const line = Number(await link.getAttribute('data-line'));
    const codeLines = broken.code.split('\n');
    assert.match(codeLines[line - 1] ?? '', /cube_shadow\(120, y\)/, `line ${line} of draw_scene is the failing call`);
    assert.match(await frame.locator('#console-list .entry.error').first().innerText(), new RegExp(`draw_scene:${line}\\s*Uncaught TypeError: window\\.cube_shadow is not a function`));
    await link.click();
    await frame.waitForSelector('#code[data-atom="draw_scene"]:not([hidden]) .mark', { timeout: WAIT });
    assert.match(await frame.locator('#code .mark').innerText(), /cube_shadow\(120, y\);/);
    await shot('5-game-error.png', `iframe#app-${mounted}`);
    await callTool('upsert_atom', draw as unknown as Record<string, unknown>);
  });
});
