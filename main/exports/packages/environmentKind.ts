/** "tool" when the code's game class subclasses `ToolUseBaseEnv`, else "text" (as the sandbox decides it). */
export function environmentKind(code: string): "text" | "tool" {
  return /^class\s+\w+\s*\([^)]*\bToolUseBaseEnv\b/m.test(code) ? "tool" : "text";
}

/** How the agent's reply becomes the action, in words, for READMEs and docstrings. */
export function actionRuleText(kind: "text" | "tool"): string {
  return kind === "text"
    ? "the first \\\\boxed{...} of the reply without braces inside, sent to step() as \\\\boxed{<content>}"
    : "native tool calls, or <tool_call>{json}</tool_call> / <answer>...</answer> written in the reply";
}
