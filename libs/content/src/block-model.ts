// A small learned model that judges the leaf blocks of the main content: boosted regression
// trees over features that describe the page (block length, link density, template position,
// semantic ancestors, class-name vocabularies, repetition), never a site. Trained by
// scripts/train-block-model.ts on the WCXB development split; its output is the probability
// that leaving the block out raises the page's score (the block is boilerplate).

/** A trained ensemble as the training script writes it (block-model.weights.ts). */
export interface BlockModel {
  /** Names of the features, in the order blockFeatures fills them (checked when loading). */
  features: readonly string[];
  bias: number;
  /**
   * One flat array per tree, four numbers per node: feature, threshold, left child, right child
   * (node indices); a leaf has feature −1 and its value in place of the threshold.
   */
  trees: readonly (readonly number[])[];
  /** A block is left out when the model's probability reaches this. */
  threshold: number;
  /** At most this share of the winner's text is left out on one page (the rest stays). */
  maxDrop: number;
}

/**
 * The trees laid out as complete binary trees of the ensemble's depth, all trees in one run of
 * typed arrays: split s of a tree has its children at 2s + 1 and 2s + 2, and a block goes down
 * by arithmetic instead of by branches the processor mispredicts (about twice as fast on the dev
 * pages' blocks). A leaf above the full depth is padded with splits that lead to it either way.
 */
interface Compiled {
  depth: number;
  /** Per tree, 2^depth − 1 splits: the feature and the threshold (a block goes left when ≤). */
  feature: Int32Array;
  threshold: Float64Array;
  /** Per tree, 2^depth leaf values. */
  leaf: Float64Array;
}
const compiled = new WeakMap<BlockModel, Compiled>();

function compile(model: BlockModel): Compiled {
  const depthOf = (t: readonly number[], n: number): number =>
    t[4 * n]! < 0 ? 0 : 1 + Math.max(depthOf(t, t[4 * n + 2]!), depthOf(t, t[4 * n + 3]!));
  const depth = Math.max(0, ...model.trees.map((t) => depthOf(t, 0)));
  const splits = 2 ** depth - 1;
  const c: Compiled = {
    depth,
    feature: new Int32Array(model.trees.length * splits),
    threshold: new Float64Array(model.trees.length * splits),
    leaf: new Float64Array(model.trees.length * (splits + 1)),
  };
  model.trees.forEach((t, i) => {
    const place = (n: number, slot: number): void => {
      if (slot >= splits) {
        c.leaf[i * (splits + 1) + slot - splits] = t[4 * n + 1]!;
        return;
      }
      const at = i * splits + slot;
      if (t[4 * n]! < 0) {
        // A NaN threshold sends every block right; both sides lead to the same leaf.
        c.threshold[at] = NaN;
        place(n, 2 * slot + 1);
        place(n, 2 * slot + 2);
        return;
      }
      c.feature[at] = t[4 * n]!;
      c.threshold[at] = t[4 * n + 1]!;
      place(t[4 * n + 2]!, 2 * slot + 1);
      place(t[4 * n + 3]!, 2 * slot + 2);
    };
    place(0, 0);
  });
  compiled.set(model, c);
  return c;
}

/** The model's log-odds that the block at `row` of a feature matrix is boilerplate. */
export function blockLogit(model: BlockModel, x: Float64Array, row: number): number {
  const c = compiled.get(model) ?? compile(model);
  const base = row * model.features.length;
  // The trees' sum in their order, as the training script adds them.
  return c.depth === 3 ? logitOfDepth3(c, x, base, model.bias) : logitOfAnyDepth(c, x, base, model.bias);
}

/** The shipped model's depth, its three steps written out (a loop costs a third more). */
function logitOfDepth3({ feature, threshold, leaf }: Compiled, x: Float64Array, base: number, bias: number): number {
  let sum = bias;
  for (let at = 0, leaves = 0; at < threshold.length; at += 7, leaves += 8) {
    let s = x[base + feature[at]!]! <= threshold[at]! ? 1 : 2;
    s = 2 * s + (x[base + feature[at + s]!]! <= threshold[at + s]! ? 1 : 2);
    s = 2 * s + (x[base + feature[at + s]!]! <= threshold[at + s]! ? 1 : 2);
    sum += leaf[leaves + s - 7]!;
  }
  return sum;
}

function logitOfAnyDepth(c: Compiled, x: Float64Array, base: number, bias: number): number {
  const splits = 2 ** c.depth - 1;
  let sum = bias;
  for (let at = 0, leaves = 0; leaves < c.leaf.length; at += splits, leaves += splits + 1) {
    let s = 0;
    for (let d = 0; d < c.depth; d++) s = 2 * s + (x[base + c.feature[at + s]!]! <= c.threshold[at + s]! ? 1 : 2);
    sum += c.leaf[leaves + s - splits]!;
  }
  return sum;
}

export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));
