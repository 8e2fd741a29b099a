/**
 * A child's reply that carries no output and ends with the finish reason "error": the provider failed without throwing
 * (the AI SDK's providers map such stops to "error", e.g. a malformed tool call). The router treats it as a fault and
 * falls back to the next model, as for a thrown error, or, with none left, returns that reply as it is, the failure
 * recorded; a reply with any output keeps it, whatever its finish reason.
 */
import { ModelFaultError } from "../errors.js";

/**
 * The fault of an output-less reply of `modelId` that finished with `finishReason` (a `LanguageModelV3FinishReason`,
 * `{ unified, raw }`, or a bare reason), or undefined when it did not finish with "error".
 */
export function errorFinishFault(modelId: string, finishReason: unknown): ModelFaultError | undefined {
  const reason = finishReason as { unified?: unknown; raw?: unknown } | string | undefined;
  const unified = typeof reason === "string" ? reason : reason?.unified;
  if (unified !== "error") return undefined;
  const raw =
    typeof reason === "object" && typeof reason.raw === "string" ? ` (the provider's reason: ${reason.raw})` : "";
  return new ModelFaultError(
    modelId,
    "reply",
    `model "${modelId}" replied with no output and finish reason "error"${raw}.`,
  );
}
