import { describe, expect, it } from "vitest";
import { UnknownModelError, ValidationError } from "../../src/errors.js";
import { trained } from "./trained-router.js";

describe("models excluded from a run", () => {
  it("route: an excluded model is never chosen, allowRetry or not; a failed one only with allowRetry", () => {
    const router = trained();
    const task = { id: "new", text: "a new task about files" };
    for (const allowRetry of [false, true]) {
      const d = router.route(task, { exclude: ["strong"], allowRetry, attemptsLeft: 3 });
      expect(d.chosen).toBe("middle");
      expect(d.candidates.map((c) => c.modelId)).not.toContain("strong");
      expect(d.excluded).toEqual(["strong"]);
    }
    const failed = [{ modelId: "strong", outcome: 0 }];
    expect(router.route(task, { outcomes: failed }).excluded).toEqual(["strong"]);
    const retried = router.route(task, { outcomes: failed, allowRetry: true });
    expect(retried.excluded).toEqual([]);
    expect(retried.candidates.map((c) => c.modelId)).toContain("strong");
    const all = () => router.route(task, { exclude: ["strong", "middle", "weak"], allowRetry: true });
    expect(all).toThrow(ValidationError);
    expect(all).toThrow(/by options.exclude/);
  });

  it("escalate: an excluded model never runs, with or without allowRetry", async () => {
    const router = trained();
    for (const allowRetry of [false, true]) {
      const ran: string[] = [];
      const result = await router.escalate(
        { id: `x-${allowRetry}`, text: "a new task about files" },
        async (m) => void ran.push(m),
        () => false,
        { maxAttempts: 4, exclude: ["strong"], allowRetry, learn: false },
      );
      expect(ran.length).toBeGreaterThan(0);
      expect(ran).not.toContain("strong");
      if (!allowRetry) {
        expect(result.stopReason).toBe("no-model");
        expect(ran.sort()).toEqual(["middle", "weak"]);
      }
    }
  });

  it("escalate: every model excluded runs nothing; an unknown id is an UnknownModelError before any run", async () => {
    const router = trained();
    const ran: string[] = [];
    const run = async (m: string) => void ran.push(m);
    const none = await router.escalate("t-none", run, () => true, { exclude: ["strong", "middle", "weak"] });
    expect(none).toMatchObject({ passed: false, attempts: [], cost: 0, stopReason: "no-model" });
    const typo = router.escalate("t-typo", run, () => true, { exclude: ["strnog"] });
    await expect(typo).rejects.toThrow(UnknownModelError);
    await expect(typo).rejects.toMatchObject({ path: "options.exclude.0" });
    expect(ran).toEqual([]);
  });
});
