#pragma once
// The open project as the GUI sees it: the Project data, its file, its one undo history, and which
// cluster / model / job / plan is current. Every change goes through here so views can follow `changed()`.
//
// Dirty state: the user's edits are commands on undoStack() (cluster canvas edits, jobs, models, profile
// imports), so undoing back to the saved state makes the document clean again. Planner runs are results,
// not edits: they are not undone, yet an unsaved run must not be lost on close. So isDirty() is
// `!undoStack()->isClean() || changedOutsideHistory_`, where the flag is set by addRun / addRunResult
// and cleared by save, open, new and loadExample. Deleting runs and results, on the other hand, is an undo
// step: a deleted run comes back.
//
// Managing items (renameItem / duplicateItem / removeItem) snapshots the three item lists and the current
// names (ItemsState): undo puts back exactly what was there. Runs keep the cluster / model / job names they
// were made with when an item is renamed or deleted: a run records what it ran on (its plans carry full
// copies of the cluster, model and job).
//
// The selection (current cluster, model, job and plan) is saved with the file and restored on open.
//
// The cluster canvas edits clusterDocument(), which always holds the current cluster: its edits are written
// back into the project as they happen, and a change of the project (an item step undone, another cluster
// made current) is copied onto it. Its commands address their cluster by name, so the history survives
// switching clusters: undoing a step of another cluster first makes that cluster current.
#include "core/io/project_store.h"
#include "core/model/project.h"

#include <QObject>
#include <QString>
#include <functional>
#include <optional>

class QUndoStack;

namespace hetplan {

class ClusterDocument;

struct PlanRef {
    int runId = 0;
    int resultIndex = 0; // into the run's results
    bool operator==(const PlanRef&) const = default;
};

template <class Item>
class PutItemCommand;
class ItemsCommand;
class RemoveRunCommand;
class RemoveResultCommand;

enum class ItemKind { Cluster, Model, Job };

// The project's items and which of them are current: what an ItemsCommand restores.
struct ItemsState {
    std::vector<Cluster> clusters;
    std::vector<ProjectModel> models;
    std::vector<NamedJob> jobs;
    std::string cluster, model, job; // current names ("" = none)
    bool operator==(const ItemsState&) const = default;
};

// `wanted` if `taken(wanted)` is false, else "wanted (2)", "wanted (3)", ... (a trailing " (N)" of `wanted`
// is replaced, so copies of "a (2)" are "a (3)", not "a (2) (2)").
std::string uniqueName(const std::string& wanted, const std::function<bool(const std::string&)>& taken);

class ProjectDocument : public QObject {
    Q_OBJECT
public:
    explicit ProjectDocument(QObject* parent = nullptr);

    const Project& project() const { return project_; }
    const QString& filePath() const { return path_; }
    bool isDirty() const;
    QString displayName() const;
    // The project's one undo history; the cluster canvas pushes its commands here too.
    QUndoStack* undoStack() const { return undo_; }
    // The current cluster as the canvas edits it (an empty cluster when none is current).
    ClusterDocument* clusterDocument() const { return canvas_; }

    // File operations. open/save throw InputError with a message for the user; on failure the document
    // keeps its current state. All of them leave the document clean; new/open/example also end the history.
    void newProject();
    void open(const QString& path);
    void save(); // requires a file path
    void saveAs(const QString& path);
    // A fresh project seeded with an example cluster and model and a default job.
    void loadExample(const std::string& cluster, const std::string& model);

    // The user's edits: one undo step each (none when nothing would change); emit changed().
    void setCluster(const Cluster& c);         // adds or replaces it by name and makes it current
    void setJob(const NamedJob& j);            // likewise; consecutive edits of one field merge
    void addModel(const ProjectModel& m);      // likewise
    void chooseModel(const std::string& name); // makes a model the project has current
    // addModel and chooseModel make the current job follow the model's own sequence length in the same undo
    // step when the user had not chosen another (sequenceToFollow).
    void setProfile(const std::string& model, const Profile& p);

    // Managing items (the project tree's menu): one undo step each, false / "" (and no step) when the item
    // is missing or the new name is empty or taken. Removing the current item makes the first one left
    // current (none if none is left); the copy of duplicateItem is called uniqueName(name) and put after it.
    bool renameItem(ItemKind kind, const std::string& from, const std::string& to);
    std::string duplicateItem(ItemKind kind, const std::string& name);
    bool removeItem(ItemKind kind, const std::string& name);
    bool hasItem(ItemKind kind, const std::string& name) const;
    ItemsState itemsState() const;

    // Planner results: adding them is not undoable (they make the document dirty until saved); removing a
    // run or one result of it is an undo step. False when there is no such run / result.
    int addRun(Run run); // assigns the id, returns it
    void addRunResult(int runId, const RunResult& r);
    // Replaces run `runId`'s inputs and results with `run`'s, keeping its id and place (live re-planning's
    // one live run); not undoable, like addRun. Result `current` of it becomes the current plan (nullopt:
    // the current plan stays, or is dropped when it was a result of this run that is gone); the views
    // follow one currentPlanChanged(). False when there is no such run.
    bool replaceRun(int runId, Run run, std::optional<int> current = std::nullopt);
    bool removeRun(int runId);
    bool removeRunResult(int runId, int result);

