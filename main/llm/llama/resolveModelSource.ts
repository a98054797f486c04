import { connect } from "node:net";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { resolveModelFile } from "node-llama-cpp";
import { isModelUri } from "./isModelUri.js";
import { ModelDownloadError } from "./ModelDownloadError.js";

export interface DownloadProgress {
  downloadedBytes: number;
  totalBytes: number;
}

export interface ResolveModelSourceOptions {
  /** Where URIs are downloaded. Defaults to ~/.spade/models. */
  modelsDir?: string;
  /** Called as a download proceeds. Defaults to none. */
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** How long to wait for the download host to accept a connection. Defaults to 5000 ms. */
  connectTimeoutMs?: number;
  signal?: AbortSignal;
}

export function defaultModelsDir(): string {
  return join(homedir(), ".spade", "models");
}

/**
 * A local GGUF path for `model`: a path is resolved against the working directory; a URI
 * (`hf:owner/repo/file.gguf`, `https://...`) is downloaded into `modelsDir` once and reused. The
 * download host is probed first, because node-llama-cpp's downloader keeps retrying offline:
 * without a network this fails within the connect time-out with ModelDownloadError.
 */
export async function resolveModelSource(model: string, options: ResolveModelSourceOptions = {}): Promise<string> {
  if (!isModelUri(model)) return resolve(model);
  const directory = options.modelsDir ?? defaultModelsDir();
  try {
    return await resolveModelFile(model, { directory, download: false, cli: false });
  } catch {
    // Not downloaded yet.
  }
  const { host, port } = downloadHost(model);
  await probe(model, host, port, options.connectTimeoutMs ?? 5000);
  try {
    return await resolveModelFile(model, {
      directory,
      cli: false,
      signal: options.signal,
      onProgress: options.onDownloadProgress
        ? ({ downloadedSize, totalSize }) => options.onDownloadProgress!({ downloadedBytes: downloadedSize, totalBytes: totalSize })
        : undefined,
    });
  } catch (error) {
    throw new ModelDownloadError(model, (error as Error).message);
  }
}

/**
 * Refuses a model URI that cannot be had: not downloaded into `modelsDir` yet and its download
 * host unreachable (ModelDownloadError, within the connect time-out). A path, or a URI already
 * downloaded or reachable, passes; the download itself is left to `resolveModelSource`.
 */
export async function checkModelSource(model: string, options: Pick<ResolveModelSourceOptions, "modelsDir" | "connectTimeoutMs"> = {}): Promise<void> {
  if (!isModelUri(model)) return;
  try {
    await resolveModelFile(model, { directory: options.modelsDir ?? defaultModelsDir(), download: false, cli: false });
    return;
  } catch {
    // Not downloaded yet.
  }
  const { host, port } = downloadHost(model);
  await probe(model, host, port, options.connectTimeoutMs ?? 5000);
}

/**
 * Where `hf:` URIs download from: MODEL_ENDPOINT, else HF_ENDPOINT (a mirror), else Hugging Face,
 * in the order node-llama-cpp's downloader reads them, so the probe checks the host it will use.
 */
export function huggingFaceEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  for (const value of [env.MODEL_ENDPOINT, env.HF_ENDPOINT]) {
    if (!value) continue;
    try {
      const url = new URL(value);
      if (url.protocol === "http:" || url.protocol === "https:") return url.href;
    } catch {
      // not a URL: node-llama-cpp ignores it too
    }
  }
  return "https://huggingface.co/";
}

/** The host and port a model URI downloads from. */
export function downloadHost(model: string, env: NodeJS.ProcessEnv = process.env): { host: string; port: number } {
  let url: URL;
  try {
    url = new URL(model.toLowerCase().startsWith("hf:") ? huggingFaceEndpoint(env) : model);
  } catch {
    throw new ModelDownloadError(model, "not a valid URL");
  }
  return { host: url.hostname, port: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80 };
}

function probe(model: string, host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect({ host, port });
    const fail = (reason: string) => {
      socket.destroy();
      reject(new ModelDownloadError(model, `${host}:${port} cannot be reached (${reason}); check the network connection, or give a local GGUF path`));
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs} ms`));
    socket.once("error", (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    socket.once("connect", () => {
      socket.destroy();
      resolvePromise();
    });
  });
}
