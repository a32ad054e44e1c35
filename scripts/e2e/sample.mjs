// A small sample game as atoms (a cube that jumps), and a way to put it into a workspace folder through
// the real command line over MCP stdio: the same path an external agent takes.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { root } from './lib.mjs';

const n = (name, description) => ({ name, type: 'number', ...(description ? { description } : {}) });
const b = (name, description) => ({ name, type: 'boolean', ...(description ? { description } : {}) });

/** Dependencies first, so each upsert finds what it depends on. */
export const SAMPLE_ATOMS = [
  {
    name: 'physics_config',
    type: 'util',
    description: 'Physics constants of the game: gravity, jump force, ground height and cube size',
    outputs: [n('gravity'), n('jump_force'), n('ground_y'), n('cube_size')],
    code: 'function physics_config() {\n  return { gravity: 1800, jump_force: 620, ground_y: 300, cube_size: 40 };\n}\n',
  },
  {
    name: 'math_clamp',
    type: 'util',
    description: 'Limits a number to the range between min and max',
    inputs: [n('value'), n('min'), n('max')],
    outputs: [n('result')],
    code: 'function math_clamp(value, min, max) {\n  return value < min ? min : value > max ? max : value;\n}\n',
  },
  {
    name: 'player_jump',
    type: 'feature',
    description: 'Applies upward force when the cube stands on the ground',
    inputs: [n('velocity_y', 'Current vertical velocity'), b('is_grounded', 'Whether the cube is on the ground')],
    outputs: [n('new_velocity_y', 'Vertical velocity after the jump')],
    dependencies: ['physics_config'],
    code: 'function player_jump(velocity_y, is_grounded) {\n  if (!is_grounded) return velocity_y;\n  return -physics_config().jump_force;\n}\n',
  },
  {
    name: 'apply_gravity',
    type: 'feature',
    description: 'Moves the cube by its velocity and pulls it down, stopping at the ground',
    inputs: [n('y'), n('velocity_y'), n('dt', 'Seconds since the last frame')],
    outputs: [n('y'), n('velocity_y')],
    dependencies: ['math_clamp', 'physics_config'],
    code:
      'function apply_gravity(y, velocity_y, dt) {\n' +
      '  const cfg = physics_config();\n' +
      '  const floor = cfg.ground_y - cfg.cube_size;\n' +
      '  const vy = velocity_y + cfg.gravity * dt;\n' +
      '  const ny = math_clamp(y + vy * dt, -1000, floor);\n' +
      '  return { y: ny, velocity_y: ny >= floor ? 0 : vy };\n' +
      '}\n',
  },
  {
    name: 'draw_scene',
    type: 'feature',
    description: 'Draws the ground, the cube and the jump count on the canvas',
    inputs: [n('y', 'Top of the cube'), n('jumps', 'Jumps so far')],
    outputs: [{ name: 'drawn', type: 'void' }],
    dependencies: ['physics_config'],
    code:
      'function draw_scene(y, jumps) {\n' +
      "  const canvas = document.getElementById('game');\n" +
      "  const ctx = canvas.getContext('2d');\n" +
      '  const cfg = physics_config();\n' +
      "  ctx.fillStyle = '#101820';\n" +
      '  ctx.fillRect(0, 0, canvas.width, canvas.height);\n' +
      "  ctx.fillStyle = '#3a5a40';\n" +
      '  ctx.fillRect(0, cfg.ground_y, canvas.width, canvas.height - cfg.ground_y);\n' +
      "  ctx.fillStyle = '#f2a65a';\n" +
      '  ctx.fillRect(120, y, cfg.cube_size, cfg.cube_size);\n' +
      "  ctx.fillStyle = '#ffffff';\n" +
      "  ctx.font = '16px sans-serif';\n" +
      "  ctx.fillText('Jumps: ' + jumps + '  (space to jump)', 12, 24);\n" +
      '}\n',
  },
  {
    name: 'game_loop',
    type: 'core',
    description: 'Entry point: makes the canvas, listens for the space bar and runs one frame per animation frame',
    outputs: [{ name: 'started', type: 'void' }],
    dependencies: ['apply_gravity', 'draw_scene', 'physics_config', 'player_jump'],
    code:
      'function game_loop() {\n' +
      "  let canvas = document.getElementById('game');\n" +
      '  if (!canvas) {\n' +
      "    canvas = document.createElement('canvas');\n" +
      "    canvas.id = 'game';\n" +
      '    canvas.width = 480;\n' +
      '    canvas.height = 360;\n' +
      '    document.body.appendChild(canvas);\n' +
      '  }\n' +
      '  const cfg = physics_config();\n' +
      '  const state = { y: cfg.ground_y - cfg.cube_size, vy: 0, jumps: 0, last: 0 };\n' +
      "  window.addEventListener('keydown', (e) => {\n" +
      "    if (e.code !== 'Space') return;\n" +
      '    const grounded = state.y >= cfg.ground_y - cfg.cube_size;\n' +
      '    state.vy = player_jump(state.vy, grounded);\n' +
      '    if (grounded) state.jumps++;\n' +
      '  });\n' +
      '  const frame = (t) => {\n' +
      '    const dt = state.last ? Math.min((t - state.last) / 1000, 0.05) : 0;\n' +
      '    state.last = t;\n' +
      '    const next = apply_gravity(state.y, state.vy, dt);\n' +
      '    state.y = next.y;\n' +
      '    state.vy = next.velocity_y;\n' +
      '    draw_scene(state.y, state.jumps);\n' +
      '    requestAnimationFrame(frame);\n' +
      '  };\n' +
      '  requestAnimationFrame(frame);\n' +
      '}\n',
  },
];

/** Starts `node dist/cli.js serve --workspace DIR --stdio` and returns a connected MCP client. */
export async function connectCli(dir) {
  const cli = join(root, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
  const client = new Client({ name: 'atomic-coding-e2e', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', '--workspace', dir, '--stdio', '--log-level', 'warn'], stderr: 'inherit' }),
  );
  return client;
}

/** Calls a tool and returns its text; throws with the server's text when the call failed. */
export async function callTool(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content ?? []).map((c) => c.text ?? '').join('');
  if (result.isError) throw new Error(`${name}: ${text}`);
  return text;
}

/** Puts the sample atoms into `dir` (creating its store) through the command line. */
export async function seedSample(dir) {
  const client = await connectCli(dir);
  try {
    for (const atom of SAMPLE_ATOMS) await callTool(client, 'upsert_atom', atom);
  } finally {
    await client.close();
  }
}
