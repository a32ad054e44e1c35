/**
 * Linear interpolation between two numbers.
 *
 * @kind util
 * @param {number} a - Value at t = 0
 * @param {number} b - Value at t = 1
 * @param {number} t - Position between them, 0 to 1
 * @returns {number} value - a + (b - a) * t
 */
function math_lerp(a, b, t) {
  return a + (b - a) * t;
}
