#!/usr/bin/python3
"""ctest tst_profiler: tools/profiler/hetplan-profile on a tiny GPT (2 blocks, hidden 64) on the CPU at
micro-batch sizes 1 and 8 and tp 1 and 2, then `hetplan-cli import` (two device types merged) and
`hetplan-cli plan` with the result. Exits 77 (ctest SKIP_RETURN_CODE) only when PyTorch is missing.

usage: test_profiler.py HETPLAN_CLI SOURCE_DIR"""

import contextlib
import copy
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import torch  # noqa: F401
except ImportError:
    print("SKIP: PyTorch is not installed for", sys.executable, "(Debian: apt install python3-torch)")
    sys.exit(77)

CLI, SOURCE = sys.argv[1], sys.argv[2]
PROFILER = os.path.join(SOURCE, "tools", "profiler", "hetplan-profile")
FIXTURES = os.path.join(SOURCE, "tests", "fixtures", "profiler")
MODEL = os.path.join(FIXTURES, "tiny-gpt.model.json")
CLUSTER = os.path.join(FIXTURES, "two-types.cluster.json")
JOB = os.path.join(FIXTURES, "tiny.job.json")  # fp32, as the CPU measured
sys.dont_write_bytecode = True  # the test leaves the source tree as it found it
sys.path.insert(0, os.path.join(SOURCE, "tools", "profiler"))
from hetplan_profiler.cli import main as profiler_main  # noqa: E402

