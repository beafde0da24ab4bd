"""The measurement sweep: for each tensor-parallel degree, each layer is built once and measured at every
micro-batch size in ascending order until one runs out of memory; the sizes every layer fits at become the
profile's tables."""

import gc
import sys

import torch

from . import EXIT_NOTHING_FITS, EXIT_OK, InputError
from .archs import load_arch
from .cli import _bytes, _positive_list
from .layers import build_layer, layer_names, own_params
from .measure import LayerRunner, OutOfMemory, is_oom
from .output import canonical_device_type, profile_json, write_json

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


def _device(text):
    try:
        device = torch.device(text)
    except RuntimeError:
        raise InputError(f"--device: expected cuda, cuda:N or cpu, got '{text}'")
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise InputError("--device cuda: no CUDA GPU is visible to PyTorch (torch "
                             f"{torch.__version__}, CUDA build: {torch.version.cuda}); use --device cpu to try the "
                             "tool on the CPU")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise InputError(f"--device {text}: only {torch.cuda.device_count()} GPU(s) visible")
        torch.cuda.set_device(device)
    elif device.type != "cpu":
        raise InputError(f"--device: expected cuda, cuda:N or cpu, got '{text}'")
    return device


def _settings(args):
    arch = load_arch(args.model)
    if args.seq is not None:
        if args.seq < 1 or (arch.family == "vit" and args.seq < 2):
            raise InputError(f"--seq must be at least {2 if arch.family == 'vit' else 1}, got {args.seq}")
        arch.sequence = args.seq
    if args.warmup < 0 or args.runs < 1:
        raise InputError("--warmup must be at least 0 and --runs at least 1")
    return arch, _positive_list(args.mbs, "--mbs"), _positive_list(args.tp, "--tp")


def describe(arch, tps):
    for tp in tps:
        total = 0
        print(f"{arch.name}: tp {tp}, sequence {arch.sequence}")
        for i, name in enumerate(layer_names(arch)):
            n = own_params(build_layer(arch, i, tp, torch.device("meta"), torch.float32))
            total += n
            print(f"  {i:3d} {name:12s} {n:>14d}")
        print(f"  total params {total}")
    return EXIT_OK


def _progress(args, text):
    if not args.quiet:
        print(f"hetplan-profile: {text}", file=sys.stderr, flush=True)


def _release(device):
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def _measure_layer(args, arch, index, tp, sizes, device, dtype, limit, total):
    """{mbs: measurement} for the sizes this layer fits at (ascending; stops at the first out-of-memory)."""
    name = layer_names(arch)[index]
    fits = {}
    try:
        layer = build_layer(arch, index, tp, device, dtype)
    except Exception as e:  # noqa: BLE001 - only out-of-memory is handled; the rest re-raises
        if not is_oom(e):
            raise
        _progress(args, f"tp {tp}: layer {index + 1}/{total} {name}: out of memory building the layer")
        _release(device)
        return fits
    for k, mbs in enumerate(sizes):
        runner = None
        try:
            runner = LayerRunner(layer, mbs, arch.sequence, device, limit)
            m = runner.measure(args.warmup, args.runs, layer.tp_allreduce_elements)
        except Exception as e:  # noqa: BLE001 - only out-of-memory is handled; the rest re-raises
            if not (isinstance(e, OutOfMemory) or is_oom(e)):
                raise
            reason = str(e).splitlines()[0] if str(e) else "out of memory"
            _progress(args, f"tp {tp}: layer {index + 1}/{total} {name}: out of memory at micro-batch {mbs} "
                            f"({reason})")
            break
        finally:
            del runner
            _release(device)
        fits[mbs] = m
        _progress(args, f"tp {tp}: layer {index + 1}/{total} {name}, micro-batch {mbs} [{k + 1}/{len(sizes)}]: "
                        f"forward {m.forward * 1e3:.3f} ms, backward {m.backward * 1e3:.3f} ms, "
                        f"activations {m.activation_bytes / 2**20:.1f} MiB")
    del layer
    _release(device)
    return fits


def _sweep_tp(args, arch, tp, sizes, device, dtype, limit):
    """(tables {mbs: [measurement per layer]}, largest fitting size or None when every size fitted)."""
    total = arch.layers + 2
    per_layer = []
    for index in range(total):
        fits = _measure_layer(args, arch, index, tp, sizes, device, dtype, limit, total)
        per_layer.append(fits)
        sizes = [s for s in sizes if s in fits]  # later layers need not try what an earlier one could not fit
        if not sizes:
            return {}, 0
    oom = len(sizes) < len(_positive_list(args.mbs, "--mbs"))
    return {mbs: [fits[mbs] for fits in per_layer] for mbs in sizes}, (max(sizes) if oom else None)


def run(args):
    arch, sizes, tps = _settings(args)
    if args.describe:
        return describe(arch, tps)
    if not args.out:
        raise InputError("--out is required (where to write the profile)")
    if not args.device_type:
        raise InputError("--device-type is required: hetplan's name for this GPU type (hetplan-cli list devices)")
    device = _device(args.device)
    device_type = canonical_device_type(args.device_type)
    precision = args.precision or ("fp16" if device.type == "cuda" else "fp32")
    if device.type == "cpu" and precision == "fp16":
        raise InputError("--precision fp16 is not supported on the CPU; use bf16 or fp32")
    limit = _bytes(args.memory_limit) if args.memory_limit else 0
    if limit and device.type == "cuda":
        free_total = torch.cuda.get_device_properties(device).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, limit / free_total), device)
    torch.manual_seed(0)
    tables, max_mbs = {}, {}
    for tp in tps:
        per_mbs, largest = _sweep_tp(args, arch, tp, sizes, device, DTYPES[precision], limit)
        if largest == 0:
            _progress(args, f"tp {tp}: out of memory at the smallest micro-batch size {sizes[0]}")
            max_mbs[tp] = 0
            continue
        if largest is not None:
            max_mbs[tp] = largest
        tables.update({(tp, mbs): layers for mbs, layers in per_mbs.items()})
    if not tables:
        print("hetplan-profile: error: out of memory at every micro-batch size and tensor-parallel degree; "
              "nothing written", file=sys.stderr)
        return EXIT_NOTHING_FITS
    fitted = {tp: mbs for tp, mbs in max_mbs.items() if mbs > 0}
    write_json(args.out, profile_json(arch.name, device_type, device, arch.sequence, precision, tables, fitted))
    _progress(args, f"wrote {len(tables)} table(s) of {arch.layers + 2} layers for {device_type} to {args.out}")
    return EXIT_OK
