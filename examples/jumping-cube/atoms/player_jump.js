/**
 * Applies the upward jump force when the cube may jump (on the ground, or in the air with a double
 * jump left); otherwise keeps the velocity.
 *
 * @kind feature
 * @param {number} velocity_y - Current vertical velocity (px/s, down is positive)
 * @param {boolean} can_jump - Whether a jump is allowed now
 * @returns {number} new_velocity_y - Vertical velocity after the jump
 * @requires physics_config
 */
function player_jump(velocity_y, can_jump) {
  if (!can_jump) return velocity_y;
  return -physics_config('jump_force');
}
