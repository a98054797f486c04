import { describe, expect, it } from "vitest";
import type { GgufInfo, GgufTensorInfo } from "../../main/llm/gguf/GgufInfo.js";
import { checkGgufTrainerTypes } from "../../main/training/checkGgufTrainerTypes.js";
import { UntrainableTensorTypeError } from "../../main/training/UntrainableTensorTypeError.js";

const tensor = (name: string, typeName: string): GgufTensorInfo => ({ name, dims: [256, 256], type: 0, typeName, offset: 0, byteSize: 0 });
const info = (tensors: GgufTensorInfo[]): GgufInfo => ({
  path: "/models/m.gguf", fileSize: 0, parts: 1, version: 3, tensorCount: tensors.length, metadata: {}, tensors, dataOffset: 0, alignment: 32, architecture: "qwen2", fileType: "model",
});

describe("checkGgufTrainerTypes", () => {
  it("accepts a Q4_K_M mix (Q4_K, Q6_K, F32 norms)", () => {
    expect(() => checkGgufTrainerTypes(info([tensor("token_embd.weight", "Q4_K"), tensor("output.weight", "Q6_K"), tensor("blk.0.attn_norm.weight", "F32")]))).not.toThrow();
  });

  it("refuses the first tensor of another type, naming the file, the tensor and the type", () => {
    const check = () => checkGgufTrainerTypes(info([tensor("token_embd.weight", "Q4_K"), tensor("blk.0.ffn_down.weight", "IQ4_XS"), tensor("blk.1.ffn_down.weight", "IQ2_S")]));
    expect(check).toThrow(UntrainableTensorTypeError);
    expect(check).toThrow(/^\/models\/m\.gguf: tensor "blk\.0\.ffn_down\.weight" is IQ4_XS, which the gguf trainer cannot dequantise \(it reads F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K\)/);
  });
});
