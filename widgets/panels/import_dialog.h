#pragma once
// Asks for a profile file (or directory), its format, and the GPU type/tp it was measured on, imports it,
// and shows the importer's error (file: field: reason) without closing on failure. The formats, their
// file filters and which fields apply come from ImporterRegistry.
#include "core/io/importers.h"
#include "core/model/profile.h"

#include <QDialog>

class QComboBox;
class QLineEdit;
class QSpinBox;
class QCheckBox;
class QLabel;

namespace hetplan {

class ImportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ImportDialog(QWidget* parent = nullptr);
    const Profile& profile() const { return profile_; }
    // Non-interactive use (tests): set the fields and call tryImport().
    void setInput(const QString& format, const QString& path, const QString& device, int tp);
    bool tryImport();
    QString error() const;

private:
    const ImportFormat* format() const; // the one chosen in the combo box, if any
    void browse();
    QComboBox* format_;
    QLineEdit* path_;
    QComboBox* device_;
    QSpinBox* tp_;
    QCheckBox* compact_;
    QLabel* error_;
    Profile profile_;
};

} // namespace hetplan
