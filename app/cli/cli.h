#pragma once
// hetplan-cli: command dispatch and the shared argument handling. Commands print a short human table on
// stdout and, with --out, write JSON atomically. Exit codes (DESIGN.md): 0 ok, 2 bad input, 3 no feasible
// plan, 4 cancelled / time limit.
#include "core/model/job.h"
#include "core/planners/planner.h"

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hetplan::cli {

enum ExitCode { Ok = 0, BadInput = 2, Infeasible = 3, Cancelled = 4 };

// Parsed "--key value" arguments. Repeatable keys (--option) collect all values.
class Args {
public:
    Args(const std::vector<std::string>& argv, std::initializer_list<const char*> valueKeys,
         std::initializer_list<const char*> flagKeys = {});
    bool has(const std::string& key) const { return values_.count(key) > 0; }
    bool flag(const std::string& key) const { return flags_.count(key) > 0; }
    std::string get(const std::string& key) const;                 // required: throws InputError
    std::string get(const std::string& key, const std::string& def) const;
    std::vector<std::string> all(const std::string& key) const;
    int integer(const std::string& key, int def) const;            // strict parse, throws InputError
    double number(const std::string& key, double def) const;
    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::map<std::string, std::vector<std::string>> values_;
    std::map<std::string, bool> flags_;
    std::vector<std::string> positional_;
};

// Builds the planning request from --cluster/--model/--job/--gbs/--seq/--zero/--profile/--option/--seed.
PlanRequest requestFromArgs(const Args& a);

int run(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

int cmdList(const std::vector<std::string>& argv, std::ostream& out);
int cmdPlan(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdImport(const std::vector<std::string>& argv, std::ostream& out);
int cmdCompare(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);
int cmdSimulate(const std::vector<std::string>& argv, std::ostream& out);
int cmdExport(const std::vector<std::string>& argv, std::ostream& out);

// The short human-readable summary of a plan (stdout of plan/simulate).
void printPlan(const Plan& plan, std::ostream& out);

} // namespace hetplan::cli
