/**
 * The game's state: named numbers kept between frames (x, y, velocity_y, jumps, jumps_left, time,
 * key_left, key_right, jump_pressed). Reads a value, or writes it when a value is given. The store lives
 * on the function itself, so every atom shares it without passing objects around.
 *
 * @kind core
 * @param {string} key - The value's name
 * @param {number} [value] - When given, the new value
 * @returns {number} current - The value (0 when never set)
 */
function game_state(key, value) {
  const store = game_state.store || (game_state.store = {});
  if (value !== undefined) store[key] = value;
  return store[key] === undefined ? 0 : store[key];
}
