import { vi } from "vitest";

/** Runs a CLI command in this process with its output captured: its exit code and what it wrote to stdout and stderr. */
export async function runCommand(command: { run(argv: string[]): Promise<number> }, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    const code = await command.run(argv);
    return { code, stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}