# One intra-op thread: a loaded 2-core CI machine makes thread pools spin; timings stay comparable.
ENV = dict(os.environ, OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
# The tiny GPT, fp32: values are 4 bytes; sequence 32, hidden 64.
S, H, VALUE = 32, 64, 4


def profile(*args):
    return subprocess.run([sys.executable, PROFILER, "--model", MODEL, *args], env=ENV, capture_output=True,
                          text=True, timeout=240)


def in_process(*args):
    """(exit code, stdout, stderr) of the tool's main() run here: no second PyTorch start-up (about a CPU
    second each) for the checks that measure nothing."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = profiler_main(list(args))
    return code, out.getvalue(), err.getvalue()


def layers_of(doc, tp, mbs, device="A100-80GB"):
    [table] = [t for t in doc["tables"] if (t["device"], t["tp"], t["micro_batch"]) == (device, tp, mbs)]
    return table["layers"]


class Profiler(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.tmp.name, "tiny.json")
        r = profile("--device", "cpu", "--device-type", "a100_80gb", "--mbs", "8,1", "--tp", "1,2",
                    "--warmup", "1", "--runs", "5", "--out", cls.path)
        cls.run_result = r
        assert r.returncode == 0, r.stderr
        with open(cls.path) as f:
            cls.doc = json.load(f)

    def test_file_records_model_device_sequence_precision_and_tool(self):
        d = self.doc
        self.assertEqual(d["schema"], "hetplan.profile/1")
        self.assertEqual(d["model"], "tiny-gpt")
        self.assertEqual((d["sequence_length"], d["precision"]), (S, "fp32"))
        [m] = d["measured_on"]
        self.assertEqual(m["device"], "A100-80GB")  # the alias given, as the catalog names it
        self.assertTrue(m["tool"].startswith("hetplan-profile "))
        self.assertIn("torch ", m["software"])
        self.assertTrue(m["hardware"].startswith("CPU"))
        self.assertNotIn("max_micro_batch", m)  # nothing ran out of memory
        keys = sorted((t["device"], t["tp"], t["micro_batch"], len(t["layers"])) for t in d["tables"])
        self.assertEqual(keys, [("A100-80GB", tp, mbs, 4) for tp in (1, 2) for mbs in (1, 8)])

    def test_progress_names_layers_and_micro_batches(self):
        self.assertIn("tp 1: layer 2/4 block0, micro-batch 8 [2/2]", self.run_result.stderr)

    def test_times_are_positive(self):
        for t in self.doc["tables"]:
            for layer in t["layers"]:
                self.assertGreater(layer["forward"], 0)
                self.assertGreater(layer["backward"], 0)
                self.assertGreater(layer["update"], 0)  # every layer has parameters for AdamW to step

    def test_eight_samples_take_longer_than_one(self):
        # Medians of 5 runs; 8x the work of the two blocks together, so robust on a loaded machine.
        def blocks(mbs):
            return sum(layer["forward"] + layer["backward"] for layer in layers_of(self.doc, 1, mbs)[1:3])
        self.assertGreater(blocks(8), blocks(1))

    def test_memory_grows_with_the_batch_and_holds_the_parameters(self):
        # Parameters in memory, hand-computed (tiny-gpt.model.json): the head holds the tied 512 x 64 decoder
        # matrix too, though hetplan counts its parameters in the embedding.
        params = [34816, 49984, 49984, 128 + 512 * 64]
        for one, eight, n in zip(layers_of(self.doc, 1, 1), layers_of(self.doc, 1, 8), params):
            self.assertGreater(one["activation_bytes"], 0)
            self.assertGreater(eight["activation_bytes"], one["activation_bytes"])
            # CPU peak = parameters + activations.
            self.assertEqual(one["peak_bytes"], n * VALUE + one["activation_bytes"])

    def test_tensor_parallel_shard_records_its_allreduce_volume(self):
        for mbs in (1, 8):
            self.assertEqual([x["tp_allreduce_bytes"] for x in layers_of(self.doc, 1, mbs)], [0, 0, 0, 0])
            # Megatron: the embedding's and head's one s x h all-reduce, a block's two (attention and MLP).
            one = mbs * S * H * VALUE
            self.assertEqual([x["tp_allreduce_bytes"] for x in layers_of(self.doc, 2, mbs)],
                             [one, 2 * one, 2 * one, one])
        for whole, shard in zip(layers_of(self.doc, 1, 8)[1:3], layers_of(self.doc, 2, 8)[1:3]):
            self.assertLess(shard["activation_bytes"], whole["activation_bytes"])

    def test_layers_have_the_model_json_parameter_counts(self):
        code, out, err = in_process("--model", MODEL, "--describe", "--tp", "1,2")
        self.assertEqual(code, 0, err)
        counts = [int(line.split()[2]) for line in out.splitlines() if line.strip()[:1].isdigit()]
        with open(MODEL) as f:
            model = [layer["params"] for layer in json.load(f)["layers"]]
        # tp 2 by hand: half the vocabulary (256 x 64) + positions (32 x 64); a block with half the heads and
        # MLP width: qkv 64x96+96, out 32x64+64, up 64x128+128, down 128x64+64, two norms 4x64.
        self.assertEqual(counts, model + [256 * 64 + 32 * 64, 25184, 25184, 128])

    def test_examples_have_their_published_parameter_counts(self):
        published = {"gpt2-xl": 1557611200, "llama2-7b": 6738415616, "opt-350m": 331196416}
        for name, params in published.items():
            code, out, err = in_process("--model", name, "--describe")
            self.assertEqual(code, 0, err)
            self.assertIn(f"total params {params}", out, name)

    def test_out_of_memory_stops_and_records_the_largest_size_that_fits(self):
        fits_one = max(x["peak_bytes"] for x in layers_of(self.doc, 1, 1))
        out = os.path.join(self.tmp.name, "limited.json")
        r = profile("--device", "cpu", "--device-type", "A100-80GB", "--mbs", "1,8", "--warmup", "0", "--runs", "1",
                    "--memory-limit", str(fits_one), "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("out of memory at micro-batch 8", r.stderr)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual([t["micro_batch"] for t in doc["tables"]], [1])
        self.assertEqual(doc["measured_on"][0]["max_micro_batch"], [{"tp": 1, "micro_batch": 1}])

        nothing = os.path.join(self.tmp.name, "nothing.json")
        r = profile("--device", "cpu", "--device-type", "A100-80GB", "--mbs", "1", "--runs", "1",
                    "--memory-limit", "1000", "--out", nothing)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertFalse(os.path.exists(nothing))

    def test_bad_input_is_exit_code_2_with_a_message(self):
        never = os.path.join(self.tmp.name, "never.json")
        cases = [(["--model", "no-such-model", "--describe"], "unknown model 'no-such-model'"),
                 (["--model", MODEL, "--mbs", "1,0", "--describe"], "--mbs: expected positive integers"),
                 (["--model", MODEL, "--device", "cpu", "--device-type", "A100-80GB", "--precision", "fp16",
                   "--out", never], "fp16 is not supported on the CPU")]
        if not torch.cuda.is_available():
            cases.append((["--model", MODEL, "--device", "cuda", "--device-type", "H100-SXM", "--out", never],
                          "no CUDA GPU is visible"))
        for args, message in cases:
            code, _, err = in_process(*args)
            self.assertEqual(code, 2, args)
            self.assertIn(message, err)
        self.assertFalse(os.path.exists(never))

    def test_import_merges_two_device_types_and_plans_with_them(self):
        # The second GPU type's file, as the profiler on that machine would write it.
        other = copy.deepcopy(self.doc)
        other["measured_on"][0]["device"] = "V100-32GB"
        for t in other["tables"]:
            t["device"] = "V100-32GB"
        second = os.path.join(self.tmp.name, "v100.json")
        with open(second, "w") as f:
            json.dump(other, f)
        merged = os.path.join(self.tmp.name, "merged.json")
        r = subprocess.run([CLI, "import", "--format", "native", "--in", self.path, "--in", second, "--out", merged],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(merged) as f:
            m = json.load(f)
        self.assertEqual(sorted({t["device"] for t in m["tables"]}), ["A100-80GB", "V100-32GB"])
        self.assertEqual(len(m["tables"]), 8)
        self.assertEqual(sorted(x["device"] for x in m["measured_on"]), ["A100-80GB", "V100-32GB"])
        self.assertEqual(layers_of(m, 2, 8, "V100-32GB")[1]["tp_allreduce_bytes"], 2 * 8 * S * H * VALUE)

        plan = os.path.join(self.tmp.name, "plan.json")
        r = subprocess.run([CLI, "plan", "--cluster", CLUSTER, "--model", MODEL, "--profile", merged, "--job", JOB, "--planner", "uniform",
                            "--out", plan], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(plan) as f:
            p = json.load(f)
        self.assertEqual(p["inputs"]["profile"]["precision"], "fp32")
        self.assertGreater(len(p["inputs"]["profile"]["tables"]), 0)

    def test_every_family_runs_forward_and_backward_whole_and_sharded(self):
        # Each example's family (rotary + grouped-query + SwiGLU, BERT's post-norm and head, MoE routing, ViT
        # patches, OPT's narrow embeddings) shrunk to a toy: the code paths run, not the published sizes.
        from hetplan_profiler.archs import example_arch
        from hetplan_profiler.layers import build_layer, layer_names
        from hetplan_profiler.measure import LayerRunner
        for name in ("gpt2-amp", "opt-350m", "llama2-7b", "llama-0.5b", "bert-base", "bert-moe", "vit-base"):
            a = example_arch(name)
            a.layers, a.hidden, a.heads, a.ffn, a.sequence = 2, 64, 8, 128, 17
            a.kv_heads, a.vocab = min(a.kv_heads, 2), min(a.vocab, 256)
            a.embed_dim, a.positions = min(a.embed_dim, 32), min(a.positions, 17)
            for tp in (1, 2):
                for i, layer_name in enumerate(layer_names(a)):
                    layer = build_layer(a, i, tp, torch.device("cpu"), torch.float32)
                    m = LayerRunner(layer, 2, a.sequence, torch.device("cpu")).measure(0, 1,
                                                                                      layer.tp_allreduce_elements)
                    with self.subTest(model=name, tp=tp, layer=layer_name):
                        self.assertGreater(m.forward, 0)
                        self.assertGreater(m.activation_bytes, 0)

    def test_compare_analytic_sums_each_layer_kind(self):
        analytic = os.path.join(self.tmp.name, "analytic.json")
        r = subprocess.run([CLI, "profile", "--model", MODEL, "--device", "A100-80GB", "--mbs", "1,8",
                            "--precision", "fp32", "--out", analytic], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        compare = os.path.join(SOURCE, "tools", "profiler", "compare-analytic")
        r = subprocess.run([sys.executable, compare, self.path, analytic], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [line.split() for line in r.stdout.splitlines()[1:]]
        # tp 1 at micro-batches 1 and 8 are in both files: three kinds each; tp 2 only in the measured one.
        self.assertEqual([(x[1], x[2], x[3]) for x in lines],
                         [(tp, mbs, kind) for tp, mbs in (("1", "1"), ("1", "8"))
                          for kind in ("embedding", "transformer", "head")])
        blocks = layers_of(self.doc, 1, 8)[1:3]
        self.assertAlmostEqual(float(lines[4][4]), sum(x["forward"] for x in blocks) * 1e3, places=2)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[3:])
