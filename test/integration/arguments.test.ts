/**
 * src/mcp/arguments.ts through the official SDK client and the server in process: every kind of
 * refused argument gets a message that names the argument and says what to send, and a refused
 * call changes nothing. The two checks that the SDK never lets a request reach (arguments that
 * are not an object, an object with a prototype) are called directly at the end.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArguments } from '../../src/mcp/arguments.js';
import { allTools } from '../../src/mcp/tools/index.js';
import { mathClamp, physicsConfig } from '../support/atoms.js';
import { openInProcess, wordsOnly, type InProcessServer } from '../support/inProcess.js';

let server: InProcessServer;
const UPSERT_KEYS = 'upsert_atom takes the keys name, code, type, inputs, outputs, dependencies, description, examples';

before(async () => {
  server = await openInProcess({ embeddings: wordsOnly });
  const seeded = await server.call('upsert_atom', { ...mathClamp });
  assert.equal(seeded.isError, false, seeded.text);
});

after(async () => {
  await server?.close();
});

/** Calls a tool that must refuse, and returns its message without "Error: invalid arguments for <tool>: ". */
async function refusal(tool: string, args: Record<string, unknown>): Promise<string> {
  const result = await server.call(tool, args);
  assert.equal(result.isError, true, `${tool} must refuse ${JSON.stringify(args).slice(0, 120)}, got: ${result.text}`);
  return result.text.replace(`Error: invalid arguments for ${tool}: `, '');
}

test('unknown arguments are named, with the keys the tool takes', async () => {
  assert.equal(await refusal('upsert_atom', { ...mathClamp, extra: 1 }), `unknown argument "extra"; ${UPSERT_KEYS}`);
  assert.equal(await refusal('upsert_atom', { ...mathClamp, extra: 1, version: 2 }), `unknown arguments "extra", "version"; ${UPSERT_KEYS}`);
  assert.equal(
    await refusal('upsert_atom', { ...mathClamp, inputs: [{ name: 'v', type: 'number', extra: 1 }] }),
    `unknown argument "extra" in inputs[0]; ${UPSERT_KEYS}`,
  );
  assert.equal(await refusal('get_status', { verbose: true }), 'unknown argument "verbose"; get_status takes no keys');
});

test('a missing or mistyped argument says what it must be', async () => {
  assert.equal(await refusal('upsert_atom', { type: 'util', code: 'function x() {}' }), 'name is required (string)');
  assert.equal(await refusal('upsert_atom', { ...mathClamp, code: 42 }), 'code must be a string, not a number');
  assert.equal(await refusal('upsert_atom', { ...mathClamp, code: null }), 'code must be a string, not null');
  assert.equal(await refusal('upsert_atom', { ...mathClamp, code: ['a'] }), 'code must be a string, not an array');
});

test('a value outside its set lists the allowed values', async () => {
  assert.equal(await refusal('upsert_atom', { ...mathClamp, type: 'helper' }), 'type must be one of "core", "feature", "util", "test"');
  assert.equal(await refusal('get_code_structure', { type_filter: 'widget' }), 'type_filter must be one of "core", "feature", "util", "test"');
  assert.equal(
    await refusal('upsert_atoms', { atoms: [{ ...mathClamp, inputs: [{ name: 'v', type: 'Vector3' }] }] }),
    'atoms[0].inputs[0].type must be one of "number", "string", "boolean", "number[]", "string[]", "boolean[]", "void" (the seven port types)',
  );
});

test("a port type outside the seven gets the domain's message, naming the port", async () => {
  const input = await server.call('upsert_atom', { ...mathClamp, inputs: [{ name: 'v', type: 'Vector3' }] });
  assert.equal(
    input.text,
    'Error: new row violates check constraint "chk_inputs_valid": input "v" has type "Vector3"; allowed types: number, string, boolean, number[], string[], boolean[], void',
  );
  const output = await server.call('upsert_atom', { ...mathClamp, outputs: [{ name: 'clamped', type: 'int' }] });
  assert.match(output.text, /^Error: new row violates check constraint "chk_outputs_valid": output "clamped" has type "int"; allowed types: /);
});

test('sizes and counts out of range give the bound', async () => {
  assert.equal(await refusal('run_atom', { name: 'math_clamp', timeout_ms: 60_000 }), 'timeout_ms is too large: at most 30000');
  assert.equal(await refusal('read_atoms', { names: Array(101).fill('math_clamp') }), 'names is too large: at most 100 items');
  assert.equal(await refusal('read_atoms', { names: [] }), 'names is too small: at least 1 items');
  assert.equal(await refusal('semantic_search', { query: '' }), 'query is too short: at least 1 characters');
  assert.equal(await refusal('semantic_search', { query: 'x'.repeat(5000) }), 'query is too long: at most 1000 characters');
  assert.equal(await refusal('semantic_search', { query: 'x', limit: 0 }), 'limit is too small: at least 1');
});

test('several problems: the first is explained and the rest are counted', async () => {
  assert.equal(await refusal('upsert_atom', { ...mathClamp, type: 'helper', code: 1 }), 'code must be a string, not a number (and 1 more problem)');
  assert.equal(await refusal('upsert_atom', { ...mathClamp, type: 'helper', code: 1, name: 2 }), 'name must be a string, not a number (and 2 more problems)');
});

test('refused calls change nothing', async () => {
  const structure = (await server.call('get_code_structure')).text;
  for (const args of [
    { ...mathClamp, code: 'function math_clamp() { return 0; }', extra: 1 },
    { ...mathClamp, type: 'helper' },
    { ...mathClamp, inputs: [{ name: 'v', type: 'Vector3' }] },
    { ...physicsConfig, name: 7 },
  ]) {
    assert.equal((await server.call('upsert_atom', args)).isError, true);
  }
  assert.equal((await server.call('get_code_structure')).text, structure);
  assert.match((await server.call('atom_history', { operation: 'list', name: 'math_clamp' })).text, /^math_clamp: 1 version \(current v1\)/);
});

test('a "__proto__" key sent by an agent reaches no tool: nothing is inherited, nothing polluted', async () => {
  const text = JSON.stringify({ ...physicsConfig }).replace(/^\{/, '{"__proto__":{"dependencies":["ghost"],"polluted":1},');
  const result = await server.client.callTool({ name: 'upsert_atom', arguments: JSON.parse(text) as Record<string, unknown> });
  const said = (result.content as { text?: string }[]).map((c) => c.text ?? '').join('');
  // Either refused, or the key was dropped before it reached the tool: never "Dependencies: [ghost]".
  assert.doesNotMatch(said, /ghost/);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.match((await server.call('read_atoms', { names: ['math_clamp'] })).text, /\/\/ Depends on: \[\]/);
});

test('arguments the SDK never lets through are still refused: not an object, or an object with a prototype', () => {
  const getStatus = allTools.find((t) => t.name === 'get_status')!;
  const upsert = allTools.find((t) => t.name === 'upsert_atom')!;
  for (const raw of [[], 'args', 42]) {
    assert.throws(() => parseArguments(getStatus, raw), { message: 'arguments of get_status must be an object with no keys' });
  }
  const inherited = Object.assign(Object.create({ dependencies: ['ghost'] }) as object, mathClamp);
  assert.throws(() => parseArguments(upsert, inherited), {
    message: 'invalid arguments for upsert_atom: "__proto__" is not an argument; send a plain JSON object with the keys name, code, type, inputs, outputs, dependencies, description, examples',
  });
  assert.deepEqual(parseArguments(getStatus, undefined), {}, 'no arguments at all are no keys');
});
