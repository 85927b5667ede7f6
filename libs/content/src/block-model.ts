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

/** The model's log-odds that the block at `row` of a feature matrix is boilerplate. */
export function blockLogit(model: BlockModel, x: Float64Array, row: number): number {
  const width = model.features.length;
  const base = row * width;
  let sum = model.bias;
  for (const t of model.trees) {
    let n = 0;
    let f = t[0]!;
    while (f >= 0) {
      n = x[base + f]! <= t[4 * n + 1]! ? t[4 * n + 2]! : t[4 * n + 3]!;
      f = t[4 * n]!;
    }
    sum += t[4 * n + 1]!;
  }
  return sum;
}

export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));
