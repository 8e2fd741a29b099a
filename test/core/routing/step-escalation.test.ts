import { describe, expect, it } from "vitest";
import { createAgent } from "langchain";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { IrtRouter, type RouteDecision } from "../../../src/langchain/index.js";
import { ToyScorer, quietLogger } from "../../langchain/helpers.js";

const Q = "Compute 17 * 23 and check it with the calculator.";
const toolCall = (by: string, id = "c1") =>
  new AIMessage({
    content: "",
    tool_calls: [{ name: "calc", args: { q: "17*23" }, id, type: "tool_call" }],
    response_metadata: { irtRouter: { chosen: by } },
  });
const toolResult = (status: "error" | "success", id = "c1") =>
  new ToolMessage({ content: status === "error" ? "Error: bad input" : "391", tool_call_id: id, status });

/** Three models (ToyScorer: gpt-4 strongest and dearest, mistral weakest and cheapest); cost-aware picks mistral. */
function router(escalation?: IrtRouter["lc_kwargs"]["escalation"], models = ["gpt-4", "mixtral", "mistral"]) {
  return new IrtRouter({
    models: Object.fromEntries(models.map((id) => [id, fakeModel().respond(new AIMessage(`from ${id}`))])),
    scorer: new ToyScorer(),
    policy: { kind: "cost-aware", lambda: 20000 },
    logger: quietLogger(),
    ...(escalation !== undefined ? { escalation } : {}),
  });
}

const p = (d: RouteDecision, id: string) => d.candidates.find((c) => c.id === id)?.p;

describe("escalation after a visible failure", () => {
  it("without it, the cheapest model is chosen again after its tool call failed", async () => {
    const d = await router().decide([new HumanMessage(Q), toolCall("mistral"), toolResult("error")]);
    expect(d.chosen).toBe("mistral");
    expect(d.escalated).toBeUndefined();
  });

  it("after a tool error, passes the failed model over and ranks only stronger models by the policy", async () => {
    const messages = [new HumanMessage(Q), toolCall("mistral"), toolResult("error")];
    const plain = await router().decide(messages);
    const d = await router(true).decide(messages);
    expect(d.escalated).toEqual({
      from: "mistral",
      reason: "tool-error",
      passedOver: ["mistral"],
      pAbove: p(plain, "mistral"),
    });
    expect(d.candidates.map((c) => c.id)).not.toContain("mistral");
    expect(d.excluded).toContainEqual({
      id: "mistral",
      reason: "failed this step (its tool call failed): passed over by escalation",
    });
    expect(d.chosen).toBe("mixtral"); // stronger than mistral, and the cheaper of the stronger ones
    expect(d.candidates.every((c) => c.p > d.escalated!.pAbove!)).toBe(true);
  });

  it("with bar 'best', takes the highest p of the models that have not failed", async () => {
    const d = await router({ bar: "best" }).decide([new HumanMessage(Q), toolCall("mistral"), toolResult("error")]);
    expect(d.chosen).toBe("gpt-4");
    expect(d.escalated?.reason).toBe("tool-error");
  });

  it("passes over every model that failed this step; the bar is the strongest of them", async () => {
    const messages = [
      new HumanMessage(Q),
      toolCall("mistral", "c1"),
      toolResult("error", "c1"),
      toolCall("mixtral", "c2"),
      toolResult("error", "c2"),
    ];
    const d = await router(true).decide(messages);
    expect(d.escalated).toMatchObject({ from: "mixtral", passedOver: ["mixtral", "mistral"] });
    expect(d.chosen).toBe("gpt-4");
  });

  it("does not escalate when the tool call succeeded, or when the failure was in an earlier step", async () => {
    const ok = await router(true).decide([new HumanMessage(Q), toolCall("mistral"), toolResult("success")]);
    expect(ok.escalated).toBeUndefined();
    const earlier = [
      new HumanMessage(Q),
      toolCall("mistral"),
      toolResult("error"),
      new AIMessage({ content: "391", response_metadata: { irtRouter: { chosen: "mixtral" } } }),
      new HumanMessage("Now 391 * 2?"),
    ];
    const next = await router(true).decide(earlier);
    expect(next.escalated).toBeUndefined();
    expect(next.chosen).toBe("mistral");
  });

  it("escalates when the agent sends the same step again (a retry)", async () => {
    const answer = new AIMessage({ content: "397", response_metadata: { irtRouter: { chosen: "mistral" } } });
    const d = await router(true).decide([new HumanMessage(Q), answer, new HumanMessage(Q)]);
    expect(d.escalated).toMatchObject({ from: "mistral", reason: "retry", passedOver: ["mistral"] });
    expect(d.chosen).toBe("mixtral");
  });

  it("escalates when the run's last answered call is sent again unchanged", async () => {
    const r = router(true);
    const messages: BaseMessage[] = [new HumanMessage(Q)];
    const first = await r.invoke(messages, { metadata: { irtRouterRunId: "run-1" } });
    expect((first.response_metadata.irtRouter as RouteDecision).chosen).toBe("mistral");
    const again = await r.invoke(messages, { metadata: { irtRouterRunId: "run-1" } });
    const d = again.response_metadata.irtRouter as RouteDecision;
    expect(d.escalated).toMatchObject({ from: "mistral", reason: "retry" });
    expect(d.chosen).toBe("mixtral");
    // another run is not a retry
    const other = await r.decide(messages, { runId: "run-2" });
    expect(other.escalated).toBeUndefined();
  });

  it("keeps the failed model when no other can serve the step", async () => {
    const d = await router(true, ["mistral"]).decide([new HumanMessage(Q), toolCall("mistral"), toolResult("error")]);
    expect(d.chosen).toBe("mistral");
    expect(d.escalated).toEqual({ from: "mistral", reason: "tool-error", passedOver: [] });
  });

  it("rejects a bad option naming the field", () => {
    expect(() => router({ bar: "strongest" } as never)).toThrow(/options\.escalation/);
  });
});

describe("escalation in a createAgent run", () => {
  it("the step after a failed tool call goes to a stronger model", async () => {
    const broken = tool(
      async () => {
        throw new Error("bad input");
      },
      { name: "calc", description: "Calculator", schema: z.object({ q: z.string() }) },
    );
    const mistral = fakeModel().respondWithTools([{ name: "calc", args: { q: "17*23" }, id: "c1" }]);
    const mixtral = fakeModel().respond(new AIMessage("It is 391."));
    const r = new IrtRouter({
      models: { "gpt-4": fakeModel(), mixtral, mistral },
      scorer: new ToyScorer(),
      policy: { kind: "cost-aware", lambda: 20000 },
      escalation: true,
      logger: quietLogger(),
    });
    const agent = createAgent({ model: r, tools: [broken] });
    const result = await agent.invoke({ messages: [{ role: "user", content: Q }] });
    const decisions = result.messages
      .filter((m) => AIMessage.isInstance(m))
      .map((m) => m.response_metadata.irtRouter as RouteDecision);
    expect(decisions.map((d) => d.chosen)).toEqual(["mistral", "mixtral"]);
    expect(decisions[1]!.escalated).toMatchObject({ from: "mistral", reason: "tool-error" });
  });
});
