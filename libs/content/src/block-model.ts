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

/** The trees laid out in typed arrays, all nodes of all trees in one run (made once per model). */
interface Compiled {
  roots: Int32Array;
  feature: Int32Array;
  threshold: Float64Array;
  left: Int32Array;
  right: Int32Array;
}
const compiled = new WeakMap<BlockModel, Compiled>();

function compile(model: BlockModel): Compiled {
  const size = model.trees.reduce((s, t) => s + t.length / 4, 0);
  const c: Compiled = {
    roots: new Int32Array(model.trees.length),
    feature: new Int32Array(size),
    threshold: new Float64Array(size),
    left: new Int32Array(size),
    right: new Int32Array(size),
  };
  let at = 0;
  model.trees.forEach((t, i) => {
    c.roots[i] = at;
    for (let k = 0; k < t.length / 4; k++) {
      c.feature[at + k] = t[4 * k]!;
      c.threshold[at + k] = t[4 * k + 1]!;
      c.left[at + k] = at + t[4 * k + 2]!;
      c.right[at + k] = at + t[4 * k + 3]!;
    }
    at += t.length / 4;
  });
  compiled.set(model, c);
  return c;
}

/** The model's log-odds that the block at `row` of a feature matrix is boilerplate. */
export function blockLogit(model: BlockModel, x: Float64Array, row: number): number {
  const { roots, feature, threshold, left, right } = compiled.get(model) ?? compile(model);
  const base = row * model.features.length;
  let sum = model.bias;
  for (let t = 0; t < roots.length; t++) {
    let n = roots[t]!;
    let f = feature[n]!;
    while (f >= 0) {
      n = x[base + f]! <= threshold[n]! ? left[n]! : right[n]!;
      f = feature[n]!;
    }
    sum += threshold[n]!;
  }
  return sum;
}

export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));
