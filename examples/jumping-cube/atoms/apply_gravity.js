/**
 * Gravity: the vertical velocity after dt seconds of falling.
 *
 * @kind feature
 * @param {number} velocity_y - Current vertical velocity (px/s, down is positive)
 * @param {number} dt - Seconds since the last frame
 * @returns {number} new_velocity_y - Velocity after gravity
 * @requires physics_config
 */
function apply_gravity(velocity_y, dt) {
  return velocity_y + physics_config('gravity') * dt;
}
