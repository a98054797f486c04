#!/usr/bin/env python3
"""What the built-in trainers can do with this interpreter: one JSON object on stdout.

    check_env.py [--trainer gguf|hf] [--model M.gguf] [--device auto|cpu|cuda|...]

reports the interpreter, its torch / NumPy / transformers / PEFT / gguf versions, the device the
trainer would use and its free memory, the architectures and GGUF tensor types the gguf trainer
reads, and (with --model) whether that file can be trained; `problems` lists what stops the
chosen trainer, each with its fix. Exits 0 (the report is the answer) unless the arguments are bad.
"""
import argparse
import importlib
import json
import os
import platform
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runtime import spade_blas  # noqa: E402

if __name__ == "__main__":
    spade_blas.prepare()  # OpenBLAS's kernels are chosen as torch loads it: before any module below imports torch

SETUP_HINT = "run `spade trainer setup` (or set training.python / SPADE_PYTHON to an interpreter that has it)"


def version_of(name):
    """The module's version, or None when it does not import."""
    try:
        module = importlib.import_module(name)
    except Exception:  # noqa: BLE001 - a broken install is "not usable", whatever it raises
        return None
    return str(getattr(module, "__version__", "unknown"))


def free_memory(torch, device):
    """(free, total) bytes of the device: CUDA's own numbers, else the machine's available RAM."""
    if device.startswith("cuda"):
        free, total = torch.cuda.mem_get_info(torch.device(device))
        return int(free), int(total)
    try:
        with open("/proc/meminfo") as f:
            info = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in f if line.split()}
        return info.get("MemAvailable"), info.get("MemTotal")
    except OSError:
        return None, None


def device_report(torch, requested):
    if torch is None:
        return {"name": None, "kind": None, "freeBytes": None, "totalBytes": None}
    device = requested
    if requested == "auto":
        device = "cuda" if torch.cuda.is_available() else "mps" if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available() else "cpu"
    name = "CPU"
    if device.startswith("cuda"):
        name = torch.cuda.get_device_name(torch.device(device))
    elif device == "mps":
        name = "Apple GPU (MPS)"
    free, total = free_memory(torch, device) if device != "mps" else (None, None)
    return {"name": name, "kind": device, "freeBytes": free, "totalBytes": total}


def gguf_capabilities():
    """The architectures and tensor types the gguf trainer reads (every one natively: spade_quants)."""
    from model import spade_gguf_model
    from model import spade_quants

    native = sorted(spade_quants.supported_type_names())
    return {"architectures": list(spade_gguf_model.SUPPORTED), "tensorTypes": native, "nativeTensorTypes": native}


def check_model(path, capabilities):
    """Whether the gguf trainer can train this file: its architecture and every tensor's type."""
    from model import spade_gguf

    try:
        f = spade_gguf.GgufFile(path)
    except (spade_gguf.GgufError, OSError) as error:
        return {"path": path, "trainable": False, "reason": str(error)}
    arch = f.get("general.architecture")
    if arch not in capabilities["architectures"]:
        return {"path": path, "architecture": arch, "trainable": False, "reason": f"architecture {arch!r} is not one the gguf trainer trains ({', '.join(capabilities['architectures'])}); use the hf trainer"}
    types = sorted({info.type_name for info in f.tensors.values()})
    unreadable = [t for t in types if t not in capabilities["tensorTypes"]]
    if unreadable:
        example = next(name for name, info in f.tensors.items() if info.type_name == unreadable[0])
        return {"path": path, "architecture": arch, "tensorTypes": types, "trainable": False, "reason": f"tensor {example} is {unreadable[0]}, which the gguf trainer does not read (it reads {', '.join(capabilities['tensorTypes'])}); use a file quantised to one of those"}
    return {"path": path, "architecture": arch, "tensorTypes": types, "trainable": True, "reason": None}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trainer", default="gguf", choices=["gguf", "hf"])
    parser.add_argument("--model", default=None, help="a GGUF base model to check (gguf trainer)")
    parser.add_argument("--device", default="auto")
    args = parser.parse_args(argv)
    problems = []
    try:
        import torch
    except Exception as error:  # noqa: BLE001
        torch = None
        problems.append(f"{sys.executable} cannot import torch ({type(error).__name__}: {error}): {SETUP_HINT}")
    packages = {name: version_of(name) for name in ("numpy", "transformers", "peft", "gguf")}
    packages["torch"] = str(torch.__version__) if torch is not None else None
    if packages["numpy"] is None:
        problems.append(f"{sys.executable} cannot import numpy: {SETUP_HINT}")
    if args.trainer == "hf":
        for name in ("transformers", "peft"):
            if packages[name] is None:
                problems.append(f"the hf trainer needs {name}, which {sys.executable} cannot import: `spade trainer setup --hf`")
    try:
        device = device_report(torch, args.device)
    except Exception as error:  # noqa: BLE001 - e.g. --device cuda on a machine without CUDA
        device = {"name": None, "kind": args.device, "freeBytes": None, "totalBytes": None}
        problems.append(f"device {args.device!r} is not usable ({error}); use --device auto or cpu")
    report = {"python": sys.executable, "pythonVersion": platform.python_version(), "packages": packages, "device": device, "trainer": args.trainer, "problems": problems}
    report["blas"] = spade_blas.report() if torch is not None else None
    if packages["numpy"] is not None:
        capabilities = gguf_capabilities()
        report["gguf"] = capabilities
        if args.model:
            model = check_model(args.model, capabilities) if args.trainer == "gguf" else {"path": args.model, "trainable": None, "reason": "the hf trainer trains the Hugging Face checkpoint (baseModel), not the GGUF"}
            report["model"] = model
            if model["trainable"] is False:
                problems.append(f"{args.model}: {model['reason']}")
    sys.stdout.write(json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
