import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AtomError } from '../../src/atoms/errors.js';
import { formatAtomSource, parseAtomSource } from '../../src/views/atomSource.js';

const jump = {
  type: 'feature' as const,
  code: 'function player_jump(velocity_y, is_grounded, force_multiplier = 1) {\n  return is_grounded ? physics_config().jump_force * force_multiplier : velocity_y;\n}',
  inputs: [
    { name: 'velocity_y', type: 'number' as const, description: 'Current Y velocity' },
    { name: 'is_grounded', type: 'boolean' as const },
    { name: 'force_multiplier', type: 'number' as const, optional: true },
  ],
  outputs: [{ name: 'new_velocity_y', type: 'number' as const, description: 'Y velocity after the jump' }],
  dependencies: ['math_clamp', 'physics_config'],
  description: 'Applies upward force when the entity is grounded.\nSecond line.',
};

describe('atom editor text', () => {
  it('writes the interface as a JSDoc header above the code', () => {
    const text = formatAtomSource(jump);
    assert.equal(
      text.split('\n function')[0]!.split('\nfunction')[0],
      [
        '/**',
        ' * Applies upward force when the entity is grounded.',
        ' * Second line.',
        ' *',
        ' * @kind feature',
        ' * @param {number} velocity_y - Current Y velocity',
        ' * @param {boolean} is_grounded',
        ' * @param {number} [force_multiplier]',
        ' * @returns {number} new_velocity_y - Y velocity after the jump',
        ' * @requires math_clamp',
        ' * @requires physics_config',
        ' */',
      ].join('\n'),
    );
    assert.ok(text.endsWith(jump.code));
  });

  it('reads back exactly what it wrote', () => {
    const { draft, hasHeader } = parseAtomSource('player_jump', formatAtomSource(jump));
    assert.equal(hasHeader, true);
    assert.deepEqual(draft, { name: 'player_jump', ...jump });
  });

  it('round-trips an atom without description, ports or dependencies', () => {
    const bare = { type: 'util' as const, code: 'function noop() {}\n', inputs: [], outputs: [], dependencies: [], description: null };
    const { draft } = parseAtomSource('noop', formatAtomSource(bare));
    assert.deepEqual(draft, { name: 'noop', type: 'util', code: bare.code, inputs: [], outputs: [], dependencies: [], description: undefined });
  });

  it('takes edits to the header as changes to the interface', () => {
    const edited = formatAtomSource(jump)
      .replace('@kind feature', '@kind core')
      .replace(' * @requires math_clamp\n', '')
      .replace('@param {boolean} is_grounded', '@param {string[]} [tags] - labels');
    const { draft } = parseAtomSource('player_jump', edited);
    assert.equal(draft.type, 'core');
    assert.deepEqual(draft.dependencies, ['physics_config']);
    assert.deepEqual(draft.inputs![1], { name: 'tags', type: 'string[]', description: 'labels', optional: true });
  });

  it('treats text without an @kind header as code only', () => {
    const code = '/** A plain doc comment */\nfunction a() {}';
    assert.deepEqual(parseAtomSource('a', code), { draft: { name: 'a', code }, hasHeader: false });
  });

  it('refuses a header it cannot read, naming the problem', () => {
    const bad = (text: string, pattern: RegExp) =>
      assert.throws(() => parseAtomSource('a', `/**\n${text}\n */\nfunction a() {}`), (e: unknown) => e instanceof AtomError && pattern.test(e.message));
    bad(' * @kind gadget', /@kind gadget: use core, feature or util/);
    bad(' * @kind util\n * @param {object} x', /the type must be one of number/);
    bad(' * @kind util\n * @param x', /write "@param \{number\} name - description"/);
    bad(' * @kind util\n * @author me', /@author is not an atom tag/);
    bad(' * @kind util\n * stray words', /is not a tag/);
    assert.throws(() => parseAtomSource('a', '/**\n * @requires b\n * @kind\n */\nfunction a() {}'), /@kind \(empty\)/);
  });
});

describe('atom editor text: a header that lost its @kind', () => {
  it('is refused rather than silently turned into code', () => {
    assert.throws(() => parseAtomSource('a', '/**\n * @param {number} x\n */\nfunction a(x) {}'), /@kind is missing/);
  });
});

describe('port lists for the Edit Atom Details input boxes', () => {
  it('round-trips names, types and optional marks, keeping known descriptions', async () => {
    const { formatPortList, parsePortList } = await import('../../src/views/atomSource.js');
    assert.equal(formatPortList(jump.inputs), 'velocity_y: number, is_grounded: boolean, force_multiplier?: number');
    assert.deepEqual(parsePortList(formatPortList(jump.inputs), jump.inputs), jump.inputs);
    assert.deepEqual(parsePortList('  '), []);
    assert.deepEqual(parsePortList('tags?: string[]'), [{ name: 'tags', type: 'string[]', optional: true }]);
    assert.throws(() => parsePortList('x: object'), /the type must be one of/);
    assert.throws(() => parsePortList('x number'), /write each port as name: type/);
  });
});

describe('what a save means', () => {
  const stored = {
    name: 'player_jump',
    ...jump,
    version: 3,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-02T00:00:00.000Z',
  };

  it('a text without a header keeps the stored interface and takes the new code', async () => {
    const { toDraft } = await import('../../src/views/atomSource.js');
    const draft = toDraft('player_jump', 'function player_jump() { return 0; }', stored);
    assert.deepEqual(draft, {
      name: 'player_jump',
      type: 'feature',
      code: 'function player_jump() { return 0; }',
      inputs: jump.inputs,
      outputs: jump.outputs,
      dependencies: jump.dependencies,
      description: jump.description,
    });
    assert.throws(() => toDraft('fresh', 'function fresh() {}', undefined), /a new atom needs its header/);
  });

  it('saving the text as it was changes nothing; any real edit does', async () => {
    const { sameAtom, toDraft } = await import('../../src/views/atomSource.js');
    const text = formatAtomSource(stored);
    assert.equal(sameAtom(stored, toDraft('player_jump', text, stored)), true);
    assert.equal(sameAtom(stored, toDraft('player_jump', text.replace('@kind feature', '@kind core'), stored)), false);
    assert.equal(sameAtom(stored, toDraft('player_jump', text.replace(' * @requires math_clamp\n', ''), stored)), false);
    assert.equal(sameAtom(stored, toDraft('player_jump', text + '\n', stored)), false);
    // Dependencies are a set: listing them in another order is no change.
    const reordered = text.replace(' * @requires math_clamp\n * @requires physics_config', ' * @requires physics_config\n * @requires math_clamp');
    assert.equal(sameAtom(stored, toDraft('player_jump', reordered, stored)), true);
  });
});
