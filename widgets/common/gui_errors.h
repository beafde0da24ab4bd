#pragma once
// Engine errors in the GUI's words. The engine names inputs as the CLI and the JSON files do ("--gbs",
// "global_batch_size", "options: mbs"); the desktop app shows the same error with the labels its panels
// use ("Global batch size (Job panel)", "Option “Micro-batch size” of data-parallel").
#include <QString>

#include <exception>
#include <string>

namespace hetplan {

class InputError;

// The Job panel's label of a job field, by its JSON name or CLI flag name ("global_batch_size", "gbs",
// "--gbs" → "Global batch size"); empty when the name is not a job field.
QString jobFieldLabel(const std::string& field);

// The label of `planner`'s option `key` as the Run tab shows it; the key itself when unknown.
QString plannerOptionLabel(const std::string& planner, const std::string& key);

// An InputError as one sentence a GUI user can act on, naming the panel and the field.
QString guiErrorText(const InputError& e, const std::string& planner = {});
// Any engine exception: InputErrors as above, others as their message with CLI flag names replaced.
QString guiErrorText(const std::exception& e, const std::string& planner = {});
// `text` with CLI flags ("--gbs", "--option key=value", "--time-limit") replaced by what the GUI calls them.
QString withoutCliFlags(const QString& text);

} // namespace hetplan
