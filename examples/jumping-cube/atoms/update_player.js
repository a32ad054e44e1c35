/**
 * One step of the player: move, fall, land, and jump when asked (twice in the air at most). Reads and
 * writes x, y, velocity_y, jumps_left and jumps in the game state.
 *
 * @kind feature
 * @param {number} dt - Seconds since the last frame
 * @returns {void} done
 * @requires apply_gravity game_state ground_check input_axis math_clamp physics_config player_jump player_movement
 */
function update_player(dt) {
  const floor = physics_config('ground_y') - physics_config('cube_size');
  const x = player_movement(game_state('x'), input_axis(), dt);
  let vy = apply_gravity(game_state('velocity_y'), dt);
  const y = math_clamp(game_state('y') + vy * dt, -2000, floor);
  const grounded = ground_check(y);
  if (grounded && vy > 0) vy = 0;
  let left = grounded ? physics_config('max_jumps') : game_state('jumps_left');
  if (game_state('jump_pressed') === 1) {
    game_state('jump_pressed', 0);
    const jumped = player_jump(vy, left > 0);
    if (jumped !== vy) {
      vy = jumped;
      left -= 1;
      game_state('jumps', game_state('jumps') + 1);
    }
  }
  game_state('x', x);
  game_state('y', y);
  game_state('velocity_y', vy);
  game_state('jumps_left', left);
}
