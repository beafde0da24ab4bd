// The planning request of `plan` and `compare`, from the command line.
#include "cli.h"

#include "core/base/errors.h"
#include "core/base/physical_ranges.h"
#include "core/base/quote.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "core/model/job_fields.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <sstream>

namespace hetplan::cli {

namespace {
bool selected(const FieldSpec<Job>& f, const std::vector<std::string>& keys)
{
    return !f.flag.empty() && (keys.empty() || std::find(keys.begin(), keys.end(), f.decl.key) != keys.end());
}

std::string metavar(const OptionDecl& d)
{
    switch (d.type) {
    case OptionType::Int: return "N";
    case OptionType::Real: return "NUMBER";
    case OptionType::Choice: return d.typeName();
    case OptionType::Bool: break;
    }
    return {};
}

// "<help> (1-10000000 samples; default: the job's, else 32)." A job file's value wins over the default, the
// flag over both.
std::string flagHelp(const FieldSpec<Job>& f)
{
    const OptionDecl& d = f.decl;
    if (d.type == OptionType::Bool)
        return d.help + (d.defaultValue == "true" ? " (turns " + d.key + " off)." : ".");
    std::string range;
    if (d.type != OptionType::Choice)
        range = numberText(d.min) + "-" + numberText(d.max) + (f.unit.empty() ? "" : " " + f.unit) + "; ";
    return d.help + " (" + range + "default: the job's, else " +
           (f.defaultNote.empty() ? d.defaultValue : f.defaultNote) + ").";
}
} // namespace

void addJobOptions(CommandLine& cl, const std::vector<std::string>& keys)
{
    for (const FieldSpec<Job>& f : jobFields()) {
        if (!selected(f, keys))
            continue;
        if (f.decl.type == OptionType::Bool)
            cl.addFlag(f.flag, flagHelp(f));
        else
            cl.addOption(f.flag, metavar(f.decl), flagHelp(f));
    }
}

void applyJobOptions(const CommandLine& a, Job& job, const std::vector<std::string>& keys)
{
    for (const FieldSpec<Job>& f : jobFields()) {
        if (!selected(f, keys) || !a.has(f.flag))
            continue;
        if (f.decl.type == OptionType::Bool) // the flag sets the opposite of the default
            f.setNumber(job, fields_detail::defaultNumber(f.decl) != 0 ? 0 : 1);
        else
            setFieldText(f, job, a.get(f.flag), "--" + f.flag);
    }
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
    addJobOptions(cl);
    cl.addOption("profile", "FILE|example:NAME",
                 "Measured profile JSON or a bundled example profile, e.g. example:gpt2-xl-ditto (repeatable; later "
                 "files win).");
    cl.addOption("option", "key=value", "Planner option (repeatable); 'hetplan-cli plan --help' lists them.");
    cl.addOption("without", "NODE[,NODE...]", "Plan on the cluster minus these (failed) nodes.");
    cl.addOption("reuse", "PLAN.json",
                 "Re-instantiate the templates an earlier plan stored (oobleck, ditto) instead of searching again.");
    cl.addOption("seed", "N", "Seed of randomised planners.", "1");
    cl.addOption(
        "time-limit", "SECONDS",
        "Time limit in seconds, 0 = none: a search gets three quarters of it (at most 5 s less) and stops with its "
        "best plan so far; the rest scores that plan. `plan` counts it from its start, reading the inputs included.",
        "0");
    cl.addOption("objective", "time|cost",
                 "What the plan minimises: the iteration time (default) or the dollars per million tokens at the "
                 "GPUs' prices (catalog and node price_per_gpu_hour).",
                 "time");
    cl.addOption("budget", "DOLLARS_PER_HOUR", "Only plans whose GPUs cost at most this per hour (0 = no budget).");
    cl.addOption("min-throughput", "TOKENS_PER_S", "Only plans reaching this many tokens/s (0 = no floor).");
    cl.addFlag("select-gpus",
               "Also try subsets of the nodes (without a type, fewer nodes) and keep the best plan; implied by "
               "--objective cost, --budget and --min-throughput.");
}

namespace {
Job jobFromArgs(const CommandLine& a)
{
    Job job;
    if (a.has("job"))
        job = readJob(a.get("job"));
    applyJobOptions(a, job);
    try {
        job.validate("job"); // a rule across fields (sequence parallelism on DeepSpeed's engine)
    } catch (const InputError& e) {
        throw withJobSource(e, a); // names the flag or the file that set the field
    }
    return job;
}

// The sequence length asked for: --seq, else the job file's if it names one, else 0 (the model's).
int sequenceFromArgs(const CommandLine& a, const Job& job)
{
    if (a.has("seq") || (a.has("job") && readJsonFile(a.get("job")).contains("sequence_length")))
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
    if (!parseObjectiveGoal(a.get("objective"), req.objective.goal))
        throw InputError("--objective", "argument", "expected time or cost, got '" + a.get("objective") + "'");
    const auto bounded = [&](const std::string& flag, const PhysicalRange& range, double& out) {
        if (!a.has(flag))
            return;
        out = a.number(flag);
        checkRange(range, out, "--" + flag, "argument");
    };
    bounded("budget", ranges::kBudget, req.objective.budgetDollarsPerHour);
    bounded("min-throughput", ranges::kThroughputFloor, req.objective.minTokensPerSecond);
    req.selectGpus = a.flag("select-gpus");
    req.timeLimitSeconds = a.number("time-limit");
    if (std::isnan(req.timeLimitSeconds) || req.timeLimitSeconds < 0)
        throw InputError("--time-limit", "argument", "must be a non-negative number of seconds");
}
} // namespace

std::string jobFieldSource(const CommandLine& a, const std::string& field)
{
    const FieldSpec<Job>* f = findField(jobFields(), field);
    const std::string flag = f && !f->flag.empty() ? "--" + f->flag : std::string();
    if (!flag.empty() && a.has(f->flag))
        return flag;
    if (a.has("job"))
        return a.get("job");
    return flag.empty() ? std::string("--job") : flag; // a default value
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
