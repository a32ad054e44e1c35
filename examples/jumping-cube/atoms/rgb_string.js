/**
 * A CSS colour string from an [r, g, b] array, for the canvas.
 *
 * @kind util
 * @param {number[]} color - [r, g, b], 0 to 255 each
 * @returns {string} css - Such as "rgb(242, 166, 90)"
 */
function rgb_string(color) {
  return 'rgb(' + color[0] + ', ' + color[1] + ', ' + color[2] + ')';
}
