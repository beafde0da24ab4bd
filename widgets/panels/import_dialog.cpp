#include "import_dialog.h"

#include "core/base/errors.h"
#include "core/io/device_guess.h"
#include "core/io/importers.h"
#include "core/model/device.h"
#include "option_editor.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStringList>

namespace hetplan {

namespace {
const char* kGroup = "importDialog";

// The error label sits in a scroll area: a long importer message (a path and a field and a reason, or a
// list of them) is shown whole, word-wrapped, never clipped by the dialog's size.
QScrollArea* scrolling(QLabel* label)
{
    auto* area = new QScrollArea;
    area->setObjectName("errorArea");
    area->setWidget(label);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setMinimumHeight(label->fontMetrics().lineSpacing() * 3);
    area->setMaximumHeight(label->fontMetrics().lineSpacing() * 12);
    return area;
}
} // namespace

ImportDialog::ImportDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Import profile"));
    setMinimumWidth(640);
    auto* form = new QFormLayout(this);
    form_ = form;
    format_ = new QComboBox;
    format_->setObjectName("format");
    for (const ImportFormat& f : ImporterRegistry::instance().formats())
        format_->addItem(QString::fromStdString(f.description), QString::fromStdString(f.name));
    auto* pathRow = new QHBoxLayout;
    path_ = new QLineEdit;
    path_->setObjectName("path");
    auto* browse = new QPushButton(tr("Browse…"));
    pathRow->addWidget(path_);
    pathRow->addWidget(browse);
    device_ = new QComboBox;
    device_->setObjectName("device");
    for (const DeviceType& d : DeviceCatalog::builtin().all())
        device_->addItem(QString::fromStdString(d.name));
    deviceHint_ = new QLabel;
    deviceHint_->setObjectName("deviceHint");
    deviceHint_->setVisible(false);
    tp_ = new QSpinBox;
    tp_->setRange(1, 64);
    error_ = new QLabel;
    error_->setObjectName("error");
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    error_->setStyleSheet("color: #b00020");
    form->addRow(tr("Format"), format_);
    form->addRow(tr("File"), pathRow);
    auto* deviceRow = new QHBoxLayout;
    deviceRow->addWidget(device_, 1);
    deviceRow->addWidget(deviceHint_);
    form->addRow(tr("Measured on"), deviceRow);
    form->addRow(tr("Tensor parallel"), tp_);
    paramsRow_ = form->rowCount();
    form->addRow(scrolling(error_));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(browse, &QPushButton::clicked, this, &ImportDialog::browse);
    connect(buttons, &QDialogButtonBox::accepted, this, &ImportDialog::tryAccept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(format_, &QComboBox::currentIndexChanged, this, &ImportDialog::syncFields);
    connect(path_, &QLineEdit::textChanged, this, &ImportDialog::onPathEdited);
    confirmReplace = [this](const QString& question) {
        return QMessageBox::question(this, tr("Replace measurements?"), question) == QMessageBox::Yes;
    };
    restore();
    syncFields();
}

void ImportDialog::setTarget(const ModelSpec* model, const Profile* existing)
{
    model_ = model ? std::optional<ModelSpec>(*model) : std::nullopt;
    existing_ = existing ? *existing : Profile{};
    syncFields();
}

const ImportFormat* ImportDialog::format() const
{
    return ImporterRegistry::instance().find(format_->currentData().toString().toStdString());
}

ImportDialog::~ImportDialog() = default;

std::map<std::string, std::string> ImportDialog::suggestedParams() const
{
    if (!format() || !format()->suggest)
        return {};
    return format()->suggest(path_->text().toStdString(), model_ ? model_->arch.family : std::string());
}

std::map<std::string, std::string> ImportDialog::params() const
{
    std::map<std::string, std::string> out;
    for (const auto& e : params_)
        out[e->option().key] = e->value();
    return out;
}

void ImportDialog::rebuildParams()
{
    for (int row = paramsRow_ + int(params_.size()) - 1; row >= paramsRow_; --row)
        form_->removeRow(row); // deletes the row's label and editor widget
    params_.clear();
    suggested_.clear();
    paramsFormat_ = format() ? format()->name : "";
    if (!format())
        return;
    int row = paramsRow_;
    for (const OptionDecl& o : format()->options) {
        auto editor = std::make_unique<OptionEditor>(o, this);
        editor->widget()->setObjectName(QStringLiteral("param:") + QString::fromStdString(o.key));
        form_->insertRow(row++, QString::fromStdString(o.label), editor->widget());
        params_.push_back(std::move(editor));
    }
}

void ImportDialog::syncFields()
{
    const ImportNeeds needs = format() ? format()->needs : ImportNeeds{};
    device_->setEnabled(needs.device);
    tp_->setEnabled(needs.tp);
    if (paramsFormat_ != (format() ? format()->name : ""))
        rebuildParams();
    // A suggestion that changes (another path or model) is applied; what the user set otherwise stays.
    const std::map<std::string, std::string> suggested = suggestedParams();
    if (suggested == suggested_)
        return;
    for (const auto& e : params_) {
        const auto it = suggested.find(e->option().key);
        e->setValue(it != suggested.end() ? it->second : e->option().defaultValue);
    }
    suggested_ = suggested;
}

void ImportDialog::onPathEdited()
{
    const std::string guess = guessDeviceType(path_->text().toStdString());
    if (!guess.empty()) {
        device_->setCurrentText(QString::fromStdString(guess));
        deviceHint_->setText(tr("guessed from the path or file: %1").arg(QString::fromStdString(guess)));
    } else {
        deviceHint_->clear();
    }
    deviceHint_->setVisible(!guess.empty());
    syncFields();
}

void ImportDialog::browse()
{
    if (!format())
        return;
    const ImportFormat& f = *format();
    const QString start = path_->text().isEmpty() ? QSettings().value(QString(kGroup) + "/folder").toString()
                                                  : QFileInfo(path_->text()).absolutePath();
    const QString filters = QString::fromStdString(f.nameFilter()) + ";;" + tr("All files (*)");
    const QString p = f.needs.directory
                          ? QFileDialog::getExistingDirectory(this, QString::fromStdString(f.description), start)
                          : QFileDialog::getOpenFileName(this, tr("Profile file"), start, filters);
    if (!p.isEmpty())
        path_->setText(p);
}

void ImportDialog::setInput(const QString& format, const QString& path, const QString& device, int tp)
{
    format_->setCurrentIndex(format_->findData(format));
    path_->setText(path);
    if (!device.isEmpty())
        device_->setCurrentText(device);
    tp_->setValue(tp);
}

// " (try: <help>?)" for each suggested value the import did not use, e.g. AMP's GPT-2 folding left off.
std::string ImportDialog::untakenSuggestions(const std::map<std::string, std::string>& used) const
{
    std::string out;
    for (const auto& [key, value] : suggestedParams())
        if (auto it = used.find(key); it != used.end() && it->second != value)
            for (const auto& e : params_)
                if (e->option().key == key)
                    out += " (try: " + e->option().help + "?)";
    return out;
}

bool ImportDialog::tryImport()
{
    ImportOptions o;
    o.deviceType = device_->currentText().toStdString();
    o.tp = tp_->value();
    o.params = params();
    if (model_)
        o.model = model_->name;
    const std::string path = path_->text().toStdString();
    try {
        Profile p = importProfile(format_->currentData().toString().toStdString(), path, o);
        if (model_ && p.layerCount() != model_->layerCount())
            throw InputError(path, "layers",
                             "the profile has " + std::to_string(p.layerCount()) + " layers, model '" + model_->name +
                                 "' has " + std::to_string(model_->layerCount()) +
                                 untakenSuggestions(o.params));
        Profile merged = existing_;
        merged.merge(p); // another sequence length or precision than the measurements it has: refused here
        profile_ = std::move(p);
        error_->clear();
        return true;
    } catch (const InputError& e) {
        error_->setText(QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        error_->setText(tr("Import failed: %1").arg(e.what()));
    }
    return false;
}

QString ImportDialog::replacedTables() const
{
    QStringList hits;
    for (const auto& [key, table] : profile_.tables())
        if (existing_.table(key)) {
            const QString entry = tr("%1 tp %2").arg(QString::fromStdString(key.deviceType)).arg(key.tp);
            if (!hits.contains(entry))
                hits << entry;
        }
    return hits.join(", ");
}

bool ImportDialog::tryAccept()
{
    if (!tryImport())
        return false;
    if (const QString replaced = replacedTables(); !replaced.isEmpty()) {
        const QString question = tr("%1 already has measured times for %2. Replace them with this file's?")
                                     .arg(model_ ? QString::fromStdString(model_->name) : tr("The model"), replaced);
        if (!confirmReplace(question)) {
            error_->setText(tr("Not imported: the measurements for %1 are kept.").arg(replaced));
            return false;
        }
    }
    remember();
    accept();
    return true;
}

QString ImportDialog::error() const { return error_->text(); }
QString ImportDialog::device() const { return device_->currentText(); }

void ImportDialog::remember() const
{
    QSettings s;
    s.beginGroup(kGroup);
    s.setValue("format", format_->currentData());
    s.setValue("device", device_->currentText());
    const QFileInfo info(path_->text());
    s.setValue("folder", info.isDir() ? info.absoluteFilePath() : info.absolutePath());
}

void ImportDialog::restore()
{
    QSettings s;
    s.beginGroup(kGroup);
    if (const int i = format_->findData(s.value("format")); i >= 0)
        format_->setCurrentIndex(i);
    if (const int i = device_->findText(s.value("device").toString()); i >= 0)
        device_->setCurrentIndex(i);
}

} // namespace hetplan
