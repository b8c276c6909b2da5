// Sizing a canvas for sharp drawing on any screen.

/**
 * Gives `canvas` a CSS size of w × h and a backing store scaled by the
 * device pixel ratio, clears it, and returns its 2D context drawing in CSS
 * pixels.
 */
export function prepare(canvas, w, h) {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  canvas.style.width = `${w}px`;
  canvas.style.height = `${h}px`;
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  return g;
}
