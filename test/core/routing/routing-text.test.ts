import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { messageText, routingText } from "../../../src/langchain/index.js";

describe("routingText", () => {
  it("is the latest human message when there is no other turn; system prompts never count", () => {
    expect(routingText([new SystemMessage("You are terse."), new HumanMessage("What is 2+2?")])).toBe("What is 2+2?");
  });

  it("adds the nearest other turns, newest first, printed in order, within contextChars", () => {
    const messages = [
      new HumanMessage("old question"),
      new AIMessage("old answer"),
      new HumanMessage("Weather in Paris?"),
      new AIMessage({ content: "", tool_calls: [{ name: "get_weather", args: { city: "Paris" }, id: "1" }] }),
      new ToolMessage({ content: "Sunny, 21C", tool_call_id: "1" }),
    ];
    expect(routingText(messages, { contextChars: 1000 })).toBe(
      "Weather in Paris?\n\nold question\nold answer\nSunny, 21C",
    );
    // Only 12 characters of context: the tool result (10) whole, then the end of the previous turn.
    expect(routingText(messages, { contextChars: 12 })).toBe("Weather in Paris?\n\ner\nSunny, 21C");
    expect(routingText(messages, { contextChars: 0 })).toBe("Weather in Paris?");
  });

  it("cuts the query to maxQueryChars keeping its start", () => {
    expect(routingText([new HumanMessage("abcdefghij")], { maxQueryChars: 4 })).toBe("abcd");
  });

  it("scores text parts only and falls back to the latest text when there is no human turn", () => {
    const multimodal = new HumanMessage({
      content: [
        { type: "text", text: "What is in" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        { type: "text", text: "this picture?" },
      ],
    });
    expect(messageText(multimodal)).toBe("What is in\nthis picture?");
    expect(routingText([multimodal])).toBe("What is in\nthis picture?");
    expect(routingText([new SystemMessage("sys"), new AIMessage("hello")], { contextChars: 0 })).toBe("hello");
    expect(routingText([new SystemMessage("sys only")])).toBe("");
  });
});
