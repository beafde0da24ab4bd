#pragma once
// hetplan-cli: command dispatch and the shared argument handling. Commands print a short human table on
// stdout and, with --out, write JSON atomically. Exit codes: 0 ok, 2 bad input, 3 no feasible
// plan, 4 cancelled / time limit.
#include "command_line.h"

#include "core/base/errors.h"
#include "core/io/format_registry.h"
#include "core/model/job.h"
#include "core/planners/planner.h"

#include <initializer_list>
#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hetplan::cli {

enum ExitCode { Ok = 0, BadInput = 2, Infeasible = 3, Cancelled = 4 };

using CommandFn = int (*)(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
struct Command {
    const char* name;
    const char* usage;   // after "hetplan-cli " in the command's help
    const char* summary; // one line, in the top-level help and atop the command's own
    CommandFn run;
};
// In the order the top-level help lists them.
const std::vector<Command>& commands();
// The named command's command line with its usage, summary and --help.
CommandLine commandLine(const std::string& command);

// Two aligned columns ("  name   text"), one row per line.
std::string table(const std::vector<std::pair<std::string, std::string>>& rows);
// Name, description and other names of every format of an importer or exporter registry, as a table.
template <typename Registry>
std::string formatTable(const Registry& registry)
{
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& f : registry.formats())
        rows.emplace_back(f.name, f.aliases.empty() ? f.description
                                                    : f.description + " (also: " + joinNames(f.aliases, ", ") + ")");
    return table(rows);
}

// The options of a planning request (plan and compare): --cluster, --model, --job, the job's flags,
// --profile, --option, --seed, --time-limit.
void addRequestOptions(CommandLine& cl);
// The job's flags (jobFields(): --gbs, --zero, --framework, ...; only those of `keys` when given), and
// applying the ones given to a job. A value outside its field's range is an InputError naming the flag; the
// caller validates the whole job.
void addJobOptions(CommandLine& cl, const std::vector<std::string>& keys = {});
void applyJobOptions(const CommandLine& a, Job& job, const std::vector<std::string>& keys = {});
// The job fields `simulate` may change on a written plan: they change how the plan's sends and products run,
// not its shape.
inline const std::vector<std::string> kFrameworkJobKeys{"framework", "sequence_parallel", "tf32"};
// Checks every output file the command line names among `options` (--out, --trace) before the command
// plans anything: a path that cannot be written is InputError(path, "file", reason), exit 2, at once.
void checkOutputs(const CommandLine& cl, std::initializer_list<const char*> options);
// Warns when the job asks for sequence parallelism and no stage of the plan has tp > 1 (a no-op).
void warnIdleSequenceParallel(const Plan& plan, std::ostream& err);
PlanRequest requestFromArgs(const CommandLine& a);
// Planners name the job's fields as file "job"; the user set each one with a flag (--gbs), a --job file or
// left it at its default (then the flag that would set it). An InputError about "job" re-addressed there.
std::string jobFieldSource(const CommandLine& a, const std::string& field);
InputError withJobSource(const InputError& e, const CommandLine& a);
// "note: leaving out failed node(s) …" on `err` when the cluster file marks nodes failed (runPlanner leaves
// them out, as --without does).
void noteFailedNodes(const PlanRequest& req, std::ostream& err);

int run(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

// Runs `work` on a plan read from `path`: the engine's errors about "plan" (the simulator, the exporters)
// are re-addressed to the plan file the user named.
template <typename Work>
auto withPlanFile(const std::string& path, Work&& work)
{
    try {
        return work();
    } catch (const InputError& e) {
        if (e.file() == "plan")
            throw e.inFile(path);
        throw;
    }
}

int cmdList(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdPlan(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdCompare(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdSweep(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdSimulate(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdExport(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdImport(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdProfile(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

// compare and sweep run several planners with one set of --option values: each key goes to the planners
// that declare it. A key none of `planners` declares, or a value one of them refuses, is
// InputError("--option", key, reason) (exit 2, as `plan` does).
PlannerOptions perPlannerOptions(const std::vector<std::string>& planners,
                                 const std::map<std::string, std::string>& given);

// "a,b,c" or "all" → planner names, each checked against the registry (InputError("--planners", ...)).
std::vector<std::string> plannerList(const std::string& spec);

// The short human-readable summary of a plan (stdout of plan/simulate).
void printPlan(const Plan& plan, std::ostream& out);
// The plan's GPU selection (the subsets tried, what was left out and why, the frontier); nothing without one.
void printSelection(const Plan& plan, std::ostream& out);

} // namespace hetplan::cli
