/**
 * Child of `npm run bench -- soak` (`node --expose-gc --import tsx bench/perf/soak-child.ts <dir> <events> <every>`):
 * a router wired to a FileStore in `dir` routes a call and takes its outcome, `events` times; after every `every`
 * events it prints one JSON line: the heap after a full GC, and the bytes this process wrote (`wchar` of
 * /proc/self/io: every write() call, journal appends, snapshots and compactions alike) and the store's files' sizes.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { FileStore } from "../../adapters/stores/file.js";
import { IrtRouter } from "../../src/langchain/index.js";
import { ToyScorer, quietLogger } from "../../test/langchain/helpers.js";

const [dir, eventsArg, everyArg] = process.argv.slice(2);
const events = Number(eventsArg);
const every = Number(everyArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

const written = (): number => {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
};
const onDisk = () => readdirSync(dir!).reduce((n, f) => n + statSync(join(dir!, f)).size, 0);

const store = await FileStore.open(dir!);
const fake = () => new FakeListChatModel({ responses: ["ok"] });
const router = new IrtRouter({
  models: {
    "gpt-4": { model: fake(), price: { inputPer1M: 10, outputPer1M: 30 } },
    mixtral: { model: fake(), price: { inputPer1M: 0.6, outputPer1M: 0.6 } },
    mistral: { model: fake(), price: { inputPer1M: 0.2, outputPer1M: 0.2 } },
  },
  scorer: new ToyScorer(),
  store,
  feedbackLimits: { sourceBudget: false },
  logger: quietLogger(),
});
const report = (done: number) => {
  gc();
  const line = { events: done, heapUsed: process.memoryUsage().heapUsed, written: written(), onDisk: onDisk() };
  process.stdout.write(`${JSON.stringify(line)}\n`);
};
report(0);
for (let i = 1; i <= events; i++) {
  const reply = await router.invoke(`question ${i % 500}: what is ${i} + ${i}?`);
  const decisionId = (reply.response_metadata as { irtRouter: { decisionId: string } }).irtRouter.decisionId;
  await router.feedback(decisionId, i % 3 !== 0, { source: "grader" });
  if (i % every === 0) report(i);
}
await store.close();
