/**
 * The C allocator's settings of a trainer worker's process, added to its environment before any
 * caller's `env`.
 *
 * glibc's malloc serves a request of at least its mmap threshold with a mapping of its own, returned
 * to the system when freed, and smaller ones from its heap, which keeps freed blocks for reuse. By
 * default the threshold is dynamic: freeing a mapped block raises it to that block's size (up to
 * 32 MiB on 64-bit), so which tensors land in the heap depends on the order of earlier frees, and a
 * fragmented heap held a round's resident peak at about twice its live tensors, varying by up to
 * 12-23% between identical rounds of a 10M-parameter model. Fixing the threshold (which turns the
 * dynamic adjustment off) at glibc's own starting value, 128 KiB, makes every tensor of note its own
 * mapping: a round's peak is then its live tensors, about half the heap's at 10M parameters and the
 * same to within 1% between runs, which the trainer's memory model (resources/trainers/runtime/spade_memory.py,
 * `MMAP_THRESHOLD`) predicts. The price is a page fault per page of each new tensor (measured in the
 * README's training bench row). Other C libraries ignore the variable.
 */
export const trainerAllocatorEnv: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: String(128 * 1024),
};
