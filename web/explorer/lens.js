// Layer by layer (the logit lens): each decoder layer's best guess at each
// step, from the translation's own run.
import { drawLens } from "../views/lens.js";

export function mount(root) {
  return {
    render(sel) {
      drawLens(root.querySelector("#lens-grid"), root.querySelector("#lens-detail"), sel.sentence);
    },
  };
}
