#pragma once
// Job settings form, one editor per row of the job's field table (jobFields(): batch, sequence, precision,
// ZeRO, schedule, ...), labelled as error messages name them. Emits jobEdited() on every user change (not
// on setJob()).
#include "core/model/job.h"

#include <QWidget>

#include <vector>

namespace hetplan {

class OptionEditor;

class JobPanel : public QWidget {
    Q_OBJECT
public:
    explicit JobPanel(QWidget* parent = nullptr);
    ~JobPanel() override;
    void setJob(const Job& job);
    Job job() const;

signals:
    void jobEdited(const hetplan::Job& job);

private:
    void emitEdited(const std::string& changed);
    QWidget* editor(const std::string& key) const;
    std::vector<OptionEditor> editors_; // jobFields()' order
    bool updating_ = false;
};

} // namespace hetplan

Q_DECLARE_METATYPE(hetplan::Job)
