#!/usr/bin/env python3
"""Calibrate and check hetplan's analytic per-layer profile against public measurements.

The analytic times always come from the C++ code: this script runs `hetplan-cli profile` (with a device
catalog holding candidate parameters while fitting) and compares its JSON with the measurements.

  calibrate.py report --data DIR --cli build/app/cli/hetplan-cli [--links LINKS.json] [--out REPORT.md]
      compares the built-in catalog with every measured point and writes the report. tp > 1 points use the
      measuring machine's link: Sailor's measured maximum on NVLink machines, the model's own PCIe ring on
      PCIe machines; --links only adds the fitted effective bandwidths next to the PCIe prediction.
  calibrate.py fit-links --data DIR --cli ... --out LINKS.json
      the effective all-reduce bandwidth each measuring machine's layers imply (a diagnostic, not an input).
  calibrate.py fit --data DIR --cli ... [--devices T4,V100-16GB,...] [--apply resources/devices.json]
      fits efficiency_max, gemm_half_dim, memory_efficiency and launch_overhead per device type (Nelder-Mead
      on the squared log ratios of the transformer-block times) and, with --apply, writes them into the catalog.

DIR is the shared data folder (amp-known-cost/, sailor-opt350/, sailor-more/, metis-opt350/); it is read, never
copied. Standard library only.
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile

# Measured model name -> (hetplan example, sequence length or 0 for the example's own).
MODELS = {
    "gpt2-amp": "gpt2-amp",
    "OPT-350": "opt-350m",
    "GPT-Neo-2.7": "gpt-neo-2.7b",
    "LLAMA-3-8": "llama3-8b",
    "OPT-30": "opt-30b",
}
# Measured device name -> catalog name.
DEVICES = {
    "G4": "T4", "P3": "V100-16GB", "V100-16": "V100-16GB", "A100-40": "A100-40GB", "A100-80": "A100-80GB",
    "GH-96": "GH200-96GB", "RTX-2080": "RTX-2080", "RTX-3090": "RTX-3090", "Titan-RTX": "Titan-RTX",
}
BAND = (0.75, 1.33)
FIT_KEYS = ("efficiency_max", "gemm_half_dim", "memory_efficiency", "launch_overhead")


# ---------------------------------------------------------------- measurements

class Point:
    """One measured (set, device, model, tp, micro-batch) table."""

    def __init__(self, dataset, device, model, tp, mbs, precision, layers, forward_only=False):
        self.dataset, self.device, self.model = dataset, device, model
        self.tp, self.mbs, self.precision = tp, mbs, precision
        self.layers = layers  # [(forward_s, backward_s)] per measured layer
        self.forward_only = forward_only
        self.tp_bandwidth = 0.0  # bytes/s of the measuring machine's tp all-reduces (0 = catalog default)
        self.tf32 = True  # fp32 products on TF32 (mark_tf32 decides per profiling run)
        self.tflops = 0.0  # measured block FLOP rate (TFLOP/s), where the data gives the layer sizes

    def key(self):
        return (self.device, self.model, self.tp, self.mbs)

    def block(self):
        """Median measured time of the transformer blocks (all layers but the first and the last)."""
        inner = self.layers[1:-1] if len(self.layers) > 2 else self.layers
        if self.forward_only:
            return statistics.median(f for f, _ in inner)
        return statistics.median(f + b for f, b in inner)

    def total(self):
        return sum(f if self.forward_only else f + b for f, b in self.layers)


def read_npy(path):
    """A 1-D float64 little-endian .npy array (format 1.0/2.0)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(path + ": not a .npy file")
    major = data[6]
    hlen, start = (struct.unpack("<H", data[8:10])[0], 10) if major == 1 else (struct.unpack("<I", data[8:12])[0], 12)
    header = data[start:start + hlen].decode("latin1")
    if "'<f8'" not in header or "True" in header:
        raise ValueError(path + ": expected little-endian float64 in C order")
    body = data[start + hlen:]
    return list(struct.unpack("<%dd" % (len(body) // 8), body))


def amp_points(data, precision):
    """AMP's GPT-2 forward times (micro-batch 1): embedding, no-op, 24 blocks, no-ops, head."""
    out = []
    folder = os.path.join(data, "amp-known-cost")
    for name in sorted(os.listdir(folder)):
        m = re.fullmatch(r"gpt2_(G4|P3)_(\d+)\.npy", name)
        if not m:
            continue
        v = read_npy(os.path.join(folder, name))
        layers = [(v[0], 0.0)] + [(x, 0.0) for x in v[2:26]] + [(v[28], 0.0)]
        out.append(Point("amp-known-cost", DEVICES[m.group(1)], "gpt2-amp", int(m.group(2)), 1, precision, layers,
                         True))
    return out


def sailor_tables(path, dataset, device, model):
    with open(path) as f:
        prof = json.load(f)
    out = []
    for mbs, by_tp in prof.items():
        for tp, table in by_tp.items():
            layers = [tuple(table[k][:2]) for k in sorted(table, key=int)]
            out.append(Point(dataset, DEVICES[device], model, int(tp), int(mbs), "fp32", layers))
    return out


def sailor_points(data):
    out = []
    base = os.path.join(data, "sailor-opt350")
    for dev in sorted(os.listdir(base)):
        p = os.path.join(base, dev, "profile.json")
        if os.path.isfile(p):
            out += sailor_tables(p, "sailor-opt350", dev, "OPT-350")
    base = os.path.join(data, "sailor-more")
    for model in sorted(os.listdir(base)):
        if not os.path.isdir(os.path.join(base, model)):
            continue
        for dev in sorted(os.listdir(os.path.join(base, model))):
            p = os.path.join(base, model, dev, "profile.json")
            if os.path.isfile(p):
                out += sailor_tables(p, "sailor-more", dev, model)
    return out


def metis_points(data):
    """Metis-format OPT-350M: per-layer forward+backward ms (only as a whole, so stored as forward)."""
    out = []
    base = os.path.join(data, "metis-opt350")
    for dev in sorted(os.listdir(base)):
        for name in sorted(os.listdir(os.path.join(base, dev))):
            m = re.fullmatch(r"mbs(\d+)_tmp(\d+)\.json", name)
            if not m:
                continue
            with open(os.path.join(base, dev, name)) as f:
                ms = json.load(f)["execution_time"]["layer_compute_total_ms"]
            layers = [(x / 1e3, 0.0) for x in ms]
            p = Point("metis-opt350", DEVICES[dev], "OPT-350", int(m.group(2)), int(m.group(1)), "fp32", layers)
            out.append(p)
    return out


def sailor_link(data):
    """Max measured all-reduce bandwidth of Sailor's machines per (catalog device, GPU count)."""
    with open(os.path.join(data, "sailor-opt350", "intra_node_bandwidths.json")) as f:
        raw = json.load(f)
    return {(DEVICES[d], int(n)): v[1] for d, byn in raw.items() for n, v in byn.items()}


UNITS = {"GB/s": 1e9, "TB/s": 1e12, "TFLOPS": 1e12, "GFLOPS": 1e9}


def catalog_devices(catalog_path):
    """The device entries of a catalog file."""
    with open(catalog_path) as f:
        return json.load(f)["devices"]


def quantity(text):
    """A catalog quantity such as "19.5 TFLOPS" or "300 GB/s" in base units."""
    value, unit = text.split()
    return float(value) * UNITS[unit]


def catalog_links(catalog_path):
    """{device: (intra-node link name, bytes/s, pcie_p2p)} from the device catalog."""
    out = {}
    for d in catalog_devices(catalog_path):
        out[d["name"]] = (d.get("intra_node_link", ""), quantity(d["intra_node_bandwidth"]), d.get("pcie_p2p", True))
    return out


def pcie_ring_bandwidth(link, tp, p2p, gpus_per_switch=4):
    """The bottleneck hop of a ring over GPUs 0..tp-1 of a PCIe server (collectives.h pcieHopBandwidths, with
    the catalog defaults): P2P hops under one switch run at the link; every other hop is staged through host
    memory and shares its switch uplinks (up at the sender, down at the receiver) with the ring's other
    staged hops."""
    hops = [(i, (i + 1) % tp) for i in range(tp)]
    staged = [(a // gpus_per_switch, b // gpus_per_switch) for a, b in hops
              if not (p2p and a // gpus_per_switch == b // gpus_per_switch)]
    if not staged:
        return link
    up, down = {}, {}
    for a, b in staged:
        up[a] = up.get(a, 0) + 1
        down[b] = down.get(b, 0) + 1
    return min(min(link / up[a], link / down[b]) for a, b in staged)


def attach_links(points, links, catalog):
    """The link each tp > 1 point's all-reduces ran over. NVLink machines: Sailor's measured maximum
    all-reduce bandwidth of the machine. PCIe machines: nothing (0), so hetplan-cli uses the model's own
    PCIe ring (analyticTpLink: the device's pcie_p2p, 4 GPUs a switch). Sailor's figures for its PCIe
    machines cannot be per-link rates (RTX-2080 at 4 and 8 GPUs, Titan-RTX at 8: 23-25 GB/s, on 16 GB/s
    PCIe 3.0 links), so they are only shown next to the prediction. AMP: nothing (the catalog's link)."""
    for p in points:
        p.link_source = "none" if p.tp == 1 else "model"
        if p.dataset == "amp-known-cost" or p.tp == 1:
            continue
        known = sorted(n for (d, n) in links if d == p.device)
        fit = [n for n in known if n <= p.tp] or known
        if not fit or catalog[p.device][0].startswith("PCIe"):
            continue
        p.tp_bandwidth = links[(p.device, fit[-1])]
        p.link_source = "measured maximum"


# Sequence length of Sailor's runs per model (llm_info.json's activation floats are s*h per sample).
SAILOR_SEQUENCE = {"LLAMA-3-8": 8192}


def sailor_block_flops(data):
    """{model: forward FLOPs of one block per sample at tp 1} from Sailor's llm_info.json: 2 FLOPs per weight
    and token (params_floats of layer 1) plus the two s x s attention products (4 * s * (s*h))."""
    out = {}
    for path in (os.path.join(data, "sailor-opt350", "llm_info.json"), os.path.join(data, "sailor-more", "llm_info.json")):
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            info = json.load(f)
        for model, by_tp in info.items():
            block = by_tp["1"]["1"]
            s = SAILOR_SEQUENCE.get(model, 2048)
            out[model] = 2.0 * block["params_floats"] * s + 4.0 * s * block["act_output_floats"]
    return out


def cuda_core_rates(catalog_path):
    """{device: CUDA-core fp32 FLOP/s} for the parts whose catalog entry has a separate TF32 rate."""
    return {d["name"]: quantity(d["peak_flops_fp32_cuda_cores"]) for d in catalog_devices(catalog_path)
            if "peak_flops_fp32_cuda_cores" in d}


def mark_tf32(points, data, catalog_path):
    """Sets p.tflops and p.tf32 on the fp32 points. TF32 is one process-wide PyTorch setting, so a profiling
    run (one file: data set, device, model) ran all its tables with one value of it. On a part with a TF32
    rate above its CUDA-core rate: a run whose blocks ever beat the CUDA-core peak had TF32 on (nothing else
    computes that fast); a run that never reaches it, on the same device as such a run of a model with
    narrower layers, had it off, because a product's efficiency only grows with its size, so the wider layers
    would run at least as fast per FLOP with the same setting. Other runs keep the catalog's default (on)."""
    flops = sailor_block_flops(data)
    rates = cuda_core_rates(catalog_path)
    runs = {}
    for p in points:
        if p.precision == "fp32" and p.model in flops:
            p.tflops = 3.0 * flops[p.model] * p.mbs / p.tp / p.block() / 1e12
            runs.setdefault((p.dataset, p.device, p.model), []).append(p)
    best = {k: max(p.tflops for p in ps) for k, ps in runs.items()}
    width = {m: flops[m] for m in flops}  # per-sample block work orders the models by layer width here
    for (ds, dev, model), ps in runs.items():
        if dev not in rates or best[(ds, dev, model)] * 1e12 > rates[dev]:
            continue
        proven_on = [m for (d2, dev2, m), b in best.items() if dev2 == dev and b * 1e12 > rates[dev]]
        if any(width[m] < width[model] for m in proven_on):
            for p in ps:
                p.tf32 = False


def tf32_table(points, catalog_path):
    """Per profiling run on a part with TF32: its fastest block rate against the CUDA-core peak."""
    rates = cuda_core_rates(catalog_path)
    runs = {}
    for p in points:
        if p.tflops > 0 and p.device in rates:
            runs.setdefault((p.dataset, p.device, p.model), []).append(p)
    out = ["| data set | device | model | fastest block TFLOP/s | CUDA-core fp32 peak | TF32 | block ratio (median) |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for (ds, dev, model), ps in sorted(runs.items()):
        out.append("| %s | %s | %s | %.1f | %.1f | %s | %.2f |" % (
            ds, dev, model, max(p.tflops for p in ps), rates[dev] / 1e12, "on" if ps[0].tf32 else "off",
            statistics.median(ratio(p) for p in ps)))
    return out


DEFAULT_CATALOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources", "devices.json")


def load_points(data, amp_precision, catalog_path=DEFAULT_CATALOG):
    points = amp_points(data, amp_precision) + sailor_points(data) + metis_points(data)
    attach_links(points, sailor_link(data), catalog_links(catalog_path))
    mark_tf32(points, data, catalog_path)
    return points


# ---------------------------------------------------------------- analytic times from hetplan-cli

class Analytic:
    def __init__(self, cli, catalog_path=None):
        self.cli, self.catalog_path = cli, catalog_path

    def tables(self, device, model, precision, tf32, tp_bw, mbs_list):
        """{(tp, mbs): [(forward, backward)] per layer} from one `hetplan-cli profile` run."""
        tps = sorted(tp_bw)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "p.json")
            cmd = [self.cli, "profile", "--model", "example:" + MODELS[model], "--device", device,
                   "--tp", ",".join(map(str, tps)), "--mbs", ",".join(map(str, sorted(mbs_list))),
                   "--precision", precision, "--out", out]
            if not tf32:
                cmd.append("--no-tf32")
            if any(tp_bw[t] > 0 for t in tps):
                cmd += ["--tp-bandwidth", ",".join("%.6g GB/s" % (tp_bw[t] / 1e9) if tp_bw[t] > 0 else "default"
                                                   for t in tps)]
            if self.catalog_path:
                cmd += ["--devices", self.catalog_path]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                prof = json.load(f)
        return {(t["tp"], t["micro_batch"]): [(l["forward"], l["backward"]) for l in t["layers"]]
                for t in prof["tables"]}

    def evaluate(self, points, workers=2):
        """Sets p.analytic (per-layer (forward, backward)) on every point."""
        groups = {}
        for p in points:
            groups.setdefault((p.device, p.model, p.precision, p.tf32), []).append(p)
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            futures = {pool.submit(self.tables, d, m, pr, tf, {p.tp: p.tp_bandwidth for p in ps},
                                   {p.mbs for p in ps}): ps
                       for (d, m, pr, tf), ps in groups.items()}
            for fut, ps in futures.items():
                tables = fut.result()
                for p in ps:
                    p.analytic = tables[(p.tp, p.mbs)]


def analytic_block(p):
    inner = p.analytic[1:-1]
    if p.forward_only:
        return statistics.mean(f for f, _ in inner)
    return statistics.mean(f + b for f, b in inner)


def analytic_total(p):
    return sum(f if p.forward_only else f + b for f, b in p.analytic)


def ratio(p):
    return analytic_block(p) / p.block()


# ---------------------------------------------------------------- fitting

def catalog_with(base_catalog, device, params):
    """The catalog JSON text with one device's fitted fields replaced."""
    cat = json.loads(json.dumps(base_catalog))
    for d in cat["devices"]:
        if d["name"] == device:
            d.update(params)
            d["launch_overhead"] = "%.6g us" % (params["launch_overhead"] * 1e6)
    cat["devices"] = [d for d in cat["devices"] if d["name"] == device]
    groups = []
    for g in cat.get("runtime_overheads", []):
        if device in g["devices"]:
            groups.append(dict(g, devices=[device]))
    cat["runtime_overheads"] = groups
    return cat


def loss(points):
    """Mean squared log ratio of the block times, plus a quarter weight on the whole-model sums."""
    terms = [math.log(ratio(p)) ** 2 + 0.25 * math.log(analytic_total(p) / p.total()) ** 2 for p in points]
    return sum(terms) / len(terms)


# Physically plausible ranges: a product reaches 30-95 % of peak at best; a GPU is half filled by matrices of
# 16-1016 rows/columns; streaming kernels reach 50-95 % of the datasheet bandwidth; an eager framework pays
# 2-30 us per kernel (launch plus dispatch).
RANGES = {"efficiency_max": (0.3, 0.95), "gemm_half_dim": (16, 1016), "memory_efficiency": (0.5, 0.95),
          "launch_overhead": (2e-6, 30e-6)}
START = {"efficiency_max": 0.6, "gemm_half_dim": 128, "memory_efficiency": 0.8, "launch_overhead": 10e-6}


def to_params(x):
    """Unconstrained vector -> parameters inside RANGES (logistic map)."""
    out = {}
    for v, key in zip(x, FIT_KEYS):
        lo, hi = RANGES[key]
        out[key] = lo + (hi - lo) / (1 + math.exp(-v))
    return out


def from_params(prm):
    x = []
    for key in FIT_KEYS:
        lo, hi = RANGES[key]
        u = (prm[key] - lo) / (hi - lo)
        x.append(math.log(u / (1 - u)))
    return x


def nelder_mead(f, x0, step=0.5, iters=60):
    n = len(x0)
    simplex = [list(x0)] + [[x0[j] + (step if j == i else 0) for j in range(n)] for i in range(n)]
    vals = [f(x) for x in simplex]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        simplex, vals = [simplex[i] for i in order], [vals[i] for i in order]
        centroid = [sum(x[j] for x in simplex[:-1]) / n for j in range(n)]
        move = lambda t: [centroid[j] + t * (simplex[-1][j] - centroid[j]) for j in range(n)]
        xr = move(-1); fr = f(xr)
        if fr < vals[0]:
            xe = move(-2); fe = f(xe)
            simplex[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            simplex[-1], vals[-1] = xr, fr
        else:
            xc = move(0.5); fc = f(xc)
            if fc < vals[-1]:
                simplex[-1], vals[-1] = xc, fc
            else:
                simplex = [simplex[0]] + [[(x[j] + simplex[0][j]) / 2 for j in range(n)] for x in simplex[1:]]
                vals = [vals[0]] + [f(x) for x in simplex[1:]]
    best = min(range(n + 1), key=lambda i: vals[i])
    return simplex[best], vals[best]


PRIOR = 0.005  # weight of a weak pull towards START (keeps devices with few points physical)


def fit_device(cli, base_catalog, device, points):
    x0 = from_params(START)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "catalog.json")

        def objective(x):
            with open(path, "w") as f:
                json.dump(catalog_with(base_catalog, device, to_params(x)), f)
            Analytic(cli, path).evaluate(points)
            return loss(points) + PRIOR * sum((a - b) ** 2 for a, b in zip(x, x0))

        x, val = nelder_mead(objective, from_params(START))
    return to_params(x), val


def cmd_fit(args):
    """Step 1: device parameters on the tp = 1 points (no communication in them)."""
    points = dedupe(load_points(args.data, args.amp_precision))
    with open(args.catalog) as f:
        base = json.load(f)
    wanted = args.devices.split(",") if args.devices else sorted({p.device for p in points})
    fitted = {}
    for dev in wanted:
        mine = [p for p in points if p.device == dev and p.tp == 1 and not excluded(p)]
        if not mine:
            print("%-12s no usable tp = 1 points: takes %s's figures" % (dev, ANALOGY.get(dev, "its current")))
            continue
        params, val = fit_device(args.cli, base, dev, mine)
        fitted[dev] = params
        print("%-12s %s  loss %.4f (%d points)" % (dev, " ".join("%s=%.4g" % kv for kv in params.items()), val,
                                                   len(mine)), flush=True)
    if args.apply:
        apply_to_catalog(args.apply, fitted)


def link_key(p):
    """Which fitted link a tp > 1 point uses: Sailor's machines per (device, tp degree), as its bandwidth
    file does; AMP's two machines one figure each (one point per tp degree)."""
    if p.tp == 1:
        return None
    if p.dataset == "amp-known-cost":
        return "amp:%s" % p.device
    return "%s/%d" % (p.device, p.tp)


def link_groups(points):
    groups = {}
    for p in points:
        if link_key(p) and not excluded(p):
            groups.setdefault(link_key(p), []).append(p)
    return {k: v for k, v in groups.items() if len(v) >= 2}


def cmd_fit_links(args):
    """Step 2: with the built-in (fitted) devices, the all-reduce bandwidth each measuring machine reached
    inside its layers (link_key): golden-section search on log bandwidth, all groups at once."""
    points = dedupe(load_points(args.data, args.amp_precision))
    groups = link_groups(points)
    lo = {k: math.log(0.3e9) for k in groups}
    hi = {k: math.log(600e9) for k in groups}
    g = (math.sqrt(5) - 1) / 2

    def errors(logbw):
        for k, ps in groups.items():
            for p in ps:
                p.tp_bandwidth = math.exp(logbw[k])
        Analytic(args.cli, args.override).evaluate([p for ps in groups.values() for p in ps])
        return {k: sum(math.log(ratio(p)) ** 2 for p in ps) for k, ps in groups.items()}

    for _ in range(args.iters):
        a = {k: hi[k] - g * (hi[k] - lo[k]) for k in groups}
        b = {k: lo[k] + g * (hi[k] - lo[k]) for k in groups}
        ea, eb = errors(a), errors(b)
        for k in groups:
            if ea[k] < eb[k]:
                hi[k] = b[k]
            else:
                lo[k] = a[k]
    fitted = {k: round(math.exp((lo[k] + hi[k]) / 2) / 1e9, 3) for k in sorted(groups)}
    with open(args.out, "w") as f:
        json.dump({"note": "effective tp all-reduce bandwidth (GB/s) of the measuring machines (Sailor's per "
                           "device/tp, AMP's per device), fitted by calibrate.py fit-links", "links": fitted}, f,
                  indent=1)
    print(json.dumps(fitted, indent=1))


# Devices without public measurements take the fitted figures of the measured part of the same architecture.
ANALOGY = {
    "V100-32GB": "V100-16GB", "V100S-32GB": "V100-16GB", "P100-16GB": "V100-16GB",
    "A100-80GB-PCIe": "A100-80GB", "A800-80GB": "A100-80GB",
    "RTX-A6000": "RTX-3090", "RTX-4090": "RTX-3090", "L4": "RTX-3090", "L40S": "RTX-3090",
    "H100-SXM": "GH200-96GB", "H100-PCIe": "GH200-96GB", "H800": "GH200-96GB", "H200": "GH200-96GB",
    # T4 is the TU104 die of the RTX 2080; its only measurements (AMP) are left out of the fit (excluded).
    "T4": "RTX-2080",
}


def apply_to_catalog(path, fitted):
    """Rewrites the fitted fields of each device in the catalog file (and of its ANALOGY devices), keeping
    the file's layout."""
    with open(path) as f:
        text = f.read()
    notes = {dev: "fitted by tools/calibrate/calibrate.py, see docs/calibration.md" for dev in fitted}
    for dev, src in ANALOGY.items():
        if src in fitted:
            fitted[dev] = fitted[src]
            notes[dev] = "not measured: the figures fitted for %s (nearest measured architecture), docs/calibration.md" % src
    for dev, prm in fitted.items():
        start = text.index('"name": "%s"' % dev)
        end = text.index("}", text.index('"calibration"', start))
        block = text[start:end]
        block = re.sub(r'"efficiency_max": [0-9.e-]+', '"efficiency_max": %.3g' % prm["efficiency_max"], block)
        block = re.sub(r'"gemm_half_dim": [0-9.e-]+', '"gemm_half_dim": %.0f' % prm["gemm_half_dim"], block)
        block = re.sub(r'"memory_efficiency": [0-9.e-]+', '"memory_efficiency": %.3g' % prm["memory_efficiency"],
                       block)
        block = re.sub(r'"launch_overhead": "[^"]*"', '"launch_overhead": "%.3g us"' % (prm["launch_overhead"] * 1e6),
                       block)
        block = re.sub(r'"calibration": "[^"]*"', '"calibration": "%s"' % notes[dev], block)
        text = text[:start] + block + text[end:]
    with open(path, "w") as f:
        f.write(text)


def dedupe(points):
    """metis-opt350 repeats sailor-opt350's OPT-350M tables (forward+backward summed): keep one of each."""
    seen, out = set(), []
    for p in sorted(points, key=lambda p: p.dataset != "sailor-opt350"):
        k = p.key() + (p.dataset == "amp-known-cost",)
        if k in seen:
            continue
        seen.add(k)
        out.append(p)
    return out


def excluded(p):
    """Tables no single device model can match, left out of the fit (still in the report). AMP's GPT-2 blocks (fp16): the output
    layer of the same runs, one large logits product, runs at 36-45 TFLOP/s and matches the fp16 model within
    0.6-0.9, while the blocks run at 5-8 TFLOP/s and take as long at tp 4 as at tp 1, so they are bound by
    something outside the device model (amp_head_check in the report); fitting them would break the head."""
    return p.dataset == "amp-known-cost"


# ---------------------------------------------------------------- report

def geo_mean(xs):
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def worst(rs):
    return max(rs, key=lambda r: abs(math.log(r)))


def inside(r):
    return BAND[0] <= r <= BAND[1]


def summary_rows(points, group):
    rows = {}
    for p in points:
        rows.setdefault(group(p), []).append(p)
    lines = []
    for k in sorted(rows):
        ps = rows[k]
        rs = [ratio(p) for p in ps]
        ts = [analytic_total(p) / p.total() for p in ps]
        lines.append("| %s | %d | %.2f | %.2f | %d/%d | %.2f |" % (
            " | ".join(k), len(ps), statistics.median(rs), worst(rs), sum(map(inside, rs)), len(rs),
            statistics.median(ts)))
    return lines


def speed_order(points):
    """Pairwise device speed: geometric mean of block-time ratios over the tp = 1 points both devices measured
    (tp > 1 times also hold the machine's links), leaving out the tables the fit leaves out."""
    by = {}
    for p in points:
        if p.tp == 1 and not excluded(p):
            by.setdefault(p.device, {})[(p.model, p.tp, p.mbs, p.precision)] = p
    devs = sorted(by)
    lines, wrong = [], 0
    for i, a in enumerate(devs):
        for b in devs[i + 1:]:
            common = sorted(set(by[a]) & set(by[b]))
            if not common:
                continue
            meas = geo_mean(by[b][k].block() / by[a][k].block() for k in common)
            ana = geo_mean(analytic_block(by[b][k]) / analytic_block(by[a][k]) for k in common)
            ok = (meas > 1) == (ana > 1)
            wrong += not ok
            lines.append("| %s vs %s | %d | %.2f | %.2f | %s |" % (a, b, len(common), meas, ana, "yes" if ok else "**no**"))
    return lines, wrong


def params_table(catalog, devices):
    lines = []
    for d in catalog["devices"]:
        if d["name"] not in devices:
            continue
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            d["name"], d["peak_flops"], d.get("peak_flops_fp32", ""), d["memory_bandwidth"], d["efficiency_max"],
            d.get("gemm_half_dim", ""), d.get("memory_efficiency", ""), d.get("launch_overhead", "")))
    return lines


def share_line(name, points):
    rs = [ratio(p) for p in points]
    n = sum(map(inside, rs))
    return "| %s | %d | %d (%.1f %%) | %.3f | %.2f |" % (name, len(rs), n, 100.0 * n / len(rs),
                                                      statistics.median(rs), worst(rs))


def headline(points):
    """Shares on the tp = 1 points alone, on all points, and per data set."""
    lines = ["| points | count | inside the band | median | worst |", "| --- | --- | --- | --- | --- |",
             share_line("tp = 1 (no communication)", [p for p in points if p.tp == 1]),
             share_line("all (tp links: NVLink machines' measured maximum, PCIe machines the model's ring)", points)]
    for ds in sorted({p.dataset for p in points}):
        lines.append(share_line(ds, [p for p in points if p.dataset == ds]))
    lines.append(share_line("all but amp-known-cost", [p for p in points if p.dataset != "amp-known-cost"]))
    return lines


def pcie_table(points, data, fitted):
    """Per PCIe device and tp degree: the model's predicted all-reduce ring bandwidth (catalog defaults),
    Sailor's benchmark maximum, and the effective bandwidth the measured layer times imply (fit-links)."""
    catalog = catalog_links(DEFAULT_CATALOG)
    bench = sailor_link(data)
    rows = {}
    for p in points:
        if p.tp > 1 and p.dataset != "amp-known-cost" and catalog[p.device][0].startswith("PCIe"):
            rows.setdefault((p.device, p.tp), []).append(p)
    out = ["| device | tp | link (catalog) | P2P | model ring bandwidth | Sailor benchmark max | effective in the layers "
           "(fit-links) | model / effective | block ratio (median, worst) |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (dev, tp), ps in sorted(rows.items()):
        name, link, p2p = catalog[dev]
        model = pcie_ring_bandwidth(link, tp, p2p)
        eff = fitted.get("%s/%d" % (dev, tp))
        rs = [ratio(p) for p in ps]
        out.append("| %s | %d | %s %.0f GB/s | %s | %.1f GB/s | %s | %s | %s | %.2f, %.2f |" % (
            dev, tp, name, link / 1e9, "yes" if p2p else "no", model / 1e9,
            "%.1f GB/s" % (bench[(dev, tp)] / 1e9) if (dev, tp) in bench else "-",
            "%.1f GB/s" % eff if eff else "-", "%.2f" % (model / 1e9 / eff) if eff else "-",
            statistics.median(rs), worst(rs)))
    return out


def amp_head_check(points):
    """AMP's output layer (one 1024 x 52256 x 1024 logits product per sample) at the run's precision: it pins
    the device's 16-bit matrix-product rate independently of the blocks."""
    out = ["| device | tp | precision | measured head ms | analytic head ms | ratio | block ratio |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for p in sorted(points, key=lambda p: (p.device, p.tp)):
        if p.dataset == "amp-known-cost":
            out.append("| %s | %d | %s | %.3f | %.3f | %.2f | %.2f |" % (
                p.device, p.tp, p.precision, p.layers[-1][0] * 1e3, p.analytic[-1][0] * 1e3,
                p.analytic[-1][0] / p.layers[-1][0], ratio(p)))
    return out


def cmd_report(args):
    points = dedupe(load_points(args.data, args.amp_precision))
    Analytic(args.cli, args.override).evaluate(points)
    head = headline(points)
    fitted = {}
    if args.links:
        with open(args.links) as f:
            fitted = json.load(f)["links"]
    with open(args.catalog) as f:
        catalog = json.load(f)
    rs = [ratio(p) for p in points]
    ts = [analytic_total(p) / p.total() for p in points]
    order, wrong = speed_order(points)
    out = ["# Analytic profile vs measurements", "",
           "Ratio = analytic / measured time of one transformer block (forward + backward; forward only for AMP), "
           "per (device, model, tp, micro-batch) point. `model sum` = the same ratio for the sum over all layers. "
           "AMP's points at %s." % args.amp_precision, "",
           "- points: %d; inside [%.2f, %.2f]: %d (%.1f %%)" % (len(rs), BAND[0], BAND[1], sum(map(inside, rs)),
                                                                100.0 * sum(map(inside, rs)) / len(rs)),
           "- median ratio %.3f, worst %.2f; model sum: median %.3f, inside the band %.1f %%" % (
               statistics.median(rs), worst(rs), statistics.median(ts), 100.0 * sum(map(inside, ts)) / len(ts)),
           "- device pairs in the measured speed order: %d of %d" % (len(order) - wrong, len(order)), ""] + head + [
           "", "## TF32 per profiling run (fp32 runs on parts with TF32)", ""] + tf32_table(points, args.catalog) + [
           "", "## Tensor-parallel all-reduce on the PCIe machines", ""] + pcie_table(points, args.data, fitted) + [
           "", "## AMP's output layer (one large fp16 matrix product) against its blocks", ""] + amp_head_check(points) + [
           "", "## Per device and model", "",
           "| device | model | points | median | worst | inside | model sum (median) |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    out += summary_rows(points, lambda p: (p.device, p.model))
    out += ["", "## Per data set", "", "| data set | points | median | worst | inside | model sum (median) |",
            "| --- | --- | --- | --- | --- | --- |"]
    out += summary_rows(points, lambda p: (p.dataset,))
    out += ["", "## Device speed order", "",
            "Time of the second device / time of the first, geometric mean over the tp = 1 points both measured "
            "(>1: the first is faster).", "",
            "| pair | points | measured | analytic | same order |", "| --- | --- | --- | --- | --- |"] + order
    out += ["", "## Points outside the band", "", "| data set | device | model | tp | mbs | measured block ms | analytic ms | ratio |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in sorted(points, key=lambda p: (p.dataset, p.device, p.model, p.tp, p.mbs)):
        if not inside(ratio(p)):
            out.append("| %s | %s | %s | %d | %d | %.3f | %.3f | %.2f |" % (
                p.dataset, p.device, p.model, p.tp, p.mbs, p.block() * 1e3, analytic_block(p) * 1e3, ratio(p)))
    out += ["", "## Device parameters (resources/devices.json)", "",
            "| device | peak 16-bit | peak fp32 | memory bw | efficiency_max | gemm_half_dim | memory_efficiency | launch_overhead |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"] + params_table(catalog, {p.device for p in points})
    text = "\n".join(out) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("fit", "fit-links", "report"):
        s = sub.add_parser(name)
        s.add_argument("--data", required=True, help="the shared measurements folder")
        s.add_argument("--cli", required=True, help="path of hetplan-cli")
        s.add_argument("--amp-precision", default="fp16", choices=("fp16", "bf16", "fp32"),
                       help="precision AMP's GPT-2 timings ran at (default fp16, as AMP ran them: --fp16)")
        s.add_argument("--catalog", default=os.path.join(os.path.dirname(__file__), "..", "..", "resources",
                                                         "devices.json"))
    sub.choices["fit"].add_argument("--devices", help="comma-separated catalog names (default: all measured)")
    sub.choices["fit"].add_argument("--apply", help="write the fitted fields into this catalog file")
    sub.choices["report"].add_argument("--out", help="write the Markdown report here (default: stdout)")
    for name in ("fit-links", "report"):
        sub.choices[name].add_argument("--override", help="a device catalog passed to hetplan-cli --devices")
    sub.choices["report"].add_argument("--links", help="fit-links output: shown next to the PCIe prediction (not used "
                                                        "for the ratios)")
    sub.choices["fit-links"].add_argument("--out", required=True, help="write the fitted links (JSON) here")
    sub.choices["fit-links"].add_argument("--iters", type=int, default=22)
    args = ap.parse_args()
    {"fit": cmd_fit, "fit-links": cmd_fit_links, "report": cmd_report}[args.cmd](args)


if __name__ == "__main__":
    main()
