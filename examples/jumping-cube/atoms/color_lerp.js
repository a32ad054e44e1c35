/**
 * Blend two RGB colours; t is clamped to 0..1.
 *
 * @kind util
 * @param {number[]} from - [r, g, b] at t = 0
 * @param {number[]} to - [r, g, b] at t = 1
 * @param {number} t - Blend amount
 * @returns {number[]} color - The blended [r, g, b]
 * @requires math_clamp math_lerp
 */
function color_lerp(from, to, t) {
  const k = math_clamp(t, 0, 1);
  return [0, 1, 2].map((i) => Math.round(math_lerp(from[i], to[i], k)));
}
