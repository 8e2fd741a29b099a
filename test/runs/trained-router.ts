import { RunRouter } from "../../src/runs/index.js";

/** Three models: strong and dear, middle, weak and cheap (USD per run). */
export const MODELS = { strong: { runCost: 3 }, middle: { runCost: 1 }, weak: { runCost: 0.1 } };

/** A router fed back outcomes on 30 tasks where strong passes 90%, middle 60%, weak 20% (deterministic pattern). */
export function trained(options: Partial<ConstructorParameters<typeof RunRouter>[0]> = {}): RunRouter {
  const router = new RunRouter({ models: MODELS, ...options });
  for (let t = 0; t < 30; t++) {
    const task = { id: `t${t}`, text: `task number ${t} about files` };
    router.feedback(task, "strong", t % 10 !== 0);
    router.feedback(task, "middle", t % 10 < 6);
    router.feedback(task, "weak", t % 10 < 2);
  }
  return router;
}
