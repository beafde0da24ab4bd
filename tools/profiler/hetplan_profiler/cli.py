"""Command line of hetplan-profile: options, the sweep over tensor-parallel degrees, layers and micro-batch
sizes with progress on stderr, and exit codes like hetplan-cli's."""

import argparse
import re
import sys

from . import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_NOTHING_FITS, EXIT_OK, VERSION, InputError

EPILOG = """\
The profile's layers are the model's: the embedding, each block, the head (hetplan's layer list). Each layer is
built alone with random weights (nothing is downloaded), at the job's sequence length and precision, for every
micro-batch size (ascending) and tensor-parallel degree (the layer's shard: heads, MLP width and vocabulary
divided by the degree; the all-reduce volume is recorded separately as tp_allreduce_bytes). A micro-batch size
that runs out of memory stops the sweep; the largest size that fits is recorded as max_micro_batch.

Then: hetplan-cli import --format native --in A.json --in B.json --out merged.json  (one file per GPU type)
      hetplan-cli plan --cluster C.json --model example:NAME --profile merged.json ...

Exit codes: 0 ok, 2 bad input (unknown model, bad sizes, no GPU), 3 nothing fits (out of memory at every
micro-batch size), 4 interrupted.
"""


def _positive_list(text, option):
    items = text.split(",")
    if not all(re.fullmatch(r"[0-9]+", i.strip()) and int(i) >= 1 for i in items):
        raise InputError(f"{option}: expected positive integers separated by commas, got '{text}'")
    return sorted({int(i) for i in items})


def _bytes(text):
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(|B|KB|MB|GB|KiB|MiB|GiB)\s*", text)
    if not m:
        raise InputError(f"--memory-limit: expected a size such as 40GiB or 1500000000, got '{text}'")
    unit = {"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[m.group(2)]
    return int(float(m.group(1)) * unit)


def parser():
    p = argparse.ArgumentParser(prog="hetplan-profile", formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="Measure a model's per-layer forward, backward and optimizer times and "
                                            "memory with PyTorch, and write hetplan's profile JSON.", epilog=EPILOG)
    p.add_argument("--model", required=True, metavar="NAME|FILE",
                   help="a bundled example (gpt2-amp, opt-350m, llama2-7b, bert-base, vit-base, ...) or a hetplan "
                        "model JSON file with an arch object")
    p.add_argument("--device", default="cuda", help="where to run: cuda, cuda:N or cpu (default: cuda)")
    p.add_argument("--device-type", metavar="TYPE",
                   help="hetplan's name for this GPU type (hetplan-cli list devices), e.g. H100-SXM; required "
                        "except with --describe")
    p.add_argument("--mbs", default="1,2,4,8", metavar="LIST", help="micro-batch sizes (default: 1,2,4,8)")
    p.add_argument("--tp", default="1", metavar="LIST", help="tensor-parallel degrees (default: 1)")
    p.add_argument("--seq", type=int, metavar="N", help="sequence length (default: the model's)")
    p.add_argument("--precision", choices=("fp16", "bf16", "fp32"),
                   help="parameter and activation type (default: fp16 on a GPU, fp32 on the CPU)")
    p.add_argument("--warmup", type=int, default=3, metavar="N", help="warm-up runs per measurement (default: 3)")
    p.add_argument("--runs", type=int, default=10, metavar="N", help="timed runs; the median is kept (default: 10)")
    p.add_argument("--memory-limit", metavar="BYTES",
                   help="treat more than this per layer as out of memory (e.g. 24GiB, to emulate a smaller card)")
    p.add_argument("--out", metavar="FILE", help="write the profile JSON (hetplan.profile/1) here")
    p.add_argument("--describe", action="store_true",
                   help="list the layers and their parameter counts (built on the meta device), measure nothing")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--version", action="version", version=f"hetplan-profile {VERSION}")
    return p


def main(argv):
    args = parser().parse_args(argv)  # argparse exits with 2 on a malformed command line, like hetplan-cli
    try:
        import torch  # noqa: F401 - imported here so --help works without PyTorch
    except ImportError:
        print("hetplan-profile: error: PyTorch is not installed (pip install torch, or apt install python3-torch)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    from .sweep import run

    try:
        return run(args)
    except InputError as e:
        print(f"hetplan-profile: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("hetplan-profile: interrupted; nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED


__all__ = ["main", "EXIT_OK", "EXIT_NOTHING_FITS", "_positive_list", "_bytes"]
