#pragma once
// The plan the views show, simulated once. It follows the project document: the current plan, its cost
// model and simulation, and its run's other plans and failed planners. Each plan view is handed this
// object once and redraws on changed(), so a new view needs no wiring in the main window and no view
// simulates the plan again.
//
// Without a current plan it still holds the current cluster and its cost model (the batch → speed view
// draws the cluster's speed before anything was planned), and a run that gave no plan can be shown with
// showRun() (the comparison lists why each planner failed) while the last plan stays in the other views.
#include "core/cost/costmodel.h"
#include "core/model/plan.h"
#include "core/model/project.h"
#include "core/sim/simulator.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace hetplan {

class ProjectDocument;
struct Run;

// A planner of the run without a plan: its name, status ("error", "infeasible", "cancelled") and why.
struct PlannerFailure {
    QString planner, status, reason;
    bool operator==(const PlannerFailure&) const = default;
};

class CurrentPlan : public QObject {
    Q_OBJECT
public:
    explicit CurrentPlan(ProjectDocument* doc, QObject* parent = nullptr);

    const Plan* plan() const { return plan_ ? &*plan_ : nullptr; }
    // The plan's simulation with its timeline; nullptr without a plan or when it could not be simulated
    // (error() says why).
    const SimResult* simulation() const { return sim_ ? &*sim_ : nullptr; }
    QString error() const { return error_; }
    // The plan's cost model, or without a plan the current model's on the current cluster (nullptr when
    // there is no cluster or model).
    const CostModel* costs() const { return costs_ ? &*costs_ : nullptr; }
    const Cluster* cluster() const { return cluster_ ? &*cluster_ : nullptr; }
    // Every plan of the shown run, its labels (a re-plan's before/after names the nodes each had) and the
    // planners that gave none.
    const std::vector<Plan>& runPlans() const { return runPlans_; }
    const QStringList& runPlanLabels() const { return runPlanLabels_; }
    const std::vector<PlannerFailure>& failures() const { return failures_; }

    // Shows run `runId` in the run's parts (plans, failures) while the plan stays; until the current plan
    // changes. Used when a run ends without a plan.
    void showRun(int runId);
    // Reads everything again from the document (a run that finished into the current plan's run).
    void refresh();

signals:
    void changed();

private:
    void readPlan();
    void readRun(const Run* run);
    void onDocumentChanged(); // without a plan the cluster or model drawn may have changed

    // What the views draw without a plan: a change elsewhere in the project (a run, a rename) redraws nothing.
    struct Inputs {
        std::optional<Cluster> cluster;
        std::optional<ProjectModel> model;
        std::optional<Job> job;
        bool operator==(const Inputs&) const = default;
    };
    Inputs inputs() const;

    ProjectDocument* doc_;
    std::optional<Plan> plan_;
    std::optional<SimResult> sim_;
    std::optional<CostModel> costs_;
    std::optional<Cluster> cluster_;
    QString error_;
    std::vector<Plan> runPlans_;
    QStringList runPlanLabels_;
    std::vector<PlannerFailure> failures_;
    std::optional<int> shownRun_;
    Inputs drawn_; // the inputs read last
};

} // namespace hetplan
