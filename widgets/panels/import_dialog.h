#pragma once
// Asks for a profile file (or directory), its format, and the GPU type/tp it was measured on, imports it,
// and shows the importer's error (file: field: reason) in full without closing. The formats, their file
// filters and which fields apply come from ImporterRegistry.
//
// It remembers the last format, device and folder (QSettings group "importDialog"), guesses the device
// from the path or the file (core/io/device_guess.h), shows an editor for each option the format declares
// (ImportFormat::options), starting from what the format suggests for the path and model (amp-npy folds
// AMP's GPT-2 no-op entries for a GPT-2), checks the layer count against the model it imports for before
// accepting, and asks before replacing measurements the model already has for the same device and tp.
#include "core/io/importers.h"
#include "core/model/model.h"
#include "core/model/profile.h"

#include <QDialog>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLineEdit;
class QSpinBox;
class QFormLayout;
class QLabel;

namespace hetplan {

class OptionEditor;

class ImportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ImportDialog(QWidget* parent = nullptr);
    ~ImportDialog() override;
    const Profile& profile() const { return profile_; }
    // The model the profile is for and the profile it has now (either may be null).
    void setTarget(const ModelSpec* model, const Profile* existing);
    // Non-interactive use (tests): set the fields and call tryImport() / tryAccept().
    void setInput(const QString& format, const QString& path, const QString& device, int tp);
    // Imports and checks the result against the target's layer count; false with error() set.
    bool tryImport();
    // tryImport(), then the replacement question; on success remembers the choices and accepts.
    bool tryAccept();
    QString error() const;
    QString device() const;
    // What the format proposes for its options at the current path and model (ImportFormat::suggest).
    std::map<std::string, std::string> suggestedParams() const;
    // The values of the format's option editors (every declared key).
    std::map<std::string, std::string> params() const;
    // Asked before replacing measured tables; the default shows a question box. Tests replace it.
    std::function<bool(const QString& question)> confirmReplace;

private:
    const ImportFormat* format() const; // the one chosen in the combo box, if any
    void browse();
    void syncFields();
    void rebuildParams(); // one editor per option of the chosen format
    std::string untakenSuggestions(const std::map<std::string, std::string>& used) const;
    void onPathEdited();
    void remember() const;
    void restore();
    QString replacedTables() const; // "A100-80GB tp 1, …" the import would replace, "" if none
    QComboBox* format_;
    QLineEdit* path_;
    QComboBox* device_;
    QLabel* deviceHint_;
    QSpinBox* tp_;
    QFormLayout* form_;
    int paramsRow_ = 0; // where the option editors go in form_
    std::string paramsFormat_; // the format whose editors are shown
    std::vector<std::unique_ptr<OptionEditor>> params_;
    std::map<std::string, std::string> suggested_; // the suggestions last applied
    QLabel* error_;
    Profile profile_;
    std::optional<ModelSpec> model_;
    Profile existing_;
};

} // namespace hetplan
