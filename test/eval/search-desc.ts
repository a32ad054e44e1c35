/**
 * Issue 16, round 3: a second, description-only vector per atom, its cosine with the query weighed
 * in the second pass (rank.ts, Candidate.descCosine) by the query's shape. The index does not
 * compute it (yet): here the memoised provider embeds each atom's description text and
 * rank.ts's evaluationHooks hands the cosine to scoreCandidates. Variants are chosen on the
 * tuned halves; the held-out halves are printed beside them.
 *
 *   TUNE_POOLED=1 node --import tsx test/eval/search-desc.ts
 */
import type { Atom } from '../../src/atoms/model.js';
import { embeddingText } from '../../src/atoms/signature.js';
import { validateDraft } from '../../src/atoms/validate.js';
import type { EmbeddingProvider } from '../../src/store/embeddings/provider.js';
import { cosine } from '../../src/store/embeddings/provider.js';
import { UseLiteProvider } from '../../src/store/embeddings/useLite.js';
import { evaluationHooks, WEIGHTS, type QueryShape } from '../../src/store/search/rank.js';
import { splitWords } from '../../src/store/search/words.js';
import { EVAL_ATOMS } from './search.eval.js';
import { MemoProvider, run } from './search-tune.js';

/** The eval's atoms as the store holds them (validated: ports and description filled in). */
const ATOMS: Atom[] = EVAL_ATOMS.map((d) => ({ ...validateDraft(d), version: 1, created_at: '', updated_at: '' }));

type DescText = (a: Atom) => string;
const TEXTS: Record<string, DescText> = {
  desc: (a) => a.description ?? '',
  'name+desc': (a) => `${splitWords(a.name).join(' ')}: ${a.description ?? ''}`,
  'name+desc+ports': (a) =>
    `${splitWords(a.name).join(' ')}: ${a.description ?? ''}. ${[...a.inputs, ...a.outputs].map((p) => p.description ?? splitWords(p.name).join(' ')).join(', ')}`,
};

/** Code identifiers, split into words, distinct, in order of first use (keywords out). */
function codeWords(code: string): string {
  const seen = new Set<string>();
  for (const m of code.matchAll(/[A-Za-z_$][\w$]*/g)) for (const w of splitWords(m[0])) if (!KEYWORDS.has(w)) seen.add(w);
  return [...seen].join(' ');
}
const KEYWORDS = new Set('function return const let var if else for while of in new this true false null undefined typeof'.split(' '));

/** What the main vector embeds, instead of embeddingText (signature.ts). */
const MAIN_TEXTS: Record<string, (a: Atom) => string> = {
  current: (a) => embeddingText(a),
  'sig:desc (no code)': (a) => embeddingText({ ...a, code: '' }).trim(),
  'split name sig:desc code': (a) => embeddingText({ ...a, name: splitWords(a.name).join(' ') }),
  'desc\nsig\ncode': (a) => `${a.description ?? ''}\n${embeddingText({ ...a, description: '' })}`,
  'name words: desc': (a) => `${splitWords(a.name).join(' ')}: ${a.description ?? ''}`,
  'sig:desc + code words': (a) => `${embeddingText({ ...a, code: '' }).trim()}\n${codeWords(a.code)}`,
  'sig:desc + code[0..300]': (a) => `${embeddingText({ ...a, code: '' }).trim()}\n${a.code.slice(0, 300)}`,
  'split sig:desc + code words': (a) => `${embeddingText({ ...a, name: splitWords(a.name).join(' '), code: '' }).trim()}\n${codeWords(a.code)}`,
};

/** Embeds an atom's main text as `alt` says; any other text (a query) as it is. */
class MainTextProvider implements EmbeddingProvider {
  readonly modelId: string;
  readonly dimensions: number;
  alt = new Map<string, string>();
  constructor(private readonly inner: EmbeddingProvider) {
    this.modelId = inner.modelId;
    this.dimensions = inner.dimensions;
  }
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.inner.embed(texts.map((t) => this.alt.get(t) ?? t));
  }
  dispose(): Promise<void> {
    return Promise.resolve();
  }
}

/** Which queries get the description evidence. */
type Gate = 'prose' | 'prose+short' | 'all';

