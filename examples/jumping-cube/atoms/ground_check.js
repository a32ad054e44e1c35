/**
 * Whether a cube whose top is at y stands on the ground.
 *
 * @kind feature
 * @param {number} y - Top of the cube, px
 * @returns {boolean} is_grounded - True on (or below) the ground
 * @requires physics_config
 */
function ground_check(y) {
  return y >= physics_config('ground_y') - physics_config('cube_size') - 0.5;
}
