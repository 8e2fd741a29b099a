/**
 * The router options behind each row of the agent-run benchmark, as the router names them.
 */
import type { RouterFeatures } from "./agent-experiment.js";
import type { AgentSetup } from "./agent-setup.js";

export function routerFeatures(_setup: AgentSetup): RouterFeatures {
  return { signature: "cache-blind only", cacheBlind: {} };
}
