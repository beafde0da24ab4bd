#include "cli.h"

#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "core/base/errors.h"

#include <algorithm>
#include <cmath>
#include <ostream>

namespace hetplan::cli {

Args::Args(const std::vector<std::string>& argv, std::initializer_list<const char*> valueKeys,
           std::initializer_list<const char*> flagKeys)
{
    std::map<std::string, bool> isValue, isFlag;
    for (const char* k : valueKeys)
        isValue[k] = true;
    for (const char* k : flagKeys)
        isFlag[k] = true;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.rfind("--", 0) != 0) {
            positional_.push_back(a);
            continue;
        }
        std::string key = a.substr(2), value;
        bool inlineValue = false;
        if (auto eq = key.find('='); eq != std::string::npos) {
            value = key.substr(eq + 1);
            key = key.substr(0, eq);
            inlineValue = true;
        }
        if (isFlag.count(key)) {
            flags_[key] = true;
            continue;
        }
        if (!isValue.count(key))
            throw InputError(a, "argument", "unknown option");
        if (!inlineValue) {
            if (i + 1 >= argv.size())
                throw InputError(a, "argument", "missing value");
            value = argv[++i];
        }
        values_[key].push_back(value);
    }
}

std::string Args::get(const std::string& key) const
{
    auto it = values_.find(key);
    if (it == values_.end())
        throw InputError("--" + key, "argument", "required");
    return it->second.back();
}

std::string Args::get(const std::string& key, const std::string& def) const { return has(key) ? get(key) : def; }

std::vector<std::string> Args::all(const std::string& key) const
{
    auto it = values_.find(key);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
}

int Args::integer(const std::string& key, int def) const
{
    if (!has(key))
        return def;
    const std::string v = get(key);
    try {
        size_t used = 0;
        long long x = std::stoll(v, &used);
        if (used != v.size() || x < -2000000000LL || x > 2000000000LL)
            throw std::invalid_argument("x");
        return int(x);
    } catch (const std::exception&) {
        throw InputError("--" + key, "argument", "expected an integer, got '" + v + "'");
    }
}

double Args::number(const std::string& key, double def) const
{
    if (!has(key))
        return def;
    const std::string v = get(key);
    try {
        size_t used = 0;
        double x = std::stod(v, &used);
        if (used != v.size())
            throw std::invalid_argument("x");
        return x;
    } catch (const std::exception&) {
        throw InputError("--" + key, "argument", "expected a number, got '" + v + "'");
    }
}

PlanRequest requestFromArgs(const Args& a)
{
    PlanRequest req;
    Job job;
    if (a.has("job"))
        job = readJob(a.get("job"));
    if (a.has("gbs")) {
        job.globalBatchSize = a.integer("gbs", job.globalBatchSize);
        if (job.globalBatchSize < 1 || job.globalBatchSize > kMaxBatch)
            throw InputError("--gbs", "global_batch_size", "must be between 1 and " + std::to_string(kMaxBatch));
    }
    if (a.has("zero")) {
        job.zeroStage = a.integer("zero", 0);
        if (job.zeroStage < 0 || job.zeroStage > 3)
            throw InputError("--zero", "zero_stage", "must be 0, 1, 2 or 3");
    }
    int seq = 0;
    if (a.has("seq")) {
        seq = a.integer("seq", 0);
        if (seq < 1)
            throw InputError("--seq", "sequence_length", "must be at least 1");
    } else if (a.has("job") && readJsonFile(a.get("job")).contains("sequence_length")) {
        seq = job.sequenceLength;
    }
    req.cluster = loadCluster(a.get("cluster"));
    req.model = loadModel(a.get("model"), seq);
    if (seq > 0 && req.model.arch.sequence > 0 && req.model.arch.sequence != seq)
        throw InputError(a.get("model"), "arch.sequence",
                         "model is built for sequence length " + std::to_string(req.model.arch.sequence) +
                             ", the job asks for " + std::to_string(seq));
    // The model's own sequence length is the job's unless the user said otherwise.
    job.sequenceLength = req.model.arch.sequence > 0 ? req.model.arch.sequence : (seq > 0 ? seq : job.sequenceLength);
    job.validate("--job");
    req.job = job;
    // --profile may repeat: later files win for the same (device, tp, micro-batch).
    for (const std::string& path : a.all("profile")) {
        Profile p = readProfile(path);
        if (p.layerCount() != req.model.layerCount())
            throw InputError(path, "layers",
                             "profile has " + std::to_string(p.layerCount()) + " layers, model '" +
                                 req.model.name + "' has " + std::to_string(req.model.layerCount()));
        req.profile.merge(p);
    }
    for (const std::string& kv : a.all("option")) {
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw InputError("--option", kv, "expected key=value");
        req.options[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    if (a.has("seed")) {
        const std::string s = a.get("seed");
        if (s.empty() || s.size() > 19 || !std::all_of(s.begin(), s.end(), ::isdigit))
            throw InputError("--seed", "argument", "expected a non-negative integer, got '" + s + "'");
        req.seed = std::stoull(s);
    }
    req.timeLimitSeconds = a.number("time-limit", 0);
    if (std::isnan(req.timeLimitSeconds) || req.timeLimitSeconds < 0)
        throw InputError("--time-limit", "argument", "must be a non-negative number of seconds");
    return req;
}

namespace {
void usage(std::ostream& out)
{
    out << "usage: hetplan-cli <command> [options]\n"
           "  list planners|examples|devices\n"
           "  plan     --cluster FILE|example:NAME --model FILE|example:NAME [--gbs N] [--seq N] [--zero K]\n"
           "           [--job FILE] [--profile FILE]... --planner NAME [--option key=value]... [--out plan.json]\n"
           "           [--seed N] [--time-limit SECONDS]\n"
           "  compare  --cluster ... --model ... [--planners a,b|all] [--out report.json] (+ plan's options)\n"
           "  simulate --plan plan.json [--trace trace.json]\n"
           "  export   --plan plan.json --format plan|deepspeed|megatron|hostfile|ranks|chrome-trace [--out FILE]\n"
           "  import   --format native|oobleck|sailor|amp-npy|csv --in PATH --out profile.json\n"
           "           [--device TYPE] [--tp N] [--model NAME] [--compact-gpt2] [--backward-factor F]\n"
           "exit codes: 0 ok, 2 bad input, 3 no feasible plan, 4 cancelled or time limit hit\n";
}
} // namespace

int run(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err)
{
    try {
        if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
            usage(argv.empty() ? err : out);
            return argv.empty() ? BadInput : Ok;
        }
        const std::string cmd = argv[0];
        const std::vector<std::string> rest(argv.begin() + 1, argv.end());
        if (cmd == "list")
            return cmdList(rest, out);
        if (cmd == "plan")
            return cmdPlan(rest, out, err);
        if (cmd == "import")
            return cmdImport(rest, out);
        if (cmd == "compare")
            return cmdCompare(rest, out, err);
        if (cmd == "simulate")
            return cmdSimulate(rest, out);
        if (cmd == "export")
            return cmdExport(rest, out);
        throw InputError(cmd, "command", "unknown command (try --help)");
    } catch (const InputError& e) {
        err << "error: " << e.what() << "\n";
        return BadInput;
    } catch (const InfeasibleError& e) {
        err << "error: no feasible plan: " << e.what() << "\n";
        return Infeasible;
    } catch (const CancelledError& e) {
        err << "error: " << e.what() << "\n";
        return Cancelled;
    } catch (const std::exception& e) {
        // Anything else is a bug; still never crash.
        err << "error: internal: " << e.what() << "\n";
        return 1;
    }
}

} // namespace hetplan::cli
