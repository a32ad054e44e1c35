/**
 * Reciprocal rank fusion: each ranking gives an item 1 / (k + rank). Items that both the words
 * and the meaning rank well rise; an item only one of them finds still shows up. It needs no
 * score calibration between BM25 and cosine, which live on unrelated scales.
 */
export const RRF_K = 60;

export function reciprocalRankFusion(
  rankings: Array<{ names: readonly string[]; weight?: number }>,
  k = RRF_K,
): Map<string, number> {
  const fused = new Map<string, number>();
  for (const { names, weight = 1 } of rankings) {
    names.forEach((name, i) => fused.set(name, (fused.get(name) ?? 0) + weight / (k + i + 1)));
  }
  return fused;
}
