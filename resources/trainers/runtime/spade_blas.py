"""OpenBLAS under the trainer's PyTorch: its kernels chosen before torch loads it, its threads set after.

Debian's torch (python3-torch) does its matrix products through the system BLAS, ``libblas.so.3``:
OpenBLAS where libopenblas0 is installed. Two of OpenBLAS's choices are made where PyTorch does not
see them:

- **Kernels.** OpenBLAS picks its kernels from the CPU's family and model number. A CPU newer than
  the library gets the oldest x86-64 kernels: OpenBLAS 0.3.21 (Debian 12) runs an Emerald Rapids
  Xeon (family 6, model 207, with AVX-512) on Prescott's SSE3 kernels. Where the library reports
  such a core on a CPU that has AVX2 and FMA, ``prepare`` names the kernels the CPU runs
  (``OPENBLAS_CORETYPE``: SkylakeX with AVX-512 F, CD, BW, DQ and VL; Haswell with AVX2 and FMA)
  before torch loads the library. A core OpenBLAS knows is left as it is, and so is an
  ``OPENBLAS_CORETYPE`` already set (the user's choice).
- **Threads.** OpenBLAS has its own thread pool, a thread per core, which ``torch.set_num_threads``
  does not reach in Debian's build (``BLAS_INFO=generic``); its idle threads spin in sched_yield.
  ``use_threads`` gives OpenBLAS the trainer's thread count.

Other BLAS libraries (MKL in PyTorch's wheels, cuBLAS) are not touched. Only the standard library
is imported here.
"""
import ctypes
import os
import subprocess
import sys

#: The cores OpenBLAS falls back to on a CPU it does not know (lower case): kernels without AVX.
FALLBACK_CORES = frozenset({"prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "katmai", "coppermine", "northwood", "banias"})
#: CPU flags (as /proc/cpuinfo names them) each kernel set needs, best first.
KERNELS = (
    ("SkylakeX", frozenset({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx2", "fma"})),
    ("Haswell", frozenset({"avx2", "fma"})),
)
#: The names under which a system BLAS may be OpenBLAS (Debian: libblas.so.3 through alternatives).
LIBRARIES = ("libblas.so.3", "libopenblas.so.0")

#: What `prepare` set in this process (None: nothing).
_prepared = None

# Run with `python -S -c`: which OpenBLAS core the system BLAS picks when nothing is set.
_PROBE = """
import ctypes, sys
for name in sys.argv[1:]:
    try:
        lib = ctypes.CDLL(name)
        corename = lib.openblas_get_corename
    except (OSError, AttributeError):
        continue
    corename.restype = ctypes.c_char_p
    print(name + "\\t" + corename().decode())
    break
"""


def cpu_flags(path="/proc/cpuinfo"):
    """The CPU's feature flags (empty where there is no /proc/cpuinfo, or on a CPU that lists none)."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for row in f:
                if row.startswith("flags"):
                    return frozenset(row.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def kernels_for(detected, flags):
    """The OPENBLAS_CORETYPE to set where OpenBLAS fell back to `detected` on a CPU with `flags`; None where it is right already."""
    if not detected or detected.lower() not in FALLBACK_CORES:
        return None
    return next((name for name, needs in KERNELS if needs <= flags), None)


def probe(python=None, libraries=LIBRARIES):
    """(library, core) of the system's OpenBLAS as it starts with nothing set, from a fresh interpreter; None without one."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    try:
        out = subprocess.run([python or sys.executable, "-S", "-c", _PROBE, *libraries], capture_output=True, text=True, timeout=30, env=env).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    parts = out.strip().split("\t")
    return (parts[0], parts[1]) if len(parts) == 2 else None


def prepare(environ=None):
    """Before torch is imported: sets OPENBLAS_CORETYPE where OpenBLAS would fall back on this CPU. Returns what it did, or None."""
    environ = os.environ if environ is None else environ
    if "OPENBLAS_CORETYPE" in environ:
        return None
    flags = cpu_flags()
    if not any(needs <= flags for _, needs in KERNELS):
        return None  # nothing better than a fallback to ask for (or not x86-64 Linux)
    found = probe()
    if found is None:
        return None
    library, detected = found
    kernels = kernels_for(detected, flags)
    if kernels is None:
        return None
    environ["OPENBLAS_CORETYPE"] = kernels
    global _prepared
    _prepared = {"library": library, "detected": detected, "coretype": kernels}
    return _prepared


def _torch_first(path):
    """Which loaded BLAS is torch's: one in torch's own folders (a wheel's bundle), then the system's; another wheel's
    bundle (NumPy's) last."""
    if "/torch" in path:
        return 0
    return 2 if "-packages/" in path else 1


def loaded():
    """The OpenBLAS this process's torch uses (torch imported first), as a ctypes library; None where there is none."""
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as f:
            paths = {row.split()[-1] for row in f if "blas" in row.rsplit("/", 1)[-1].lower() and "/" in row}
    except OSError:
        return None
    for path in sorted(paths, key=lambda path: (_torch_first(path), path)):
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return lib
        except (OSError, AttributeError):
            continue
    return None


def report():
    """What the loaded OpenBLAS runs: core, threads, build; None where torch's BLAS is not OpenBLAS."""
    lib = loaded()
    if lib is None:
        return None
    lib.openblas_get_config.restype = ctypes.c_char_p
    return {
        "core": lib.openblas_get_corename().decode(),
        "threads": int(lib.openblas_get_num_threads()),
        "config": lib.openblas_get_config().decode(),
        "coretype": os.environ.get("OPENBLAS_CORETYPE"),
        # the core OpenBLAS picked alone, where prepare replaced it
        "fallback": _prepared["detected"] if _prepared else None,
    }


def describe(blas):
    """`report()` in words, for the trainer's log."""
    if blas is None:
        return "BLAS: not OpenBLAS (PyTorch's own or MKL)"
    chosen = f" (OpenBLAS alone picks {blas['fallback']} on this CPU: OPENBLAS_CORETYPE={blas['coretype']} set)" if blas["fallback"] else ""
    return f"BLAS: OpenBLAS, {blas['core']} kernels{chosen}, {blas['threads']} thread{'s' if blas['threads'] != 1 else ''}"


def use_threads(torch, n):
    """`n` CPU threads for PyTorch and for the OpenBLAS under it, where there is one (n <= 0: both keep their defaults)."""
    if n <= 0:
        return
    torch.set_num_threads(n)
    lib = loaded()
    if lib is not None:
        lib.openblas_set_num_threads(int(n))
