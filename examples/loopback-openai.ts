/**
 * A loopback OpenAI-compatible server for the framework examples: `POST /v1/chat/completions` on 127.0.0.1, so the
 * examples run offline with the real provider packages (`@ai-sdk/openai`) talking real HTTP.
 *
 * Every model id behaves as the same scripted agent: when tools are offered and the conversation has no tool result
 * after its last user message, it calls the first tool (string arguments filled with the last capitalised word of the
 * user's message); otherwise it answers `[<model>] <last tool result or user text>`. Usage is reported as OpenAI
 * does, with `prompt_tokens_details.cached_tokens` set to the prompt prefix (whole messages, about 4 characters a
 * token) the same model saw in an earlier request: the next step of a run reads its history from the cache. Both
 * plain and streamed (`stream: true`, server-sent events, usage in the last chunk) responses.
 *
 * `failing` model ids answer HTTP 500 (or the status given), to show fallbacks. `requests` lists what was served.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the server answered. */
export interface LoopbackRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly status: number;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly toolCall?: string;
}

/** Options of {@link startLoopbackOpenAI}. */
export interface LoopbackOptions {
  /** Model ids that fail, with the HTTP status they answer (500 when given as a list). */
  readonly failing?: readonly string[] | Readonly<Record<string, number>>;
}

/** A running loopback server. */
export interface LoopbackOpenAI {
  /** The base URL to give the OpenAI provider (`http://127.0.0.1:<port>/v1`). */
  readonly baseURL: string;
  /** The requests answered so far, oldest first. */
  readonly requests: readonly LoopbackRequest[];
  /** The failing model ids and their HTTP status; change it to make a model fail or recover. */
  readonly failing: Record<string, number>;
  close(): Promise<void>;
}

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
}

interface ChatTool {
  function?: { name?: string; parameters?: { properties?: Record<string, { type?: string }> } };
}

interface ChatRequest {
  model?: string;
  messages?: ChatMessage[];
  tools?: ChatTool[];
  stream?: boolean;
}

const tokensOf = (text: string): number => Math.ceil(text.length / 4);

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  }
  return "";
}

/** The scripted reply: a call of the first tool, or the answer. */
function reply(request: ChatRequest): { text?: string; toolCall?: { name: string; arguments: string } } {
  const messages = request.messages ?? [];
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const toolResult = messages.slice(lastUser + 1).findLast((m) => m.role === "tool");
  const tool = request.tools?.[0]?.function;
  if (!toolResult && tool?.name) {
    const words = textOf(messages[lastUser]?.content).match(/\b[A-Z][a-z]+\b/g) ?? [];
    const guess = words.at(-1) ?? "Paris";
    const args = Object.fromEntries(
      Object.entries(tool.parameters?.properties ?? {}).map(([key, schema]) => [
        key,
        schema.type === "number" || schema.type === "integer" ? 1 : guess,
      ]),
    );
    return { toolCall: { name: tool.name, arguments: JSON.stringify(args) } };
  }
  const source = toolResult ? textOf(toolResult.content) : textOf(messages[lastUser]?.content);
  return { text: `[${request.model}] ${source}` };
}

/** Tokens of the longest run of leading messages this model has seen before (the provider's prompt cache). */
function cachedPrefix(seen: Set<string>, messages: ChatMessage[]): number {
  let cached = 0;
  let prefix = "";
  for (const message of messages) {
    prefix += JSON.stringify(message);
    if (!seen.has(prefix)) break;
    cached = tokensOf(prefix);
  }
  prefix = "";
  for (const message of messages) {
    prefix += JSON.stringify(message);
    seen.add(prefix);
  }
  return cached;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Starts the server on a free loopback port. */
export async function startLoopbackOpenAI(options: LoopbackOptions = {}): Promise<LoopbackOpenAI> {
  const failing: Record<string, number> = Array.isArray(options.failing)
    ? Object.fromEntries(options.failing.map((id) => [id, 500]))
    : { ...(options.failing as Record<string, number> | undefined) };
  const requests: LoopbackRequest[] = [];
  const caches = new Map<string, Set<string>>();
  let counter = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request" } }));
      return;
    }
    const request = JSON.parse(await body(req)) as ChatRequest;
    const model = request.model ?? "unknown";
    const messages = request.messages ?? [];
    const promptTokens = tokensOf(JSON.stringify(messages) + JSON.stringify(request.tools ?? []));
    const status = failing[model];
    if (status !== undefined) {
      requests.push({ model, stream: request.stream === true, status, promptTokens, cachedTokens: 0 });
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `${model} is unavailable (loopback)`, type: "server_error" } }));
      return;
    }
    if (!caches.has(model)) caches.set(model, new Set());
    const cachedTokens = Math.min(cachedPrefix(caches.get(model)!, messages), promptTokens);
    const out = reply(request);
    const id = `chatcmpl-loopback-${++counter}`;
    const toolCalls = out.toolCall
      ? [{ index: 0, id: `call_${counter}`, type: "function", function: out.toolCall }]
      : undefined;
    const completionTokens = tokensOf(out.text ?? out.toolCall!.arguments);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: cachedTokens },
    };
    const finish = toolCalls ? "tool_calls" : "stop";
    requests.push({
      model,
      stream: request.stream === true,
      status: 200,
      promptTokens,
      cachedTokens,
      ...(out.toolCall ? { toolCall: out.toolCall.name } : {}),
    });
    const created = Math.floor(Date.now() / 1000);
    const message = { role: "assistant", content: out.text ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
    if (request.stream !== true) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model,
          choices: [{ index: 0, message, finish_reason: finish }],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const chunk = (delta: object, finishReason: string | null, extra: object = {}) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
    res.write(chunk({ role: "assistant", ...(toolCalls ? { tool_calls: toolCalls } : { content: out.text }) }, null));
    res.write(chunk({}, finish));
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`,
    );
    res.end("data: [DONE]\n\n");
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error), type: "invalid_request" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    failing,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
