/**
 * Physics and world constants of the game, looked up by name (gravity, jump_force, move_speed,
 * ground_y, cube_size, world_width, world_height, max_jumps). Unknown names give 0.
 *
 * @kind util
 * @param {string} key - The constant's name, such as "jump_force"
 * @returns {number} value - The constant
 */
function physics_config(key) {
  const config = {
    gravity: 1900, // px/s², pulls the cube down
    jump_force: 720, // px/s upwards at take-off
    move_speed: 260, // px/s sideways
    ground_y: 380, // top of the ground, px
    cube_size: 40,
    world_width: 800,
    world_height: 450,
    max_jumps: 2, // 2 allows a double jump
  };
  return key in config ? config[key] : 0;
}
