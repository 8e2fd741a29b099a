import { BaseCallbackHandler } from "@langchain/core/callbacks/base";

/**
 * Tracks the open runs directly under one parent run (the router's own run: its attempts), so the parent can
 * end after them. A stream aborted mid-way rejects at once, but the child reports its error a moment later;
 * ending the parent first would leave the child outside the trace tree (a second root in a run collector).
 */
export class ChildRuns extends BaseCallbackHandler {
  name = "irt-router-child-runs";
  override awaitHandlers = true;
  private readonly open = new Set<string>();
  private waiters: (() => void)[] = [];

  constructor(private readonly parentRunId: string) {
    super();
  }

  override handleChatModelStart(_llm: unknown, _messages: unknown, runId: string, parentRunId?: string): void {
    this.started(runId, parentRunId);
  }
  override handleLLMStart(_llm: unknown, _prompts: unknown, runId: string, parentRunId?: string): void {
    this.started(runId, parentRunId);
  }
  override handleChainStart(_chain: unknown, _inputs: unknown, runId: string, parentRunId?: string): void {
    this.started(runId, parentRunId);
  }
  override handleLLMEnd(_output: unknown, runId: string): void {
    this.ended(runId);
  }
  override handleLLMError(_error: unknown, runId: string): void {
    this.ended(runId);
  }
  override handleChainEnd(_output: unknown, runId: string): void {
    this.ended(runId);
  }
  override handleChainError(_error: unknown, runId: string): void {
    this.ended(runId);
  }

  /** Resolves once no direct child run is open, or after `ms` (a child that never reports an end). */
  settled(ms: number): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private started(runId: string, parentRunId?: string): void {
    if (parentRunId === this.parentRunId) this.open.add(runId);
  }

  private ended(runId: string): void {
    if (this.open.delete(runId) && this.open.size === 0) for (const wake of this.waiters.splice(0)) wake();
  }
}
