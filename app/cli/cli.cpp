// The top level: the command table, the top-level help and version, and exceptions → exit codes.
#include "cli.h"
#include "terminal_text.h"

#include "core/base/errors.h"
#include "core/base/output_file.h"
#include "core/base/quote.h"
#include "core/io/exporters.h"
#include "core/io/importers.h"

#include <algorithm>
#include <new>
#include <ostream>
#include <sstream>

namespace hetplan::cli {

const std::vector<Command>& commands()
{
    static const std::vector<Command> all{
        {"list", "list planners|examples|devices", "List the planners, the bundled examples or the device types.",
         cmdList},
        {"plan", "plan [options]", "Plan training with one planner; print the plan, write it as JSON with --out.",
         cmdPlan},
        {"compare", "compare [options]", "Run several planners on the same request and compare their plans.",
         cmdCompare},
        {"sweep", "sweep [options]",
         "What-if: plan every combination of --vary values with several planners, in parallel.", cmdSweep},
        {"simulate", "simulate [options]", "Re-score a plan file with the shared simulator.", cmdSimulate},
        {"export", "export [options]", "Write a plan for a training framework, launcher or trace viewer.", cmdExport},
        {"import", "import [options]", "Convert another tool's measured profile to hetplan's profile JSON.", cmdImport},
        {"profile", "profile [options]", "Write the analytic per-layer times of a model on device types.", cmdProfile},
    };
    return all;
}

namespace {
const Command& findCommand(const std::string& name)
{
    for (const Command& c : commands())
        if (name == c.name)
            return c;
    throw InputError(name, "command", "unknown command (try --help)");
}

std::string namesOf(const std::vector<std::string>& names) { return joinNames(names, ", "); }

CommandLine topLevel()
{
    CommandLine cl("<command> [options]", "Plans training of large models on heterogeneous GPU clusters.");
    cl.addFlag("version", "Show the version and exit.");
    cl.addPositional("command", "The command to run, followed by its options.", true);
    std::vector<std::pair<std::string, std::string>> rows;
    for (const Command& c : commands())
        rows.emplace_back(c.name, c.summary);
    cl.setEpilogue("Commands:\n" + table(rows) + "\nImport formats: " + namesOf(ImporterRegistry::instance().names()) +
                   "\nExport formats: " + namesOf(ExporterRegistry::instance().names()) +
                   "\n\nRun 'hetplan-cli <command> --help' for the options of a command.\n"
                   "Exit codes: 0 ok, 2 bad input, 3 no feasible plan, 4 cancelled or time limit hit\n");
    return cl;
}

int dispatch(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err)
{
    CommandLine top = topLevel();
    if (argv.empty()) {
        err << top.help();
        return BadInput;
    }
    if (!top.parse(argv, out))
        return Ok;
    if (top.flag("version")) {
        out << "hetplan " << HETPLAN_VERSION << "\n";
        return Ok;
    }
    const std::vector<std::string> pos = top.positional();
    if (pos.empty())
        throw InputError("command", "argument", "required (try --help)");
    const std::vector<std::string> rest(pos.begin() + 1, pos.end());
    if (pos[0] != "help")
        return findCommand(pos[0]).run(rest, out, err);
    // "help [command]"
    if (rest.empty()) {
        out << top.help();
        return Ok;
    }
    return findCommand(rest[0]).run({"--help"}, out, err);
}
} // namespace

CommandLine commandLine(const std::string& command)
{
    const Command& c = findCommand(command);
    return CommandLine(c.usage, c.summary);
}

void checkOutputs(const CommandLine& cl, std::initializer_list<const char*> options)
{
    for (const char* name : options)
        if (cl.has(name))
            checkOutputPath(cl.get(name));
}

std::string table(const std::vector<std::pair<std::string, std::string>>& rows)
{
    size_t width = 0;
    for (const auto& [name, text] : rows)
        width = std::max(width, name.size());
    const size_t indent = width + 4, lineWidth = std::max<size_t>(79, indent + 30);
    std::string out;
    for (const auto& [name, text] : rows) {
        std::string line = "  " + name + std::string(width - name.size() + 2, ' ');
        std::istringstream words(text);
        bool first = true;
        for (std::string w; words >> w; first = false) {
            if (!first && line.size() + 1 + w.size() > lineWidth) {
                out += line + "\n";
                line = std::string(indent, ' ') + w;
            } else {
                line += (first ? "" : " ") + w;
            }
        }
        out += line + "\n";
    }
    return out;
}

int run(const std::vector<std::string>& argv, std::ostream& rawOut, std::ostream& rawErr)
{
    // Nothing from the input reaches the terminal as a control sequence (a node name with an escape code),
    // on either stream.
    TerminalText out(rawOut), err(rawErr);
    // One line per error: a key with a newline must not break it.
    auto line = [&err](const std::string& text) { err << escapeControls(text) << "\n"; };
    try {
        return dispatch(argv, out, err);
    } catch (const InputError& e) {
        line(std::string("error: ") + e.what());
        return BadInput;
    } catch (const InfeasibleError& e) {
        line(std::string("error: no feasible plan: ") + e.what());
        return Infeasible;
    } catch (const CancelledError& e) {
        line(std::string("error: ") + e.what());
        return Cancelled;
    } catch (const std::bad_alloc&) {
        // The guards refuse inputs whose work would not fit before allocating; this is the backstop.
        line("error: out of memory: this input needs more memory than this machine has (see the size limits in "
             "--help)");
        return BadInput;
    } catch (const std::exception& e) {
        // Anything else is a bug; still never crash.
        line(std::string("error: internal: ") + e.what());
        return 1;
    }
}

} // namespace hetplan::cli
