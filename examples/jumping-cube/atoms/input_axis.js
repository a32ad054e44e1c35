/**
 * The horizontal direction the player holds: -1 left, 1 right, 0 none or both.
 *
 * @kind feature
 * @returns {number} direction - -1, 0 or 1
 * @requires game_state
 */
function input_axis() {
  return game_state('key_right') - game_state('key_left');
}
