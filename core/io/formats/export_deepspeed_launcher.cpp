// A Python module for a DeepSpeed training script: the plan's topology, layer partition and batches, in
// the form DeepSpeed takes them (PipelineModule arguments), which its config cannot carry (see exporters.h).
#include "core/io/exporters.h"

#include "core/io/formats/export_util.h"

#include <QString>

#include <cstdio>
#include <map>

namespace hetplan {

using namespace exportutil;

std::string exportutil::pythonString(const std::string& s)
{
    std::string out = "'";
    for (char32_t c : QString::fromUtf8(s.data(), qsizetype(s.size())).toUcs4()) {
        char buf[16];
        if (c == '\\' || c == '\'')
            out += std::string("\\") + char(c);
        else if (c >= 0x20 && c < 0x7f)
            out += char(c);
        else {
            std::snprintf(buf, sizeof buf, c < 0x100 ? "\\x%02x" : c < 0x10000 ? "\\u%04x" : "\\U%08x", unsigned(c));
            out += buf;
        }
    }
    return out + "'";
}

namespace {

std::string tuple(const std::vector<std::string>& items, const std::string& indent)
{
    if (items.empty())
        return "()";
    std::string out = "(";
    for (const std::string& i : items)
        out += "\n" + indent + i + ",";
    return out + "\n)";
}

std::string intTuple(const std::vector<int>& v)
{
    std::string out = "(";
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + std::to_string(v[i]);
    return out + (v.size() == 1 ? ",)" : ")");
}

std::string constant(const std::string& name, long long v, const std::string& comment)
{
    return name + " = " + std::to_string(v) + "  # " + comment + "\n";
}

std::string rankBatches(const Plan& plan)
{
    std::map<int, const ZeroGpu*> byGpu;
    for (const ZeroGpu& g : plan.zero->gpus)
        byGpu[g.gpu] = &g;
    std::vector<std::string> rows;
    long long offset = 0;
    for (const RankInfo& r : plan.ranks()) {
        const ZeroGpu& g = *byGpu.at(r.gpu);
        rows.push_back("dict(rank=" + std::to_string(r.rank) + ", host=" + pythonString(r.host) +
                       ", local_rank=" + std::to_string(r.localRank) + ", micro_batch_size=" +
                       std::to_string(g.microBatchSize) + ", accumulation_steps=" + std::to_string(g.accumulationSteps) +
                       ", last_micro_batch_size=" + std::to_string(g.lastMicroBatchSize) +
                       ", samples=" + std::to_string(g.samples()) + ", sample_offset=" + std::to_string(offset) + ")");
        offset += g.samples();
    }
    return tuple(rows, "    ");
}

const char* const kFunctions = R"PY(

def coordinates(rank):
    """(pipe, data, model) of a global rank as PipeModelDataParallelTopology numbers them: model fastest,
    then data, then pipe (the plan's rank order)."""
    model = rank % TENSOR_PARALLEL
    data = rank // TENSOR_PARALLEL % DATA_PARALLEL
    pipe = rank // (TENSOR_PARALLEL * DATA_PARALLEL)
    return pipe, data, model


def topology():
    """DeepSpeed's topology for the plan (import deepspeed first)."""
    from deepspeed.runtime.pipe.topology import PipeModelDataParallelTopology
    return PipeModelDataParallelTopology(num_pp=PIPELINE_STAGES, num_mp=TENSOR_PARALLEL, num_dp=DATA_PARALLEL)


def pipeline_module(layers, **kwargs):
    """A deepspeed.pipe.PipelineModule over `layers` (one entry per name in LAYER_NAMES, in that order) with
    the plan's topology and its layer split PARTS, which none of DeepSpeed's partition methods (uniform,
    parameters, type:) can express, checkpointing activations as the plan's job does. Other keyword arguments
    go to PipelineModule."""
    if not PARTS:
        raise ValueError("this plan has no pipeline stages: pass the model to deepspeed.initialize directly")
    layers = list(layers)
    if len(layers) != PARTS[-1]:
        raise ValueError(f"the plan splits {PARTS[-1]} layers ({', '.join(LAYER_NAMES)}); got {len(layers)}")
    from deepspeed.pipe import PipelineModule

