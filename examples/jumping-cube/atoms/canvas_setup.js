/**
 * Finds the page's canvas with the id "game" (or adds one), sizes it to the world and focuses it so it
 * gets the keyboard. Returns false when there is no page (the bundle run outside a browser).
 *
 * @kind core
 * @returns {boolean} ready - Whether there is a canvas to draw on
 * @requires physics_config
 */
function canvas_setup() {
  if (typeof document === 'undefined') return false;
  let canvas = document.getElementById('game');
  if (!canvas) {
    canvas = document.createElement('canvas');
    canvas.id = 'game';
    document.body.appendChild(canvas);
  }
  canvas.width = physics_config('world_width');
  canvas.height = physics_config('world_height');
  canvas.tabIndex = 0;
  canvas.focus();
  return true;
}
