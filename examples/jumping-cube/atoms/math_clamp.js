/**
 * Clamp a number between min and max.
 *
 * @kind util
 * @param {number} value - The number to limit
 * @param {number} min - Lowest result
 * @param {number} max - Highest result
 * @returns {number} clamped - value, limited to [min, max]
 */
function math_clamp(value, min, max) {
  return Math.min(Math.max(value, min), max);
}
