import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AtomError } from '../../src/atoms/errors.js';
import { formatAtomDocument, parseAtomDocument } from '../../src/views/atomDocument.js';
import { seededRandom } from '../support/random.js';

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
    const text = formatAtomDocument(jump);
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
    const { draft, hasHeader } = parseAtomDocument('player_jump', formatAtomDocument(jump));
    assert.equal(hasHeader, true);
    assert.deepEqual(draft, { name: 'player_jump', ...jump });
  });

  it('round-trips an atom without description, ports or dependencies', () => {
    const bare = { type: 'util' as const, code: 'function noop() {}\n', inputs: [], outputs: [], dependencies: [], description: null };
    const { draft } = parseAtomDocument('noop', formatAtomDocument(bare));
    assert.deepEqual(draft, { name: 'noop', type: 'util', code: bare.code, inputs: [], outputs: [], dependencies: [], description: undefined });
  });

  it('takes edits to the header as changes to the interface', () => {
    const edited = formatAtomDocument(jump)
      .replace('@kind feature', '@kind core')
      .replace(' * @requires math_clamp\n', '')
      .replace('@param {boolean} is_grounded', '@param {string[]} [tags] - labels');
    const { draft } = parseAtomDocument('player_jump', edited);
    assert.equal(draft.type, 'core');
    assert.deepEqual(draft.dependencies, ['physics_config']);
    assert.deepEqual(draft.inputs![1], { name: 'tags', type: 'string[]', description: 'labels', optional: true });
  });

  it('treats text without an @kind header as code only', () => {
    const code = '/** A plain doc comment */\nfunction a() {}';
    assert.deepEqual(parseAtomDocument('a', code), { draft: { name: 'a', code }, hasHeader: false });
  });

  it('refuses a header it cannot read, naming the problem', () => {
    const bad = (text: string, pattern: RegExp) =>
      assert.throws(() => parseAtomDocument('a', `/**\n${text}\n */\nfunction a() {}`), (e: unknown) => e instanceof AtomError && pattern.test(e.message));
    bad(' * @kind gadget', /@kind gadget: use core, feature, util or test/);
    bad(' * @kind util\n * @param {object} x', /the type must be one of number/);
    bad(' * @kind util\n * @param x', /write "@param \{number\} name - description"/);
    bad(' * @kind util\n * @author me', /@author is not an atom tag/);
    bad(' * @kind util\n * stray words', /is not a tag/);
    assert.throws(() => parseAtomDocument('a', '/**\n * @requires b\n * @kind\n */\nfunction a() {}'), /@kind \(empty\)/);
  });
});

describe('atom editor text: a header that lost its @kind', () => {
  it('is refused rather than silently turned into code', () => {
    assert.throws(() => parseAtomDocument('a', '/**\n * @param {number} x\n */\nfunction a(x) {}'), /@kind is missing/);
  });
});

describe('port lists for the Edit Atom Details input boxes', () => {
  it('round-trips names, types and optional marks, keeping known descriptions', async () => {
    const { formatPortList, parsePortList } = await import('../../src/views/atomDocument.js');
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
    const { toDraft } = await import('../../src/views/atomDocument.js');
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
    const { sameAtom, toDraft } = await import('../../src/views/atomDocument.js');
    const text = formatAtomDocument(stored);
    assert.equal(sameAtom(stored, toDraft('player_jump', text, stored)), true);
    assert.equal(sameAtom(stored, toDraft('player_jump', text.replace('@kind feature', '@kind core'), stored)), false);
    assert.equal(sameAtom(stored, toDraft('player_jump', text.replace(' * @requires math_clamp\n', ''), stored)), false);
    assert.equal(sameAtom(stored, toDraft('player_jump', text + '\n', stored)), false);
    // Dependencies are a set: listing them in another order is no change.
    const reordered = text.replace(' * @requires math_clamp\n * @requires physics_config', ' * @requires physics_config\n * @requires math_clamp');
    assert.equal(sameAtom(stored, toDraft('player_jump', reordered, stored)), true);
  });
});