    class PlannedPipelineModule(PipelineModule):
        def _partition_layers(self, method="uniform"):
            self.parts = list(PARTS)
            stage = self._topo.get_coord(self.global_rank).pipe
            self._set_bounds(start=self.parts[stage], stop=self.parts[stage + 1])

    kwargs.setdefault("activation_checkpoint_interval", ACTIVATION_CHECKPOINT_INTERVAL)
    return PlannedPipelineModule(layers=layers, topology=topology(), **kwargs)


def rank_batches(rank):
    """This rank's micro-batch, accumulation steps, last micro-batch, samples and their offset inside each
    global batch (ZeRO plans with per-GPU batches; docs/deepspeed-rank-batches.md shows the loop)."""
    return RANK_BATCHES[rank]


def correct_sample_counter(engine):
    """Call after every engine.step() that ends an iteration: DeepSpeed adds TRAIN_BATCH_SIZE to
    engine.global_samples, the plan's iteration trains GLOBAL_BATCH_SIZE samples."""
    engine.global_samples = engine.global_steps * GLOBAL_BATCH_SIZE
)PY";

} // namespace

std::string deepSpeedLauncher(const Plan& plan)
{
    requireFramework(plan, "deepspeed");
    requirePlainNames(plan);
    const DeepSpeedShape d = deepSpeedShape(plan);
    std::string out = "# DeepSpeed launch helpers written by hetplan (planner " + plan.planner +
                      "). Import this module from the training\n"
                      "# script that deepspeed starts with the exported hostfile and config; it imports DeepSpeed "
                      "only inside the\n# functions that need it.\n";
    if (plan.job.schedule == Schedule::GPipe)
        out += "# The plan was simulated with GPipe; DeepSpeed's PipelineEngine runs its 1F1B-style TrainSchedule, "
               "which has\n# the same pipeline bubble and keeps at most as many micro-batches' activations.\n";
    out += "\n";
    out += constant("WORLD_SIZE", (long long)d.pp * d.tp * d.dp, "processes = PIPELINE_STAGES * TENSOR_PARALLEL * DATA_PARALLEL");
    out += constant("PIPELINE_STAGES", d.pp, "PipeModelDataParallelTopology num_pp");
    out += constant("TENSOR_PARALLEL", d.tp, "num_mp: your layers split their weights this many ways");
    out += constant("DATA_PARALLEL", d.dp, "num_dp");
    out += constant("GLOBAL_BATCH_SIZE", d.globalBatch, "samples per iteration in the plan");
    out += constant("TRAIN_BATCH_SIZE", d.train(), "the config's train_batch_size = micro * gas * DATA_PARALLEL");
    out += constant("TRAIN_MICRO_BATCH_SIZE_PER_GPU", d.micro, "the config's");
    out += constant("GRADIENT_ACCUMULATION_STEPS", d.gas, "the config's");
    out += constant("ZERO_STAGE", d.zeroStage, "the config's zero_optimization.stage");
    // The job's full recomputation: PipelineModule recomputes every layer in the backward (interval 1).
    out += constant("ACTIVATION_CHECKPOINT_INTERVAL", plan.job.recompute && !plan.pipelines.empty() ? 1 : 0,
                    "PipelineModule's: 1 = every layer's activations recomputed in the backward (full recompute)");
    std::vector<std::string> names;
    for (const LayerSpec& l : plan.model.layers)
        names.push_back(pythonString(l.name));
    out += "# The layers of the plan's model, in order: a PipelineModule built by pipeline_module() takes one entry "
           "per name.\nLAYER_NAMES = " +
           tuple(names, "    ") + "\n";
    out += "# Stage s builds layers PARTS[s] .. PARTS[s + 1] - 1 (empty for ZeRO plans).\nPARTS = " + intTuple(d.bounds) + "\n";
    out += "# Per rank in launch order, when ranks run different batches (empty otherwise).\nRANK_BATCHES = " +
           (d.perRank ? rankBatches(plan) : std::string("()")) + "\n";
    out += kFunctions;
    return out;
}

void registerDeepSpeedLauncherExporter(ExporterRegistry& registry)
{
    registry.add({{"deepspeed-launcher", "DeepSpeed topology, layer partition and batches (Python module)", "*.py", ".py"},
                  deepSpeedLauncher, true});
}

} // namespace hetplan
