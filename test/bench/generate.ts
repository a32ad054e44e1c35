/**
 * Seeded generator of realistic workspaces for the benchmarks: atoms of the size and shape an
 * agent writes for a browser game (100 to 1,800 bytes of code, 0 to 5 typed inputs, 1 to 3
 * outputs, a one-sentence description) with dependencies on earlier atoms (a DAG: most atoms
 * use 1 to 4 helpers, a few core atoms tie features together).
 *
 * The same seed and size always give the same atoms, so a generated workspace can be cached
 * (bench-results/cache/) and every run measures the same data.
 */
import type { AtomDraft, AtomType, Port, PortType } from '../../src/atoms/model.js';

/** Bump when the generated atoms change, so cached workspaces are regenerated. */
export const GENERATOR_VERSION = 1;

const DOMAINS = ['player', 'enemy', 'camera', 'physics', 'input', 'audio', 'render', 'level', 'score', 'ui', 'particle', 'tile',
  'inventory', 'weapon', 'dialog', 'save', 'network', 'ai', 'spawn', 'collision', 'animation', 'health', 'quest', 'shop', 'map'];
const VERBS = ['update', 'compute', 'apply', 'check', 'resolve', 'clamp', 'spawn', 'draw', 'load', 'blend', 'scale', 'find', 'sort',
  'count', 'merge', 'split', 'track', 'emit', 'reset', 'step'];
const NOUNS = ['velocity', 'position', 'bounds', 'damage', 'timer', 'frame', 'volume', 'color', 'path', 'target', 'state', 'offset',
  'speed', 'angle', 'radius', 'weight', 'queue', 'grid', 'budget', 'cooldown'];
const PORT_NAMES = ['x', 'y', 'dx', 'dy', 'dt', 'speed', 'angle', 'radius', 'amount', 'count', 'index', 'level', 'label', 'mode',
  'enabled', 'visible', 'values', 'weights', 'flags', 'names', 'target', 'limit', 'scale', 'offset'];
const PORT_TYPES: PortType[] = ['number', 'number', 'number', 'number', 'string', 'boolean', 'number[]', 'string[]', 'boolean[]'];
const PHRASES = [
  'keeps the result inside the configured limits',
  'so the game feels the same at any frame rate',
  'used every frame by the main loop',
  'returns a new value and never mutates its inputs',
  'falls back to a safe default when the input is empty',
  'reads its constants from the config atom',
  'cheap enough to call for every entity',
  'rounded so the screen does not shimmer',
];

/** Mulberry32: a tiny, fast, good-enough seeded generator. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GeneratedSet {
  atoms: AtomDraft[];
  edges: number;
  codeBytes: number;
}

/**
 * `count` atoms in dependency order (every atom's dependencies come before it), so they can be
 * written in batches of any size.
 */
export function generateAtoms(count: number, seed = 42): GeneratedSet {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const atoms: AtomDraft[] = [];
  let edges = 0;
  let codeBytes = 0;
  for (let i = 0; i < count; i++) {
    const domain = pick(DOMAINS);
    const verb = pick(VERBS);
    const noun = pick(NOUNS);
    const name = `${domain}_${verb}_${noun}_${i}`;
    const roll = random();
    const type: AtomType = i < 10 ? 'util' : roll < 0.55 ? 'util' : roll < 0.9 ? 'feature' : 'core';
    const inputs = ports(int(0, 5), 'in');
    const outputs = ports(int(1, 3), 'out');
    // Helpers come from a window of recent atoms (locality, as in real code) and a few shared ones.
    const depCount = i === 0 ? 0 : type === 'core' ? int(2, 6) : type === 'feature' ? int(1, 4) : int(0, 2);
    const deps = new Set<string>();
    for (let d = 0; d < depCount && i > 0; d++) {
      const j = random() < 0.2 ? Math.floor(random() * Math.min(i, 50)) : Math.max(0, i - 1 - Math.floor(random() * Math.min(i, 300)));
      deps.add(atoms[j]!.name);
    }
    const dependencies = [...deps];
    const code = codeFor(name, inputs, outputs, dependencies, int(2, 26));
    codeBytes += Buffer.byteLength(code);
    edges += dependencies.length;
    atoms.push({
      name,
      type,
      description: `${capitalize(verb)}s the ${noun} of the ${domain}: ${pick(PHRASES)}, ${pick(PHRASES)}.`,
      inputs,
      outputs,
      dependencies,
      code,
    });
  }
  return { atoms, edges, codeBytes };

  function ports(n: number, prefix: string): Port[] {
    const used = new Set<string>();
    const out: Port[] = [];
    while (out.length < n) {
      const base = pick(PORT_NAMES);
      const portName = used.has(base) ? `${base}_${prefix}${out.length}` : base;
      used.add(portName);
      const port: Port = { name: portName, type: pick(PORT_TYPES) };
      if (random() < 0.5) port.description = `the ${portName.replace(/_/g, ' ')} in world units`;
      if (random() < 0.1) port.optional = true;
      out.push(port);
    }
    return out;
  }

  /** A function of `lines` statements that calls each dependency once; stays under 2,048 bytes. */
  function codeFor(name: string, inputs: Port[], outputs: Port[], deps: string[], lines: number): string {
    const params = inputs.map((p) => p.name);
    const body: string[] = [];
    body.push(`  const k_scale = ${(random() * 10).toFixed(3)};`);
    body.push(`  let k_acc = ${params.length ? `Number(${params[0]}) || 0` : '0'};`);
    for (const dep of deps) body.push(`  const k_r${body.length} = ${dep}(${params.slice(0, 2).join(', ')});`);
    const snippets = [
      () => `  k_acc = Math.min(Math.max(k_acc * k_scale, -${int(10, 999)}), ${int(10, 999)});`,
      () => `  if (k_acc > ${int(1, 500)}) k_acc -= ${(random() * 50).toFixed(2)};`,
      () => `  for (let i = 0; i < ${int(2, 8)}; i++) k_acc += Math.sin(i * ${(random() * 3).toFixed(2)}) * k_scale;`,
      () => `  const k_note${body.length} = 'step ' + ${body.length} + ' of ${name.slice(0, 12)}';`,
      () => `  k_acc = Math.round(k_acc * ${int(10, 1000)}) / ${int(10, 1000)};`,
    ];
    let size = 0;
    for (let l = 0; l < lines; l++) {
      const line = pick(snippets)();
      size += line.length + 1;
      if (size > 1300) break;
      body.push(line);
    }
    const result =
      outputs.length === 1 ? `  return k_acc;` : `  return { ${outputs.map((o, k) => `${o.name}: k_acc + ${k}`).join(', ')} };`;
    return `function ${name}(${params.join(', ')}) {\n${body.join('\n')}\n${result}\n}\n`;
  }
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A new atom that calls one existing atom (what an agent adds most often). */
export function newAtom(name: string, dependency: string): AtomDraft {
  return {
    name,
    type: 'feature',
    description: 'Applies the bench adjustment to a value, using an existing helper.',
    inputs: [{ name: 'value', type: 'number' }],
    outputs: [{ name: 'result', type: 'number' }],
    dependencies: [dependency],
    code: `function ${name}(value) {\n  const base = ${dependency}(value);\n  return Number(base) + value * 2;\n}\n`,
  };
}