async function main(): Promise<void> {
  const inner = new UseLiteProvider();
  const memo = new MemoProvider(inner);
  const vectors = new Map<string, Map<string, Float32Array>>();
  for (const [kind, text] of Object.entries(TEXTS)) {
    const vs = await memo.embed(ATOMS.map(text));
    vectors.set(kind, new Map(ATOMS.map((a, i) => [a.name, vs[i]!])));
  }
  const saved = { prose: { ...WEIGHTS.prose }, identifier: { ...WEIGHTS.identifier } };
  type Extra = { proseMeaning?: number; shortWeight?: number; prose?: Partial<typeof WEIGHTS.prose> };
  const variant = (textKind: string, gate: Gate, weight: number, extra: Extra = {}) => ({
    name: `${textKind} ${gate} w=${weight}${extra.proseMeaning !== undefined ? ` m=${extra.proseMeaning}` : ''}${extra.shortWeight !== undefined ? ` s=${extra.shortWeight}` : ''}${extra.prose ? ` ${JSON.stringify(extra.prose).replace(/"/g, '')}` : ''}`,
    setup: () => {
      const byName = vectors.get(textKind)!;
      WEIGHTS.prose.description = weight;
      if (extra.proseMeaning !== undefined) WEIGHTS.prose.meaning = extra.proseMeaning;
      Object.assign(WEIGHTS.prose, extra.prose ?? {});
      WEIGHTS.identifier.description = gate === 'prose' ? 0 : (extra.shortWeight ?? weight);
      evaluationHooks.descCosine = (shape: QueryShape, name: string) => {
        if (gate === 'prose+short' && shape.codeTokens.length > 0) return null;
        const q = memo.peek(shape.wanted);
        const v = byName.get(name);
        return q && v ? cosine(q, v) : null;
      };
    },
    teardown: () => {
      Object.assign(WEIGHTS.prose, saved.prose);
      Object.assign(WEIGHTS.identifier, saved.identifier);
      evaluationHooks.descCosine = undefined;
    },
  });
  const only = process.argv[2];
  type Variant = { name: string; setup?: () => void; teardown?: () => void };
  const variants: Variant[] = [
    { name: 'product' },
    {
      name: 'product without description',
      setup: () => void (WEIGHTS.prose.description = 0),
      teardown: () => void (WEIGHTS.prose.description = saved.prose.description),
    },
  ];
  if (!only || only === 'sweep') {
    for (const t of Object.keys(TEXTS)) for (const w of [0.35, 0.7]) variants.push(variant(t, 'prose', w));
    variants.push(variant('desc', 'all', 0.35), variant('name+desc', 'all', 0.35));
    variants.push(variant('desc', 'prose+short', 0.35, { shortWeight: 0.15 }), variant('name+desc', 'prose+short', 0.35, { shortWeight: 0.15 }));
    variants.push(variant('desc', 'prose', 0.7, { proseMeaning: 0.35 }), variant('name+desc', 'prose', 0.7, { proseMeaning: 0.35 }));
  }
  if (only === 'shipped') variants.push(variant('desc', 'prose', saved.prose.description));
  if (only === 'weight') for (const w of [0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6]) variants.push(variant('desc', 'prose', w));
  if (only === 'grid') {
    for (const w of [0, 0.2, 0.35, 0.5])
      for (const related of [0.25, 0.15, 0.08])
        for (const lexical of [0.3, 0.2]) variants.push(variant('desc', 'prose', w, { prose: { related, lexical } }));
  }
  if (only === 'main') {
    const provider = new MainTextProvider(memo);
    const mainVariant = (label: string, text: (a: Atom) => string, desc: number) => {
      const v = desc > 0 ? variant('desc', 'prose', desc) : { name: '', setup: () => {}, teardown: () => {} };
      return {
        name: `${label}${desc > 0 ? ` +desc ${desc}` : ''}`,
        setup: () => {
          provider.alt = new Map(ATOMS.map((a) => [embeddingText(a), text(a)]));
          v.setup();
        },
        teardown: () => v.teardown(),
      };
    };
    const mains = Object.entries(MAIN_TEXTS).flatMap(([label, text]) => [mainVariant(label, text, 0), mainVariant(label, text, 0.35)]);
    try {
      await run(mains, provider);
    } finally {
      await inner.dispose();
    }
    return;
  }
  try {
    await run(variants, memo);
  } finally {
    await inner.dispose();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
