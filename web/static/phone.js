// A phone (issue #41 item 17). chessground measures where its board lies once, and again only when
// the window scrolls or resizes; when the page moves the board (a line wraps on a narrow screen, a
// message shows above it), a touch would land on the wrong square. So the board is measured again
// at every touch or click on it, before chessground reads the measure (a capturing listener).
export function measureOnTouch(element) {
  for (const type of ['touchstart', 'mousedown']) {
    element.addEventListener(type, () => window.dispatchEvent(new Event('resize')), { capture: true, passive: true });
  }
}
