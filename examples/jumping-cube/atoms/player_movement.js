/**
 * Moves the cube sideways in the held direction, kept inside the world.
 *
 * @kind feature
 * @param {number} x - Current left edge of the cube, px
 * @param {number} direction - -1 left, 0 none, 1 right
 * @param {number} dt - Seconds since the last frame
 * @returns {number} new_x - Left edge after moving
 * @requires math_clamp physics_config
 */
function player_movement(x, direction, dt) {
  const max = physics_config('world_width') - physics_config('cube_size');
  return math_clamp(x + direction * physics_config('move_speed') * dt, 0, max);
}
