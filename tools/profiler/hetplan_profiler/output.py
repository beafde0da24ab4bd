"""The profile JSON (hetplan.profile/1) the profiler writes, and the device catalog check of --device-type."""

import json
import os
import platform
import tempfile

import torch

from . import VERSION, InputError


def _catalog_path():
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.join(here, "..", "..", "..", "resources", "devices.json")


def canonical_device_type(name):
    """The catalog's name for a device type given by name or alias (as hetplan's catalog matches: exactly,
    then ignoring case, then ignoring case and punctuation). Outside a hetplan source tree there is no catalog
    to check against and the name is kept; `hetplan-cli import` checks it then."""
    try:
        with open(_catalog_path(), encoding="utf-8") as f:
            devices = json.load(f)["devices"]
    except (OSError, ValueError, KeyError):
        return name

    def squash(s):
        return "".join(c for c in s.lower() if c.isalnum())

    for norm in (lambda s: s, str.lower, squash):
        hits = {d["name"] for d in devices for n in [d["name"], *d.get("aliases", [])] if norm(n) == norm(name)}
        if len(hits) == 1:
            return hits.pop()
    known = ", ".join(d["name"] for d in devices)
    raise InputError(f"unknown device type '{name}' for --device-type (known: {known})")


def hardware_name(device):
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return "CPU: " + line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU: " + (platform.processor() or platform.machine())


def software_versions(device):
    parts = [f"torch {torch.__version__}"]
    if device.type == "cuda":
        parts.append(f"CUDA {torch.version.cuda}")
    parts.append(f"Python {platform.python_version()}")
    return ", ".join(parts)


def profile_json(model, device_type, device, sequence, precision, tables, max_micro_batch):
    """tables: {(tp, mbs): [LayerMeasurement]}; max_micro_batch: {tp: largest fitting size} where an
    out-of-memory stopped the sweep."""
    entry = {"device": device_type, "hardware": hardware_name(device), "tool": f"hetplan-profile {VERSION}",
             "software": software_versions(device)}
    if max_micro_batch:
        entry["max_micro_batch"] = [{"tp": tp, "micro_batch": mbs} for tp, mbs in sorted(max_micro_batch.items())]
    out = {"schema": "hetplan.profile/1", "model": model, "source": "hetplan-profile", "sequence_length": sequence,
           "precision": precision, "measured_on": [entry], "tables": []}
    for (tp, mbs), layers in sorted(tables.items()):
        out["tables"].append({"device": device_type, "tp": tp, "micro_batch": mbs, "layers": [
            {"forward": m.forward, "backward": m.backward, "update": m.update, "activation_bytes": m.activation_bytes,
             "peak_bytes": m.peak_bytes, "tp_allreduce_bytes": m.tp_allreduce_bytes} for m in layers]})
    return out


def write_json(path, doc):
    """Written to a temporary file and renamed: never a half-written profile."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".hetplan-profile-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
    except OSError as e:
        raise InputError(f"{path}: cannot be written: {e.strerror}")
