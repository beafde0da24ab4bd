#pragma once
// One command's command line, parsed by QCommandLineParser but reporting problems the hetplan way: an
// unknown option, a missing value or a stray argument is InputError(argument, "argument", reason), which
// the CLI prints as one `error:` line with exit code 2. Every command answers -h/--help with its own usage.
#include "core/base/errors.h"

#include <QCommandLineParser>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hetplan::cli {

class CommandLine {
public:
    // `usage` follows "Usage: hetplan-cli " on the first help line ("plan [options]").
    CommandLine(std::string usage, const std::string& summary);

    // --name VALUE. Repeating it collects every value; a non-empty default is used when it is absent
    // and shown in the help.
    void addOption(const std::string& name, const std::string& valueName, const std::string& description,
                   const std::string& defaultValue = {});
    void addFlag(const std::string& name, const std::string& description);
    // Without one, a positional argument is an error. `rest` keeps everything from the first positional
    // argument on as positional (for the command name of the top level).
    void addPositional(const std::string& name, const std::string& description, bool rest = false);
    // Shown after the options, e.g. the list of formats.
    void setEpilogue(std::string text) { epilogue_ = std::move(text); }

    // False when help was asked for: it is printed on `out` and the command is done (exit 0). Otherwise
    // throws InputError on a bad command line.
    bool parse(const std::vector<std::string>& argv, std::ostream& out);
    std::string help() const;

    bool has(const std::string& name) const { return parser_->isSet(QString::fromStdString(name)); }
    bool flag(const std::string& name) const { return has(name); }
    // The last value given, else the default; required: neither is InputError("--name", "argument", "required").
    std::string get(const std::string& name) const;
    // The last value given, else the default, else "".
    std::string value(const std::string& name) const;
    std::vector<std::string> all(const std::string& name) const;
    // get(name) read by the one number rule (core/base/numbers.h): " 5", "5 " and "0x10" are refused.
    int integer(const std::string& name) const;
    double number(const std::string& name) const;
    std::vector<std::string> positional() const;

private:
    [[noreturn]] void fail(const std::vector<std::string>& argv) const;
    bool takesValue(const std::string& name) const;

    std::unique_ptr<QCommandLineParser> parser_; // held so a CommandLine can be returned
    std::string usage_, epilogue_;
    std::map<std::string, bool> takesValue_; // declared options: true = takes a value, false = a flag
    bool positionalAllowed_ = false;
};

} // namespace hetplan::cli
