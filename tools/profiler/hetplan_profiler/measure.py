"""Timing and memory of one layer at one micro-batch size: warm-up, then the median of N runs of forward and
backward (CUDA events on a GPU, the wall clock on the CPU) and of the optimizer step; the activation bytes the
layer keeps for its backward (saved-tensor hooks); the peak memory (torch.cuda.max_memory_allocated around
the layer on a GPU; parameters + activations on the CPU)."""

import dataclasses
import statistics
import time

import torch

from .layers import own_params


class OutOfMemory(Exception):
    """The layer does not fit at this micro-batch size (a real CUDA OOM or the --memory-limit budget)."""


def is_oom(error):
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(error, oom_type):
        return True
    text = str(error)
    return isinstance(error, (RuntimeError, MemoryError)) and (
        "out of memory" in text or "can't allocate memory" in text or isinstance(error, MemoryError))


@dataclasses.dataclass
class LayerMeasurement:
    forward: float  # seconds, median
    backward: float
    update: float
    activation_bytes: int
    peak_bytes: int
    tp_allreduce_bytes: int


class Clock:
    """Intervals of a sequence of marks: CUDA events on a GPU (no host sync inside the region), else the wall clock."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"
        self.marks = []

    def mark(self):
        if self.cuda:
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            self.marks.append(e)
        else:
            self.marks.append(time.perf_counter())

    def intervals(self):
        if self.cuda:
            torch.cuda.synchronize()
            return [a.elapsed_time(b) / 1000.0 for a, b in zip(self.marks, self.marks[1:])]
        return [b - a for a, b in zip(self.marks, self.marks[1:])]


def _saved_activation_bytes(layer, run_forward):
    """Bytes of the distinct tensors autograd saves for the backward, parameters excluded."""
    params = {p.data_ptr() for p in layer.parameters()}
    seen, total = set(), [0]

    def pack(t):
        key = (t.data_ptr(), t.dtype, tuple(t.shape))
        if t.data_ptr() not in params and key not in seen and t.device.type != "meta":
            seen.add(key)
            total[0] += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = run_forward()
    return out, total[0]


def _backward(out):
    if out.dim() == 0:
        out.backward()
    else:
        out.backward(torch.ones_like(out))


class LayerRunner:
    """Runs one built layer at one micro-batch size."""

    def __init__(self, layer, batch, seq, device, memory_limit=0):
        self.layer, self.batch, self.device, self.memory_limit = layer, batch, device, memory_limit
        self.seq = seq
        self.input = self._make_input(batch, seq)
        self.optimizer = torch.optim.AdamW(layer.parameters(), lr=1e-4) if own_params(layer) else None

    def _make_input(self, batch, seq):
        if hasattr(self.layer, "example_input"):
            return self.layer.example_input(batch, seq, self.device)
        dtype = next(self.layer.parameters()).dtype
        return torch.randn(batch, seq, self.layer.input_width, device=self.device, dtype=dtype, requires_grad=True)

    def _forward(self):
        return self.layer(self.input)

    def _clear_grads(self):
        for p in self.layer.parameters():
            p.grad = None
        if self.input.is_floating_point() and self.input.requires_grad:
            self.input.grad = None

    def _step_once(self, clock):
        self._clear_grads()
        clock.mark()
        out = self._forward()
        clock.mark()
        _backward(out)
        clock.mark()

    def _update_time(self, runs):
        if self.optimizer is None:
            return 0.0
        times = []
        for _ in range(runs):
            clock = Clock(self.device)
            clock.mark()
            self.optimizer.step()
            clock.mark()
            times.extend(clock.intervals())
        return statistics.median(times)

    def _memory(self):
        """(activation bytes, peak bytes) of one forward + backward."""
        param_bytes = sum(p.numel() * p.element_size() for p in self.layer.parameters())
        self._clear_grads()
        if self.device.type == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            before = torch.cuda.memory_allocated()
            out, act = _saved_activation_bytes(self.layer, self._forward)
            _backward(out)
            torch.cuda.synchronize()
            # Around the layer: its parameters, input and whatever the forward and backward allocate.
            peak = torch.cuda.max_memory_allocated() - before + param_bytes
        else:
            out, act = _saved_activation_bytes(self.layer, self._forward)
            _backward(out)
            peak = param_bytes + act
        if self.memory_limit and peak > self.memory_limit:
            raise OutOfMemory(f"needs {peak} bytes, the limit is {self.memory_limit}")
        return act, peak

    def measure(self, warmup, runs, tp_allreduce_elements):
        try:
            # Warm-up first: cuBLAS workspaces and autotuning are one-off allocations, not the layer's memory.
            for _ in range(warmup):
                self._step_once(Clock(self.device))
                self._clear_grads()
            act, peak = self._memory()
            fwd, bwd = [], []
            for _ in range(runs):
                clock = Clock(self.device)
                self._step_once(clock)
                f, b = clock.intervals()
                fwd.append(f)
                bwd.append(b)
            update = self._update_time(max(3, runs // 2))
        except Exception as e:  # noqa: BLE001 - only out-of-memory is handled; the rest re-raises
            if isinstance(e, OutOfMemory):
                raise
            if is_oom(e):
                raise OutOfMemory(str(e).splitlines()[0]) from None
            raise
        value_bytes = self.input.element_size() if self.input.is_floating_point() else \
            next(self.layer.parameters()).element_size()
        return LayerMeasurement(statistics.median(fwd), statistics.median(bwd), update, act, peak,
                                tp_allreduce_elements * self.batch * value_bytes)
