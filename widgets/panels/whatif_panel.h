#pragma once
// The What-if tab: the parameter to vary (global batch, sequence length, ZeRO stage or a
// node left out) and its values ("16,32,64", checked as typed with the sweep parser's reasons shown under
// the field), Run sweep / Cancel with a progress bar, and the result: WhatIfView's lines per planner above
// a table with every row (a row without a plan says why in its tooltip). The sweep runs the current
// cluster, model and job with the Run tab's ticked planners (both read through sources the main window
// sets) on a SweepController's worker thread.
#include "core/planners/sweep.h"
#include "widgets/views/whatif_view.h"

#include <QHash>
#include <QWidget>

#include <functional>
#include <optional>
#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QStringListModel;
class QPushButton;
class QTableWidget;

namespace hetplan {

class SweepController;

class WhatIfPanel : public QWidget {
    Q_OBJECT
public:
    explicit WhatIfPanel(QWidget* parent = nullptr);

    using RequestSource = std::function<std::optional<PlanRequest>()>;
    using PlannerSource = std::function<std::vector<std::string>()>;
    using OptionsSource = std::function<PlannerOptions()>; // each planner's options, as a run would use them
    void setRequestSource(RequestSource source) { requestSource_ = std::move(source); }
    void setPlannerSource(PlannerSource source) { plannerSource_ = std::move(source); }
    void setOptionsSource(OptionsSource source) { optionsSource_ = std::move(source); }

    // Chooses the parameter by its sweep name: "gbs", "seq", "zero" or "without".
    void setParameter(const std::string& axis);
    std::string parameter() const;
    // The axis the field describes, or nullopt with the reason shown under the field.
    std::optional<SweepAxis> checkedAxis();
    // Checks the values against the parameter and the current project, then starts the sweep; false
    // (with the reason under the field, nothing started) when they do not fit or a sweep is running.
    bool startSweep();
    void cancelSweep();
    bool isRunning() const;
    // The planner names shown above the button (call when the Run tab's ticks change).
    void refreshPlanners();

    QLineEdit* valuesEdit() const { return valuesEdit_; }
    QLabel* errorLabel() const { return errorLabel_; }
    QLabel* plannersLabel() const { return plannersLabel_; }
    QPushButton* runButton() const { return runButton_; }
    QPushButton* cancelButton() const { return cancelButton_; }
    QProgressBar* progressBar() const { return progress_; }
    WhatIfView* view() const { return view_; }
    QTableWidget* table() const { return table_; }
    SweepController* controller() const { return controller_; }

signals:
    // A sentence for the status bar (started, finished, cancelled); error = shown red.
    void message(const QString& text, bool error);
    void sweepFinished();

private:
    QWidget* buildForm();
    void buildTable();
    void showError(const QString& text);
    void onParameterChanged();
    // Run sweep is enabled only for values that would run (its tooltip says why not).
    void updateRunButton();
    // A sweep of `axis` that runs on the current project: the example values, "none,<first node>".
    QString defaultValues(const std::string& axis) const;
    void onProgress(int finished, int total);
    void onFinished();
    void fillTable(const std::vector<SweepRow>& rows);
    void setRunning(bool running);

    RequestSource requestSource_;
    PlannerSource plannerSource_;
    OptionsSource optionsSource_;
    SweepController* controller_;
    QComboBox* parameterBox_ = nullptr;
    QLineEdit* valuesEdit_ = nullptr;
    QLabel* errorLabel_ = nullptr;
    QLabel* plannersLabel_ = nullptr;
    QPushButton* runButton_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QProgressBar* progress_ = nullptr;
    WhatIfView* view_ = nullptr;
    QTableWidget* table_ = nullptr;
    QStringListModel* nodeNames_ = nullptr; // the values field's completions
    QHash<QString, QString> typedValues_;   // the values last typed per parameter
    WhatIfView::Sweep pending_; // what is being swept, shown when the rows arrive
};

} // namespace hetplan
