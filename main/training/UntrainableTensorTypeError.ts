/** A base model with a tensor whose storage type the built-in "gguf" trainer cannot dequantise. */
export class UntrainableTensorTypeError extends Error {
  override readonly name = "UntrainableTensorTypeError";
  constructor(
    /** The model file. */
    readonly path: string,
    /** The first tensor of an unsupported type. */
    readonly tensor: string,
    /** Its ggml type, such as "IQ4_NL". */
    readonly typeName: string,
    /** The types the trainer reads. */
    readonly supported: readonly string[],
  ) {
    super(`${path}: tensor "${tensor}" is ${typeName}, which the gguf trainer cannot dequantise (it reads ${supported.join(", ")}); train a copy of the model in one of those types, or use the hf trainer`);
  }
}
