import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Atom } from '../../src/atoms/model.js';
import { AtomModel } from '../../src/store/atoms/model.js';

const atom = (name: string, dependencies: string[]): Atom => ({
  name, type: 'util', code: `function ${name}() {}`, dependencies, inputs: [], outputs: [], description: null, version: 1, created_at: 't', updated_at: 't',
});

/** Who depends on `name`, found the slow way: a walk over every atom. */
function scanned(model: AtomModel, name: string): string[] {
  return model.all().filter((a) => a.dependencies.includes(name)).map((a) => a.name).sort();
}

test("the model's dependents follow every put and delete as a walk over every atom finds them", () => {
  const model = new AtomModel();
  model.replace([atom('a', []), atom('b', ['a']), atom('c', ['a', 'b', 'a'])]);
  assert.deepEqual(model.dependents('a'), ['b', 'c']);
  // Seeded, so a failure repeats: puts with new and changed dependencies (some missing, some doubled), and deletes.
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const names = Array.from({ length: 30 }, (_, i) => `n${String(i).padStart(2, '0')}`);
  for (let step = 0; step < 2_000; step++) {
    const name = names[Math.floor(random() * names.length)]!;
    if (random() < 0.2) model.apply([{ op: 'del', name, version: 1, at: 't' }]);
    else {
      const deps = Array.from({ length: Math.floor(random() * 4) }, () => names[Math.floor(random() * names.length)]!);
      model.apply([{ op: 'put', atom: atom(name, deps) }]);
    }
    if (step % 50 === 0) model.replace(model.all());
    for (const n of [...names, 'a', 'b']) assert.deepEqual(model.dependents(n), scanned(model, n), `after step ${step}: dependents of ${n}`);
  }
  const copy = model.dependents(names[0]!);
  copy.push('zz');
  assert.ok(!model.dependents(names[0]!).includes('zz'), 'dependents() hands out a copy');
});

test('all() is every atom in name order, the latest of each, after every put and delete; an earlier answer stays as it was', () => {
  const model = new AtomModel();
  model.replace([atom('m', []), atom('c', []), atom('x', ['c'])]);
  const expected = new Map(model.all().map((a) => [a.name, a]));
  assert.deepEqual([...expected.keys()], ['c', 'm', 'x'], 'a load not in order is sorted');
  let seed = 11;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const names = Array.from({ length: 40 }, (_, i) => `k${Math.floor(random() * 1000)}_${i}`);
  for (let step = 0; step < 1_500; step++) {
    const before = model.all();
    const frozen = before.slice();
    const name = names[Math.floor(random() * names.length)]!;
    if (random() < 0.25) {
      model.apply([{ op: 'del', name, version: 1, at: 't' }]);
      expected.delete(name);
    } else {
      const next = atom(name, []);
      model.apply([{ op: 'put', atom: next }]);
      expected.set(name, next);
    }
    if (step % 100 === 0) model.replace(model.all());
    const want = [...expected.keys()].sort().map((n) => expected.get(n)!);
    const all = model.all();
    assert.equal(all.length, want.length, `after step ${step}`);
    all.forEach((a, i) => assert.equal(a, want[i], `after step ${step}: the atom at ${i}`));
    assert.ok(Object.isFrozen(all));
    assert.deepEqual(before, frozen, `after step ${step}: the answer before the change is unchanged`);
  }
});
