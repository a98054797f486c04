// Models that write Python well enough for SPADE's designer, by the memory they need. The URIs
// are node-llama-cpp's `hf:<user>/<repo>:<quantisation>` form, which the Models page's download
// box and a run config's backend.modelPath both accept. Sizes are the Q4_K_M files.

export interface RecommendedModel {
  /** What to call it. */
  label: string;
  uri: string;
  /** The download's size in GB (about). */
  fileGb: number;
  /** GPU memory (or, CPU only, RAM) it is picked for, in GB. */
  memoryGb: 4 | 8 | 16 | 24;
  /** Why this one. */
  note: string;
}

export const recommendedModels: readonly RecommendedModel[] = [
  { label: "Qwen2.5-Coder 1.5B Instruct (Q4_K_M)", uri: "hf:bartowski/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M", fileGb: 1.0, memoryGb: 4, note: "small and quick, on a laptop CPU too; many of its environments will be invalid" },
  { label: "Qwen2.5-Coder 7B Instruct (Q4_K_M)", uri: "hf:bartowski/Qwen2.5-Coder-7B-Instruct-GGUF:Q4_K_M", fileGb: 4.7, memoryGb: 8, note: "the first model to try on an 8 GB GPU: writes valid environments most of the time" },
  { label: "Llama 3.1 8B Instruct (Q4_K_M)", uri: "hf:bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M", fileGb: 4.9, memoryGb: 8, note: "a general model of the same size, for comparison" },
  { label: "Qwen2.5-Coder 14B Instruct (Q4_K_M)", uri: "hf:bartowski/Qwen2.5-Coder-14B-Instruct-GGUF:Q4_K_M", fileGb: 9.0, memoryGb: 16, note: "for 16 GB: better designs, about half the speed of 7B" },
  { label: "Qwen2.5-Coder 32B Instruct (Q4_K_M)", uri: "hf:bartowski/Qwen2.5-Coder-32B-Instruct-GGUF:Q4_K_M", fileGb: 19.9, memoryGb: 24, note: "for 24 GB: the strongest designer of the list" },
];
