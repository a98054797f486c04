// `hf:` downloads honour HF_ENDPOINT / MODEL_ENDPOINT (mirrors) in the reachability probe, as
// node-llama-cpp's downloader does: the probe checks the mirror, not huggingface.co.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { downloadHost, huggingFaceEndpoint, resolveModelSource } from "../../main/llm/llama/resolveModelSource.js";

const dir = mkdtempSync(join(tmpdir(), "spade-endpoint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

function withEnv<T>(env: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  set(env);
  return body().finally(() => set(saved));
}

describe("model download endpoint", () => {
  it("reads MODEL_ENDPOINT before HF_ENDPOINT, and falls back to Hugging Face", () => {
    expect(huggingFaceEndpoint({})).toBe("https://huggingface.co/");
    expect(huggingFaceEndpoint({ HF_ENDPOINT: "https://hf-mirror.example.org" })).toBe("https://hf-mirror.example.org/");
    expect(huggingFaceEndpoint({ HF_ENDPOINT: "https://hf-mirror.example.org", MODEL_ENDPOINT: "http://10.0.0.5:8080/" })).toBe("http://10.0.0.5:8080/");
    expect(huggingFaceEndpoint({ HF_ENDPOINT: "not a url" })).toBe("https://huggingface.co/");
    expect(downloadHost("hf:owner/repo/model.gguf", { HF_ENDPOINT: "http://mirror.local:9000" })).toEqual({ host: "mirror.local", port: 9000 });
    expect(downloadHost("hf:owner/repo/model.gguf", {})).toEqual({ host: "huggingface.co", port: 443 });
    expect(downloadHost("https://example.org/m.gguf", { HF_ENDPOINT: "http://mirror.local:9000" })).toEqual({ host: "example.org", port: 443 });
  });

  it("probes the mirror HF_ENDPOINT names, and says that host cannot be reached", async () => {
    const port = await freePort();
    const error = await withEnv({ HF_ENDPOINT: `http://127.0.0.1:${port}`, MODEL_ENDPOINT: undefined }, () =>
      resolveModelSource("hf:someone/some-repo/model.Q4_K_M.gguf", { modelsDir: dir, connectTimeoutMs: 2000 }).then(
        () => null,
        (e: unknown) => e as Error,
      ),
    );
    expect(error?.message).toContain(`127.0.0.1:${port} cannot be reached`);
    expect(error?.message).not.toContain("huggingface.co");
  }, 30_000);
});
