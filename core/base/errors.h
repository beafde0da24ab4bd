#pragma once
// Errors raised by the engine. InputError carries the file/field/reason triple that every reader reports
// and the CLI prints as `error: <file>: <field>: <reason>` (exit code 2).
#include <stdexcept>
#include <string>

namespace hetplan {

class InputError : public std::runtime_error {
public:
    InputError(std::string file, std::string field, std::string reason)
        : std::runtime_error(file + ": " + field + ": " + reason),
          file_(std::move(file)),
          field_(std::move(field)),
          reason_(std::move(reason))
    {}
    const std::string& file() const { return file_; }
    const std::string& field() const { return field_; }
    const std::string& reason() const { return reason_; }
    // Same error attributed to another file (readers that parse a sub-document rethrow with their path).
    InputError inFile(const std::string& f) const { return InputError(f, field_, reason_); }

private:
    std::string file_, field_, reason_;
};

// No plan satisfies the constraints (e.g. nothing fits in memory). CLI exit code 3.
class InfeasibleError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The run was cancelled or hit its time limit. CLI exit code 4.
class CancelledError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace hetplan
