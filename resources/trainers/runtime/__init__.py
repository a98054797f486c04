"""The machine a trainer runs on: OpenBLAS's kernels and threads, the device and giving the GPU back,
and the memory model that predicts a round's peak."""
