/**
 * Pre-order walk over the element tree under root that tolerates removal: `visit` answers
 * whether to descend into the element, and may detach it (its subtree is then skipped).
 */
export function walkElements(root: Element, visit: (el: Element) => boolean): void {
  let node: Element | null = root.firstElementChild;
  while (node) {
    // Read the way on before visiting: visit may detach the node.
    const parent = node.parentElement;
    const next = node.nextElementSibling;
    const descend = visit(node);
    const attached = node.parentElement === parent;
    if (attached && descend && node.firstElementChild) {
      node = node.firstElementChild;
      continue;
    }
    let after: Element | null = attached ? node.nextElementSibling : next;
    let up: Element | null = parent;
    while (!after && up && up !== root) {
      after = up.nextElementSibling;
      up = up.parentElement;
    }
    node = after;
  }
}
