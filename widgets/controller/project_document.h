#pragma once
// The open project as the GUI sees it: the Project data, its file, the dirty flag, and which cluster /
// model / job / plan is current. Every change goes through here so views can follow `changed()`.
#include "core/model/project.h"

#include <QObject>
#include <QString>
#include <optional>

namespace hetplan {

struct PlanRef {
    int runId = 0;
    int result = 0;
    bool operator==(const PlanRef&) const = default;
};

class ProjectDocument : public QObject {
    Q_OBJECT
public:
    explicit ProjectDocument(QObject* parent = nullptr);

    const Project& project() const { return project_; }
    const QString& filePath() const { return path_; }
    bool isDirty() const { return dirty_; }
    QString displayName() const;

    // File operations. open/save throw InputError with a message for the user; on failure the document
    // keeps its current state.
    void newProject();
    void open(const QString& path);
    void save();                         // requires a file path
    void saveAs(const QString& path);
    // A fresh project seeded with an example cluster and model and a default job.
    void loadExample(const std::string& cluster, const std::string& model);

    // Edits (mark dirty, emit changed()).
    void setCluster(const Cluster& c);                    // replaces the cluster of the same name or adds it
    void renameCluster(const std::string& from, const Cluster& c);
    void addModel(const ProjectModel& m);                 // replaces the model of the same name or adds it
    void setProfile(const std::string& model, const Profile& p);
    void setJob(const NamedJob& j);
    int addRun(Run run);                                  // assigns the id, returns it
    void addRunResult(int runId, const RunResult& r);
    void removeRun(int runId);

    // Current selection.
    std::string currentCluster() const { return currentCluster_; }
    std::string currentModel() const { return currentModel_; }
    std::string currentJob() const { return currentJob_; }
    void setCurrentCluster(const std::string& n);
    void setCurrentModel(const std::string& n);
    void setCurrentJob(const std::string& n);
    std::optional<PlanRef> currentPlan() const { return currentPlan_; }
    void setCurrentPlan(std::optional<PlanRef> ref);
    const Plan* plan(const PlanRef& ref) const;
    const Run* run(int runId) const;
    const Cluster* cluster() const;                       // current ones (nullptr if none)
    const ProjectModel* model() const;
    const NamedJob* job() const;

signals:
    void changed();                                       // project data changed
    void dirtyChanged(bool dirty);
    void currentChanged();                                // current cluster/model/job changed
    void currentPlanChanged();
    void fileChanged(const QString& path);

private:
    void touch();
    // Swaps in a whole project (new, opened or example): clean, defaults selected, everyone told.
    void replaceProject(Project p, const QString& path);
    void setDirty(bool d);
    void pickDefaults();

    Project project_;
    QString path_;
    bool dirty_ = false;
    std::string currentCluster_, currentModel_, currentJob_;
    std::optional<PlanRef> currentPlan_;
};

} // namespace hetplan
