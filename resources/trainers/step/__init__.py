"""The step: the batch format, the GRPO/TIS loss and its aggregation, the hyperparameters, the
log-prob definitions, one round's update (shared by the gguf, hf and multi-rank paths) and
data-parallel ranks."""
