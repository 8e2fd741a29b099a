/**
 * The router options behind each row of the agent-run benchmark, as the router names them (docs/langchain.md).
 */
import type { RouterFeatures } from "./experiment.js";
import type { Replay } from "./rows.js";

export function routerFeatures(replay: Replay): RouterFeatures {
  const clock = replay.ctx.clock;
  if (!clock) throw new Error("routerFeatures: the replay has no simulated clock");
  const lifetimeMs = replay.ctx.shape.cacheLifetimeSec * 1000;
  return {
    signature: `cacheAware(lifetimeMs=${lifetimeMs}, simulated clock); escalation stronger; router 73de203`,
    cacheBlind: { cacheAware: false },
    cacheAware: { cacheAware: { lifetimeMs, now: clock.now } },
    escalation: [{ name: "stronger", options: { escalation: { bar: "stronger" } } }],
    hintMetadata: (category) => ({ irtRouterTask: category }),
  };
}
