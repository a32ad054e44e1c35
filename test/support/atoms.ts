/** Small, valid atoms for tests: the contract's jumping cube. */
import type { AtomDraft } from '../../src/atoms/model.js';

export const physicsConfig: AtomDraft = {
  name: 'physics_config',
  type: 'util',
  code: 'function physics_config() {\n  return { gravity: -9.8, jump_force: 12, max_speed: 15 };\n}',
  outputs: [
    { name: 'gravity', type: 'number' },
    { name: 'jump_force', type: 'number' },
    { name: 'max_speed', type: 'number' },
  ],
  description: 'Returns physics constants',
};

export const mathClamp: AtomDraft = {
  name: 'math_clamp',
  type: 'util',
  code: 'function math_clamp(value, min, max) {\n  return Math.min(Math.max(value, min), max);\n}',
  inputs: [
    { name: 'value', type: 'number' },
    { name: 'min', type: 'number' },
    { name: 'max', type: 'number' },
  ],
  outputs: [{ name: 'clamped', type: 'number' }],
  description: 'Clamp a number between min and max',
};

export const playerJump: AtomDraft = {
  name: 'player_jump',
  type: 'feature',
  code:
    'function player_jump(velocity_y, is_grounded, force_multiplier = 1.0) {\n' +
    '  if (!is_grounded) return velocity_y;\n' +
    '  const config = physics_config();\n' +
    '  return config.jump_force * force_multiplier;\n}',
  inputs: [
    { name: 'velocity_y', type: 'number', description: 'Current Y velocity' },
    { name: 'is_grounded', type: 'boolean', description: 'Whether entity is on ground' },
    { name: 'force_multiplier', type: 'number', optional: true },
  ],
  outputs: [{ name: 'new_velocity_y', type: 'number', description: 'Y velocity after jump' }],
  dependencies: ['physics_config'],
  description: 'Applies upward force when entity is grounded',
};

/** An entry point that records what it computed on globalThis, so a test can run the bundle. */
export const gameLoop: AtomDraft = {
  name: 'game_loop',
  type: 'core',
  code:
    'function game_loop() {\n' +
    '  const vy = player_jump(0, true);\n' +
    '  globalThis.__atomic_result = { vy, clamped: math_clamp(vy, 0, 10), text: `jump\n${vy}` };\n}',
  dependencies: ['player_jump', 'math_clamp'],
  description: 'Boots the game',
};

export const cube: AtomDraft[] = [physicsConfig, mathClamp, playerJump, gameLoop];

/** A small util atom `name(x) => y` returning `body`, as the text tree tests write them. */
export function numberUtil(name: string, body: string, dependencies: string[] = []): AtomDraft {
  return {
    name,
    type: 'util',
    code: `function ${name}(x) {\n  return ${body};\n}\n`,
    inputs: [{ name: 'x', type: 'number' }],
    outputs: [{ name: 'y', type: 'number' }],
    dependencies,
    description: `${name} for the text tree test`,
  };
}