describe('atom editor text: descriptions are escaped, so any text round-trips and cannot break the header', () => {
  const base = { type: 'util' as const, code: 'function a(x) {\n  return x; /* a comment */\n}\n', inputs: [], outputs: [], dependencies: [] };
  const roundTrip = (atom: Parameters<typeof formatAtomDocument>[0]) => parseAtomDocument('a', formatAtomDocument(atom)).draft;

  it('a description line "@requires x" stays description, not a dependency', () => {
    const atom = { ...base, description: 'Usage notes:\n@requires x\n@param {number} y - not a port\n@kind core' };
    const text = formatAtomDocument(atom);
    assert.match(text, /\n \* \\@requires x\n/);
    const draft = roundTrip(atom);
    assert.deepEqual(draft.dependencies, []);
    assert.deepEqual(draft.inputs, []);
    assert.equal(draft.type, 'util');
    assert.equal(draft.description, atom.description);
  });

  it('a "*/" in a description or a port text does not end the header, so the atom can be saved', () => {
    const atom = {
      ...base,
      description: 'Matches /* ... */ comments, and a**/b',
      inputs: [{ name: 'x', type: 'string' as const, description: 'glob like src/**/*.js' }],
    };
    const text = formatAtomDocument(atom);
    assert.equal(text.indexOf('*/'), text.indexOf('\n */') + 2, 'the first "*/" is the one that ends the header');
    const draft = roundTrip(atom);
    assert.equal(draft.description, atom.description);
    assert.deepEqual(draft.inputs, atom.inputs);
    assert.equal(draft.code, atom.code);
  });

  it('backslashes, edge whitespace, leading stars and carriage returns come back exactly; ordinary text reads as before', () => {
    for (const description of ['C:\\temp\\new \\n not a newline', '\n\nstarts with blank lines', 'ends with spaces  \n\n', '* bullet\n  * indented\n\tTabbed', 'windows\r\nlines\r', '\\']) {
      assert.equal(roundTrip({ ...base, description }).description, description, JSON.stringify(description));
    }
    // Ordinary text is written as it is, and hand-typed backslashes that are no escape are kept.
    const text = formatAtomDocument({ ...base, description: 'Clamps a value.\n\nSee math_min.' });
    assert.ok(text.startsWith('/**\n * Clamps a value.\n *\n * See math_min.\n *\n * @kind util\n'));
    const typed = parseAtomDocument('a', '/**\n * Splits on \\d+ and \\s\n * @kind util\n */\nfunction a() {}');
    assert.equal(typed.draft.description, 'Splits on \\d+ and \\s');
  });


  const FRAGMENTS = [
    '*/', '/*', '/**', '*', ' * ', '@requires x', '@param {number} y - z', '@returns {string} s', '@kind core', '@', '\\', '\\\\', '\\n', '\\@',
    '\\u0041', '\\/', '\n', '\r\n', '\r', '\n\n', ' ', '  ', '\t', '\u00a0', '\u2028', '\u2029', '\u0000', '\u001b', '\ufeff', '\ud800', '\udc00',
    '😀', 'é', '-', ' - ', '{', '}', '[', ']', 'word', 'x', 'The HUD text', '`', '"', "'",
  ];

  it('write -> read gives back the same description, ports and dependencies for 400 generated texts', () => {
    const next = seededRandom(20260401);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const text = () => Array.from({ length: Math.floor(next() * 10) }, () => pick(FRAGMENTS)).join('');
    const portTypes = ['number', 'string', 'boolean', 'number[]', 'string[]', 'boolean[]'] as const;
    const port = (name: string) => {
      const description = next() < 0.8 ? text() : '';
      return { name, type: pick(portTypes), ...(description ? { description } : {}), ...(next() < 0.3 ? { optional: true as const } : {}) };
    };
    for (let i = 0; i < 400; i++) {
      const description = text();
      const atom = {
        type: pick(['core', 'feature', 'util'] as const),
        code: `function a_${i}(p0) {\n  return p0; // ${i}\n}\n`,
        inputs: Array.from({ length: Math.floor(next() * 3) }, (_, k) => port(`p${k}`)),
        outputs: Array.from({ length: Math.floor(next() * 2) }, (_, k) => port(`r${k}`)),
        dependencies: Array.from({ length: Math.floor(next() * 3) }, (_, k) => `dep_${k}`),
        description,
      };
      const written = formatAtomDocument(atom);
      const header = written.slice(0, written.indexOf('\n */') + 4);
      const expected = { name: 'a', ...atom, description: description || undefined };
      assert.deepEqual(parseAtomDocument('a', written).draft, expected, `case ${i}: ${JSON.stringify(atom)}`);
      // What an editor does on save (line ends normalized to CRLF) changes nothing either: the header
      // holds no character an editor rewrites.
      // eslint-disable-next-line no-control-regex -- control characters are what this looks for
      assert.doesNotMatch(header, /[\r\u2028\u2029\ufeff\u0000-\u0008\u000b-\u001f]/, `case ${i}`);
      assert.equal(new TextDecoder().decode(new TextEncoder().encode(written)), written, `case ${i}: the text survives saving as UTF-8`);
      const crlf = parseAtomDocument('a', written.replace(/\n/g, '\r\n')).draft;
      assert.deepEqual({ ...crlf, code: atom.code }, expected, `case ${i} with CRLF line ends`);
    }
  });
});

it('examples round-trip as @example lines, JSON on each side, whatever their strings hold', () => {
  const atom = {
    name: 'math_clamp',
    type: 'util' as const,
    code: 'function math_clamp(v, a, b) {\n  return v;\n}',
    inputs: [{ name: 'v', type: 'number' as const }, { name: 'a', type: 'number' as const }, { name: 'b', type: 'number' as const }],
    outputs: [{ name: 'c', type: 'number' as const }],
    dependencies: [],
    description: null,
    examples: [{ args: [5, 0, 3], returns: 3 }, { args: [1, 2, 3], throws: 'bad */ x => y) throws "z' }],
  };
  const text = formatAtomDocument(atom);
  assert.match(text, /^ \* @example math_clamp\(5, 0, 3\) => 3$/m);
  assert.deepEqual(parseAtomDocument('math_clamp', text).draft.examples, atom.examples);
  assert.throws(() => parseAtomDocument('math_clamp', text.replace('=> 3', '=> three')), /what follows them are not JSON values/);
});

