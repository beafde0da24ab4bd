#pragma once
// Job settings form: global batch, sequence length, precision, ZeRO stage, schedule, recomputation,
// backward factor. Emits jobEdited() on every user change (not on setJob()).
#include "core/model/job.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace hetplan {

class JobPanel : public QWidget {
    Q_OBJECT
public:
    explicit JobPanel(QWidget* parent = nullptr);
    void setJob(const Job& job);
    Job job() const;

signals:
    void jobEdited(const hetplan::Job& job);

private:
    void emitEdited();
    QSpinBox* gbs_;
    QSpinBox* seq_;
    QComboBox* precision_;
    QComboBox* zero_;
    QComboBox* schedule_;
    QCheckBox* recompute_;
    QCheckBox* tf32_;
    QDoubleSpinBox* backward_;
    QDoubleSpinBox* optimizer_;
    QComboBox* framework_;       // Framework's order
    QCheckBox* sequenceParallel_;
    QDoubleSpinBox* margin_; // percent in the panel, a fraction in the job
    bool updating_ = false;
};

} // namespace hetplan

Q_DECLARE_METATYPE(hetplan::Job)
