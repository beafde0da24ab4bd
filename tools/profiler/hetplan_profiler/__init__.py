"""hetplan's per-layer PyTorch profiler (tools/profiler/hetplan-profile)."""

VERSION = "0.1.0"

# Exit codes, as hetplan-cli's: 0 ok, 2 bad input, 3 nothing fits (out of memory at every micro-batch size),
# 4 interrupted.
EXIT_OK, EXIT_BAD_INPUT, EXIT_NOTHING_FITS, EXIT_INTERRUPTED = 0, 2, 3, 4


class InputError(Exception):
    """Bad input from the user (exit code 2): unknown model, bad sizes, no GPU, ..."""
