/**
 * semantic_search with detail "context": each hit in the contract's block, with the atoms that use it
 * under `Depends on`, so an agent sees what a change to a hit reaches without a query_graph call per
 * hit. The default answer stays exactly the contract's.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openInProcess, wordsOnly, type InProcessServer } from '../support/inProcess.js';
import { USED_BY_SHOWN } from '../../src/mcp/format.js';

let server: InProcessServer;
before(async () => {
  server = await openInProcess({ embeddings: wordsOnly });
});
after(() => server.close());

async function ok(tool: string, args: Record<string, unknown>): Promise<string> {
  const r = await server.call(tool, args);
  assert.equal(r.isError, false, r.text);
  return r.text;
}

const num = (name: string) => ({ name, type: 'number' });

test('detail context lists who uses each hit, sorted, between Depends on and the code', async () => {
  await ok('upsert_atom', {
    name: 'gravity_constant',
    type: 'util',
    description: 'The gravity of the world in units per second squared',
    outputs: [num('g')],
    code: 'function gravity_constant() {\n  return 9.81;\n}',
  });
  for (const name of ['rocket_fall', 'apple_fall']) {
    await ok('upsert_atom', {
      name,
      type: 'feature',
      description: `Speed of the ${name.split('_')[0]} after falling for t seconds`,
      inputs: [num('t')],
      outputs: [num('speed')],
      code: `function ${name}(t) {\n  return gravity_constant() * t;\n}`,
    });
  }

  const text = await ok('semantic_search', { query: 'gravity_constant', limit: 3, detail: 'context' });
  assert.match(
    text,
    /^\/\/ gravity_constant \(util\) \[similarity: [^\]]+\]\n\/\/ The gravity of the world in units per second squared\n\/\/ Signature: \(\) => number\n\/\/ Depends on: \[\]\n\/\/ Used by: \[apple_fall, rocket_fall\]\nfunction gravity_constant\(\) \{/m,
  );
  // An atom nothing uses says so, in the same place.
  assert.match(text, /\/\/ Depends on: \[gravity_constant\]\n\/\/ Used by: \[\]\nfunction (apple|rocket)_fall\(t\)/);

  // The default and summary answers are as before: no Used by line.
  assert.doesNotMatch(await ok('semantic_search', { query: 'gravity_constant', limit: 3 }), /Used by/);
  assert.doesNotMatch(await ok('semantic_search', { query: 'gravity_constant', limit: 3, detail: 'summary' }), /Used by/);

  // A widely used atom lists the first USED_BY_SHOWN and says how many more, and where to see them.
  const users = Array.from({ length: USED_BY_SHOWN + 3 }, (_, i) => `orbit_step_${String(i).padStart(2, '0')}`);
  await ok('upsert_atoms', {
    atoms: users.map((name) => ({
      name,
      type: 'feature',
      description: 'One step of an orbit',
      inputs: [num('t')],
      outputs: [num('y')],
      code: `function ${name}(t) {\n  return gravity_constant() * t * t;\n}`,
    })),
  });
  const wide = await ok('semantic_search', { query: 'gravity_constant', limit: 1, detail: 'context' });
  const line = /^\/\/ Used by: .*$/m.exec(wide)?.[0];
  const all = ['apple_fall', ...users, 'rocket_fall'];
  assert.equal(line, `// Used by: [${all.slice(0, USED_BY_SHOWN).join(', ')}] and ${all.length - USED_BY_SHOWN} more (query_graph dependents lists them)`);

  const bad = await server.call('semantic_search', { query: 'gravity', detail: 'everything' });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /^Error: .*detail/);
});
