// The planning request of `plan` and `compare`, from the command line.
#include "cli.h"

#include "core/base/errors.h"
#include "core/base/quote.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <sstream>

namespace hetplan::cli {

void addFrameworkOptions(CommandLine& cl)
{
    cl.addOption("framework", "NAME",
                 "Whose pipeline sends to model: megatron-core (whole tensor per tensor-parallel rank), "
                 "megatron-legacy (Megatron-DeepSpeed: 1/tp each, all-gathered by the receiver) or deepspeed-pipe "
                 "(the same, DeepSpeed's partitioned pipe) (default: the job's, else megatron-core).");
    cl.addFlag("sequence-parallel", "Megatron's sequence parallelism: pipeline sends of (s/tp, b, h) per rank.");
    cl.addFlag("no-tf32", "fp32 jobs: matrix products on the CUDA cores, as plain PyTorch runs them (TF32 off).");
}

void applyFrameworkOptions(const CommandLine& a, Job& job, const std::string& file)
{
    if (a.has("framework")) {
        const std::string fw = a.get("framework");
        if (!parseFramework(fw, job.framework))
            throw InputError("--framework", "framework",
                             "expected megatron-core, megatron-legacy or deepspeed-pipe, got " + quotedInput(fw));
    }
    if (a.flag("sequence-parallel"))
        job.sequenceParallel = true;
    if (a.flag("no-tf32"))
        job.tf32 = false;
    job.validate(file);
}

void warnIdleSequenceParallel(const Plan& plan, std::ostream& err)
{
    if (!plan.job.sequenceParallel || plan.pipelines.empty())
        return;
    for (const Pipeline& pl : plan.pipelines)
        for (const Stage& st : pl.stages)
            if (st.tensorParallel > 1)
                return;
    err << "warning: job.sequence_parallel: the plan has no tensor parallelism, so sequence parallelism changes "
           "nothing (Megatron turns it off with a warning; the launch script does not write it)\n";
}

void addRequestOptions(CommandLine& cl)
{
    cl.addOption("cluster", "FILE|example:NAME", "The cluster: a cluster JSON file or a bundled example.");
    cl.addOption("model", "FILE|example:NAME", "The model: a model JSON file or a bundled example.");
    cl.addOption("job", "FILE", "Job JSON (batch, sequence, precision, ZeRO, schedule); the flags below override it.");
    cl.addOption("gbs", "N", "Global batch size (default: the job's, else 32).");
    cl.addOption("seq", "N", "Sequence length (default: the job's, else the model's).");
    cl.addOption("zero", "K", "ZeRO stage 0-3 (default: the job's, else 0).");
    cl.addOption("memory-margin", "FRACTION",
                 "Share of every GPU's memory a plan leaves free on top of what the memory model counts "
                 "(allocator fragmentation), 0-0.5 (default: the job's, else 0).");
    addFrameworkOptions(cl);
    cl.addOption("profile", "FILE|example:NAME",
                 "Measured profile JSON or a bundled example profile, e.g. example:gpt2-xl-ditto (repeatable; later "
                 "files win).");
    cl.addOption("option", "key=value", "Planner option (repeatable); 'hetplan-cli plan --help' lists them.");
    cl.addOption("without", "NODE[,NODE...]", "Plan on the cluster minus these (failed) nodes.");
    cl.addOption("reuse", "PLAN.json",
                 "Re-instantiate the templates an earlier plan stored (oobleck, ditto) instead of searching again.");
    cl.addOption("seed", "N", "Seed of randomised planners.", "1");
    cl.addOption("time-limit", "SECONDS", "Stop the search after this long; 0 = no limit.", "0");
}

namespace {
Job jobFromArgs(const CommandLine& a)
{
    Job job;
    if (a.has("job"))
        job = readJob(a.get("job"));
    if (a.has("gbs")) {
        job.globalBatchSize = a.integer("gbs");
        if (job.globalBatchSize < 1 || job.globalBatchSize > kMaxBatch)
            throw InputError("--gbs", "global_batch_size", "must be between 1 and " + std::to_string(kMaxBatch));
    }
    if (a.has("zero")) {
        job.zeroStage = a.integer("zero");
        if (job.zeroStage < 0 || job.zeroStage > 3)
            throw InputError("--zero", "zero_stage", "must be 0, 1, 2 or 3");
    }
    if (a.has("memory-margin")) {
        job.memoryMargin = a.number("memory-margin");
        if (!(job.memoryMargin >= 0 && job.memoryMargin <= 0.5))
            throw InputError("--memory-margin", "memory_margin", "must be a fraction between 0 and 0.5");
    }
    applyFrameworkOptions(a, job, "--framework");
    return job;
}

// The sequence length asked for: --seq, else the job file's if it names one, else 0 (the model's).
int sequenceFromArgs(const CommandLine& a, const Job& job)
{
    if (a.has("seq")) {
        const int seq = a.integer("seq");
        if (seq < 1)
            throw InputError("--seq", "sequence_length", "must be at least 1");
        return seq;
    }
    if (a.has("job") && readJsonFile(a.get("job")).contains("sequence_length"))
        return job.sequenceLength;
    return 0;
}

// --profile may repeat: later files win for the same (device, tp, micro-batch).
Profile profileFromArgs(const CommandLine& a, const ModelSpec& model, const Job& job)
{
    Profile merged;
    for (const std::string& path : a.all("profile")) {
        Profile p = loadProfile(path, model, job);
        if (p.layerCount() != model.layerCount())
            throw InputError(path, "layers",
                             "profile has " + std::to_string(p.layerCount()) + " layers, model '" + model.name +
                                 "' has " + std::to_string(model.layerCount()));
        merged.merge(p);
    }
    return merged;
}

void searchFromArgs(const CommandLine& a, PlanRequest& req)
{
    for (const std::string& kv : a.all("option")) {
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw InputError("--option", fieldKey(kv), "expected key=value");
        req.options[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    if (a.has("seed")) {
        const std::string s = a.get("seed");
        if (s.empty() || s.size() > 19 || !std::all_of(s.begin(), s.end(), ::isdigit))
            throw InputError("--seed", "argument", "expected a non-negative integer, got '" + s + "'");
        req.seed = std::stoull(s);
    }
    req.timeLimitSeconds = a.number("time-limit");
    if (std::isnan(req.timeLimitSeconds) || req.timeLimitSeconds < 0)
        throw InputError("--time-limit", "argument", "must be a non-negative number of seconds");
}
} // namespace

std::string jobFieldSource(const CommandLine& a, const std::string& field)
{
    static const std::map<std::string, std::string> flags{
        {"global_batch_size", "gbs"}, {"sequence_length", "seq"}, {"zero_stage", "zero"}, {"memory_margin", "memory-margin"}};
    const auto flag = flags.find(field);
    if (flag != flags.end() && a.has(flag->second))
        return "--" + flag->second;
    if (a.has("job"))
        return a.get("job");
    return flag != flags.end() ? "--" + flag->second : std::string("--job"); // a default value
}

InputError withJobSource(const InputError& e, const CommandLine& a)
{
    return e.file() == "job" ? e.inFile(jobFieldSource(a, e.field())) : e;
}

void noteFailedNodes(const PlanRequest& req, std::ostream& err)
{
    const std::vector<std::string> failed = failedNodeNames(req.cluster);
    if (failed.empty())
        return;
    std::string list;
    for (const std::string& n : failed)
        list += (list.empty() ? "" : ", ") + n;
    err << "note: leaving out the node(s) the cluster marks failed: " << escapeControls(list) << "\n";
}

PlanRequest requestFromArgs(const CommandLine& a)
{
    PlanRequest req;
    Job job = jobFromArgs(a);
    const int seq = sequenceFromArgs(a, job);
    req.cluster = loadCluster(a.get("cluster"));
    if (a.has("without")) {
        std::vector<std::string> names;
        std::stringstream list(a.get("without"));
        for (std::string n; std::getline(list, n, ',');)
            if (!n.empty())
                names.push_back(n);
        if (names.empty())
            throw InputError("--without", "argument", "expected NODE[,NODE...]");
        req.cluster = withoutNodes(req.cluster, names, "--without");
        if (req.cluster.nodes.empty())
            throw InputError("--without", "argument", "no node of the cluster would be left");
    }
    if (a.has("reuse"))
        req.reuse = readPlan(a.get("reuse")).details;
    req.model = loadModel(a.get("model"), seq);
    if (seq > 0 && req.model.arch.sequence > 0 && req.model.arch.sequence != seq)
        throw InputError(a.get("model"), "arch.sequence",
                         "model is built for sequence length " + std::to_string(req.model.arch.sequence) +
                             ", the job asks for " + std::to_string(seq));
    // The model's own sequence length is the job's unless the user said otherwise.
    job.sequenceLength = req.model.arch.sequence > 0 ? req.model.arch.sequence : (seq > 0 ? seq : job.sequenceLength);
    job.validate("--job");
    req.job = job;
    req.profile = profileFromArgs(a, req.model, req.job);
    searchFromArgs(a, req);
    return req;
}

} // namespace hetplan::cli
