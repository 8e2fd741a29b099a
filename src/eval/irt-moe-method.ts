import type { Tf } from "../util/tf.js";
import { resolveIrtMoeConfig, type IrtMoeConfig } from "../scorer/config.js";
import { predictItems } from "../scorer/forward.js";
import { trainIrtMoe } from "../scorer/train.js";
import { IRT_MOE } from "./evaluate.js";
import type { RoutingMethod } from "./types.js";

/**
 * The IRT mixture-of-experts scorer as an evaluation method (row `irt-moe`): trained per seed
 * with `trainIrtMoe` on the train split (early-stopped and calibrated on val), predicted with
 * the plain typed-array path.
 *
 * @example
 * ```ts
 * const { tf } = await getTf();
 * const report = await evaluate(dataset, { methods: [irtMoeMethod(tf), knnBaseline()] });
 * ```
 */
export function irtMoeMethod(tf: Tf, config: Partial<IrtMoeConfig> = {}): RoutingMethod {
  return {
    name: IRT_MOE,
    seeded: true,
    async fit(data, split, options) {
      const { maxEpochs } = resolveIrtMoeConfig(config);
      const trained = await trainIrtMoe(tf, data, split, config, {
        seed: options.seed,
        onEpoch: (e) =>
          options.onProgress?.({
            method: IRT_MOE,
            epoch: e.epoch,
            maxEpochs,
            trainLoss: e.trainLoss,
            valLoss: e.valLoss,
            status: `val AUC ${e.valAuc.toFixed(4)}`,
          }),
      });
      const c = trained.config;
      return {
        description:
          `K=${c.experts}+1 experts, H=${c.hidden}, O=${c.out}, d=${c.abilityDim}, lr ${c.learningRate}, dropout ${c.dropout}, ` +
          `noise ${c.inputNoise}, wd ${c.weightDecay}; best epoch ${trained.bestEpoch}/${trained.history.length}, ` +
          `temperature ${trained.temperature.toFixed(3)}${trained.temperature !== 1 ? " (fitted on val: lowered val ECE)" : " (calibration did not lower val ECE)"}`,
        predict: (X, rows) => predictItems(trained, X, rows),
      };
    },
  };
}
