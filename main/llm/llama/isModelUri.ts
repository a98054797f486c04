/** True for a model URI (`hf:owner/repo/file.gguf`, `https://...`) rather than a local path. */
export function isModelUri(model: string): boolean {
  return /^(hf:|https?:\/\/)/i.test(model);
}
