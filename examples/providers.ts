/**
 * Real providers: IrtRouter over OpenAI and/or Anthropic chat models, with the pretrained scorer.
 *
 *   npm install @langchain/openai @langchain/anthropic   # not dependencies of irt-router
 *   OPENAI_API_KEY=... ANTHROPIC_API_KEY=... npx tsx examples/providers.ts
 *
 * Each key is optional; models whose key is missing are left out. With no key at all, this prints
 * what it needs and exits 0. Keys of `models` are scorer catalog ids (so the router knows each
 * model's ability); the provider model names can be changed with the env vars below.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { IrtRouter, type RouteDecision } from "../langchain.js"; // irt-router/langchain

interface Provider {
  key: string;
  pkg: string;
  className: string;
  models: { catalogId: string; env: string; fallback: string; price: { inputPer1M: number; outputPer1M: number } }[];
}

const providers: Provider[] = [
  {
    key: "OPENAI_API_KEY",
    pkg: "@langchain/openai",
    className: "ChatOpenAI",
    models: [
      {
        catalogId: "gpt-4-1106-preview",
        env: "IRT_OPENAI_STRONG",
        fallback: "gpt-4-1106-preview",
        price: { inputPer1M: 10, outputPer1M: 30 },
      },
      {
        catalogId: "gpt-3.5-turbo-1106",
        env: "IRT_OPENAI_CHEAP",
        fallback: "gpt-3.5-turbo-1106",
        price: { inputPer1M: 1, outputPer1M: 2 },
      },
    ],
  },
  {
    key: "ANTHROPIC_API_KEY",
    pkg: "@langchain/anthropic",
    className: "ChatAnthropic",
    models: [
      {
        catalogId: "claude-v2",
        env: "IRT_ANTHROPIC_STRONG",
        fallback: "claude-2.1",
        price: { inputPer1M: 8, outputPer1M: 24 },
      },
      {
        catalogId: "claude-instant-v1",
        env: "IRT_ANTHROPIC_CHEAP",
        fallback: "claude-instant-1.2",
        price: { inputPer1M: 0.8, outputPer1M: 2.4 },
      },
    ],
  },
];

const models: Record<string, { model: BaseChatModel; price: { inputPer1M: number; outputPer1M: number } }> = {};
const missing: string[] = [];
for (const p of providers) {
  if (!process.env[p.key]) {
    missing.push(`${p.key} (for ${p.models.map((m) => m.catalogId).join(", ")})`);
    continue;
  }
  let mod: Record<string, new (fields: Record<string, unknown>) => BaseChatModel>;
  try {
    mod = await import(/* @vite-ignore */ p.pkg);
  } catch {
    console.log(`${p.key} is set but ${p.pkg} is not installed. Install it with: npm install ${p.pkg}`);
    continue;
  }
  for (const m of p.models) {
    models[m.catalogId] = { model: new mod[p.className]!({ model: process.env[m.env] ?? m.fallback }), price: m.price };
  }
}

if (Object.keys(models).length === 0) {
  console.log("providers example: no provider is configured, so nothing was called.");
  console.log(
    `Set ${missing.join(" and/or ")} and install the matching package(s) (npm install @langchain/openai @langchain/anthropic).`,
  );
  process.exit(0);
}

// Default scorer: the pretrained one with the offline encoder (loaded on the first call).
const router = new IrtRouter({ models, policy: { kind: "cost-aware", lambda: 20 } });
for (const prompt of ["What is the capital of Australia?", "Prove that the square root of 2 is irrational."]) {
  const reply = await router.invoke(prompt);
  const d = reply.response_metadata.irtRouter as RouteDecision;
  const p = d.candidates.find((c) => c.id === d.chosen)!.p;
  console.log(
    `\n> ${prompt}\n[${d.chosen}, p=${p.toFixed(3)}, attempts ${d.attempts.length}] ${String(reply.content).slice(0, 300)}`,
  );
}