describe('atom document lines (where checks point)', () => {
  it('finds the code start, the function line and each @example line', async () => {
    const { atomDocumentLines } = await import('../../src/atoms/atomDocument.js');
    const atom = {
      name: 'math_clamp',
      type: 'util' as const,
      description: 'Clamps a value.\nSecond line.',
      inputs: [{ name: 'v', type: 'number' as const }, { name: 'lo', type: 'number' as const }, { name: 'hi', type: 'number' as const }],
      outputs: [{ name: 'r', type: 'number' as const }],
      dependencies: [],
      examples: [{ args: [5, 0, 3], returns: 3 }, { args: [-1, 0, 3], returns: 0 }],
      code: '// clamps\nfunction math_clamp(v, lo, hi) {\n  return Math.min(hi, Math.max(lo, v));\n}',
    };
    const doc = formatAtomDocument(atom).split('\n');
    const lines = atomDocumentLines(atom);
    assert.equal(doc[lines.codeStart], '// clamps');
    assert.equal(lines.functionLine, lines.codeStart + 1);
    assert.deepEqual(lines.exampleLines.map((l) => doc[l]), [' * @example math_clamp(5, 0, 3) => 3', ' * @example math_clamp(-1, 0, 3) => 0']);
    // atom-code line 3 (1-based) is the return statement
    assert.equal(doc[lines.codeStart + 3 - 1], '  return Math.min(hi, Math.max(lo, v));');
  });
});

describe('atom text in the layout a person wrote', () => {
  const written = [
    '/**',
    ' * Applies upward force when the entity is grounded.',
    ' * Second line.',
    ' *',
    ' * @kind feature',
    ' * @requires math_clamp, physics_config',
    ' * @param {number} velocity_y - Current Y velocity',
    ' * @param {boolean} is_grounded',
    ' * @param {number} [force_multiplier]',
    ' * @returns {number} new_velocity_y - Y velocity after the jump',
    ' */',
    jump.code,
  ].join('\n');
  const atom = { ...jump, name: 'player_jump' };

  it('an unchanged atom gives the file back byte for byte (one-line @requires, tags in its order)', () => {
    assert.equal(formatAtomDocument(atom, written), written);
  });

  it('a code edit changes only the code lines', () => {
    const code = jump.code.replace('force_multiplier :', 'force_multiplier * 1.5 :');
    const text = formatAtomDocument({ ...atom, code }, written);
    const before = written.split('\n');
    const after = text.split('\n');
    assert.equal(after.length, before.length);
    assert.deepEqual(after.map((l, i) => (l === before[i] ? '' : i)).filter((x) => x !== ''), [12]);
  });

  it('a new dependency keeps @requires on one line', () => {
    const text = formatAtomDocument({ ...atom, dependencies: ['math_clamp', 'physics_config', 'world_gravity'] }, written);
    assert.match(text, /^ \* @requires math_clamp, physics_config, world_gravity$/m);
    assert.equal(text.split('\n').length, written.split('\n').length);
    assert.deepEqual(parseAtomDocument('player_jump', text).draft.dependencies, ['math_clamp', 'physics_config', 'world_gravity']);
  });

  it('a changed description rewrites only the description', () => {
    const text = formatAtomDocument({ ...atom, description: 'Jumps.' }, written);
    assert.ok(text.includes(' * @requires math_clamp, physics_config\n * @param'));
    assert.ok(text.startsWith('/**\n * Jumps.\n *\n * @kind feature'));
  });

  it('without a readable layout, the canonical one (one tag a line)', () => {
    assert.equal(formatAtomDocument(atom, 'not a header'), formatAtomDocument(atom));
    assert.match(formatAtomDocument(atom), / \* @requires math_clamp\n \* @requires physics_config/);
  });
});

describe('lines named as the document shows them', () => {
  it('shifts "at line N of the code" by the header, and keeps other lines', async () => {
    const { codeLineOffset, inDocumentLines, documentPlace } = await import('../../src/atoms/atomDocument.js');
    const doc = '/**\n * Says hi.\n *\n * @kind util\n */\nfunction hi() {\n  return 1 +;\n}\n';
    assert.equal(codeLineOffset(doc), 5);
    assert.equal(codeLineOffset('function hi() {}'), 0);
    assert.equal(inDocumentLines('code does not parse as JavaScript at line 2, column 13 of the code: Unexpected token', 5), 'code does not parse as JavaScript at line 7, column 13: Unexpected token');
    assert.equal(inDocumentLines('t threw Error: no (in t at line 4)', 5), 't threw Error: no (in t at line 4)');
    assert.deepEqual(documentPlace('found x at line 3 of the code outside it', 5), { line: 8, column: 1 });
  });
});
