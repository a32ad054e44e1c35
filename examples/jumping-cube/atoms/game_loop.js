/**
 * Entry point: sets up the canvas, the state and the input, then updates and draws one frame per
 * animation frame.
 *
 * @kind core
 * @returns {void} done
 * @requires canvas_setup game_state input_init physics_config render_frame update_player
 */
function game_loop() {
  if (!canvas_setup()) return;
  game_state('x', 120);
  game_state('y', physics_config('ground_y') - physics_config('cube_size'));
  game_state('jumps_left', physics_config('max_jumps'));
  input_init();
  console.info('Jumping cube started: arrow keys or A/D move, space or a click jumps.');
  let last = 0;
  const frame = (now) => {
    const dt = last ? Math.min((now - last) / 1000, 0.05) : 0;
    last = now;
    game_state('time', game_state('time') + dt);
    update_player(dt);
    render_frame();
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}
