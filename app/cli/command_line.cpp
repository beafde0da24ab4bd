#include "command_line.h"

#include "core/base/numbers.h"
#include "core/base/qstrings.h"

#include <ostream>
#include <stdexcept>

namespace hetplan::cli {

namespace {

// "--name" or "-name" without any "=value": the option name, else "".
std::string optionName(const std::string& arg)
{
    const std::string key = arg.substr(0, arg.find('='));
    const size_t start = key.find_first_not_of('-');
    return start == 0 || start == std::string::npos ? "" : key.substr(start);
}
} // namespace

CommandLine::CommandLine(std::string usage, const std::string& summary)
    : parser_(std::make_unique<QCommandLineParser>()), usage_(std::move(usage))
{
    parser_->setApplicationDescription(toQString(summary));
    // Only long options exist, so "-help" means --help rather than -h -e -l -p.
    parser_->setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    addFlag("help", "Show this help and exit.");
}

void CommandLine::addOption(const std::string& name, const std::string& valueName, const std::string& description,
                            const std::string& defaultValue)
{
    std::string text = description;
    if (!defaultValue.empty()) {
        const bool period = !text.empty() && text.back() == '.';
        text = text.substr(0, text.size() - period) + " (default: " + defaultValue + ")" + (period ? "." : "");
    }
    parser_->addOption(QCommandLineOption(toQString(name), toQString(text), toQString(valueName), toQString(defaultValue)));
    takesValue_[name] = true;
}

void CommandLine::addFlag(const std::string& name, const std::string& description)
{
    parser_->addOption(
        QCommandLineOption(name == "help" ? QStringList{"h", "help"} : QStringList{toQString(name)}, toQString(description)));
    takesValue_[name] = false;
}

void CommandLine::addPositional(const std::string& name, const std::string& description, bool rest)
{
    parser_->addPositionalArgument(toQString(name), toQString(description), toQString(rest ? name + " [...]" : name));
    if (rest)
        parser_->setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsPositionalArguments);
    positionalAllowed_ = true;
}

bool CommandLine::parse(const std::vector<std::string>& argv, std::ostream& out)
{
    QStringList args{"hetplan-cli"}; // QCommandLineParser skips the program name
    for (const std::string& a : argv)
        args << toQString(a);
    const bool ok = parser_->parse(args);
    if (parser_->isSet("help")) {
        out << help();
        return false;
    }
    if (!ok)
        fail(argv);
    const QStringList pos = parser_->positionalArguments();
    if (!positionalAllowed_ && !pos.isEmpty())
        throw InputError(pos.first().toStdString(), "argument", "unexpected argument");
    return true;
}

// QCommandLineParser fails on unknown options, on a value option that ends the command line and on a
// flag given "=value"; its message is turned into the one-line error naming the argument.
void CommandLine::fail(const std::vector<std::string>& argv) const
{
    const QStringList unknown = parser_->unknownOptionNames();
    for (const std::string& a : argv) {
        const std::string name = optionName(a);
        if (!unknown.isEmpty() && name == unknown.first().toStdString())
            throw InputError(a.substr(0, a.find('=')), "argument", "unknown option");
        if (unknown.isEmpty() && !name.empty() && a.find('=') != std::string::npos && !takesValue(name))
            throw InputError(a.substr(0, a.find('=')), "argument", "takes no value");
    }
    if (!argv.empty() && takesValue(optionName(argv.back())))
        throw InputError(argv.back(), "argument", "missing value");
    throw InputError("command line", "argument", parser_->errorText().toStdString());
}

bool CommandLine::takesValue(const std::string& name) const
{
    auto it = takesValue_.find(name);
    return it != takesValue_.end() && it->second;
}

std::string CommandLine::help() const
{
    // Qt's first line names the running executable; ours names the command.
    const QString text = parser_->helpText();
    std::string out = "Usage: hetplan-cli " + usage_ + text.mid(text.indexOf('\n')).toStdString();
    if (!epilogue_.empty())
        out += "\n" + epilogue_;
    return out;
}

std::string CommandLine::get(const std::string& name) const
{
    const std::string v = value(name);
    if (v.empty() && !has(name))
        throw InputError("--" + name, "argument", "required");
    return v;
}

std::string CommandLine::value(const std::string& name) const { return parser_->value(toQString(name)).toStdString(); }

std::vector<std::string> CommandLine::all(const std::string& name) const
{
    std::vector<std::string> out;
    for (const QString& v : parser_->values(toQString(name)))
        out.push_back(v.toStdString());
    return out;
}

int CommandLine::integer(const std::string& name) const
{
    const std::string v = get(name);
    const std::optional<long long> x = wholeNumber(v);
    if (!x || *x < -2000000000LL || *x > 2000000000LL)
        throw InputError("--" + name, "argument", "expected an integer, got '" + v + "'");
    return int(*x);
}

double CommandLine::number(const std::string& name) const
{
    const std::string v = get(name);
    const std::optional<double> x = decimalNumber(v);
    if (!x)
        throw InputError("--" + name, "argument", decimalProblem(v));
    return *x;
}

std::vector<std::string> CommandLine::positional() const
{
    std::vector<std::string> out;
    for (const QString& p : parser_->positionalArguments())
        out.push_back(p.toStdString());
    return out;
}

} // namespace hetplan::cli