    // Current selection (navigation, not edits).
    std::string currentCluster() const { return currentCluster_; }
    std::string currentModel() const { return currentModel_; }
    std::string currentJob() const { return currentJob_; }
    void setCurrentCluster(const std::string& n);
    void setCurrentModel(const std::string& n);
    void setCurrentJob(const std::string& n);
    std::optional<PlanRef> currentPlan() const { return currentPlan_; }
    void setCurrentPlan(std::optional<PlanRef> ref);
    // The Run tab's ticked planners, saved with the file like the selection (nullopt: none saved yet, the
    // Run tab's defaults apply). Setting them marks nothing modified: they are a choice, not content.
    const std::optional<std::vector<std::string>>& tickedPlanners() const { return ticked_; }
    void setTickedPlanners(std::vector<std::string> planners) { ticked_ = std::move(planners); }
    const Plan* plan(const PlanRef& ref) const;
    const Run* run(int runId) const;
    const Cluster* cluster() const; // current ones (nullptr if none)
    const ProjectModel* model() const;
    const NamedJob* job() const;
    // What planning would run on, in one line: "cluster-1 · opt-350m · gbs 64 · seq 2048" ("no cluster",
    // "no model" for missing parts; the job's part only when there is a job).
    QString contextText() const;

signals:
    void changed(); // project data changed
    void dirtyChanged(bool dirty);
    void currentChanged(); // current cluster/model/job changed
    void currentPlanChanged();
    void fileChanged(const QString& path);
    void projectReplaced(); // new, opened or example: before changed() and the current*Changed() signals
    void failedNodesChanged(); // a canvas step (or its undo) marked nodes of the current cluster failed or healthy

private:
    int sequenceToFollow(const ModelSpec& next) const;
    void withJobFollowing(const ModelSpec& next, const QString& text, const std::function<void()>& step);
    template <class Item>
    friend class PutItemCommand;
    friend class ItemsCommand;
    friend class RemoveRunCommand;
    friend class RemoveResultCommand;

    // Swaps in a whole project (new, opened or example): clean, no history, `selection` or else the defaults
    // selected, everyone told.
    void replaceProject(Project p, const QString& path, const ProjectSelection& selection = {});
    void markSaved();
    void takeCanvasEdit();     // the canvas's cluster into the project, after each of its steps
    void showCurrentCluster(); // the project's current cluster onto the canvas, when they differ
    void changeOutsideHistory();
    void updateDirty();
    void pickDefaults();
    // The selection a file was saved with, where it still names something in the project.
    void applySelection(const ProjectSelection& selection);
    ProjectSelection selection() const;

    // What the item commands change, silently (they call emitChanges() once both parts are done): a named cluster,
    // model or job put in place, replaced or (nullopt) removed; and which one is current.
    template <class Item>
    Item* find(const std::string& name);
    template <class Item>
    void put(const std::string& name, const std::optional<Item>& item);
    bool select(std::string& current, const std::string& name); // true if it changed
    void emitChanges(bool itemsChanged, bool selectionChanged); // changed() and/or currentChanged()
    void restoreItems(const ItemsState& s); // ItemsCommand: puts the lists and current names back, emits
    void pushItems(const QString& text, const ItemsState& after);
    std::vector<Run>& runs() { return project_.runs; }
    void runsChanged(std::optional<PlanRef> currentPlan); // the run commands: changed(), then the current plan moved
    // What to show once the current plan is deleted: the best plan that fits of run `runId` if it is still
    // there, else of the latest run that has one; nullopt when no plan is left.
    std::optional<PlanRef> bestRemainingPlan(int runId) const;
    // Pushes a PutItemCommand unless it would change nothing.
    template <class Item>
    void push(const QString& text, const std::string& name, std::optional<Item> after, bool makeCurrent);
    std::vector<Cluster>& items(Cluster*) { return project_.clusters; }
    std::vector<ProjectModel>& items(ProjectModel*) { return project_.models; }
    std::vector<NamedJob>& items(NamedJob*) { return project_.jobs; }
    std::string& current(Cluster*) { return currentCluster_; }
    std::string& current(ProjectModel*) { return currentModel_; }
    std::string& current(NamedJob*) { return currentJob_; }

    Project project_;
    QString path_;
    QUndoStack* undo_;
    ClusterDocument* canvas_;
    bool changedOutsideHistory_ = false;
    bool dirty_ = false; // last value dirtyChanged() announced
    std::string currentCluster_, currentModel_, currentJob_;
    std::optional<PlanRef> currentPlan_;
    std::optional<std::vector<std::string>> ticked_;
};

// Index of the run's best feasible result, -1 if none (or no run): under the goal its plans were chosen
// for (their GPU selection records it) the best plan meeting it, else the shortest iteration.
int bestFeasibleResult(const Run* run);

} // namespace hetplan
