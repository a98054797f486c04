"""Model reading and quantisation: the GGUF file format, the quantisation types, weights held as their GGUF
bytes, llama.cpp's CPU rounding, the gguf trainer's forward pass and policy, its prompt sharing, LoRA
and random-weight models."""
