// Managing what a project holds: renaming, duplicating and deleting clusters, models and jobs, deleting runs
// and results — each one undo step that puts back exactly the project it changed; the current item never
// dangles; the project tree's actions; File ▸ Import / Export JSON in the CLI's formats; the device guess
// of the import dialog and the profile notice (the engine's sequence / precision rule).
#include "testutil.h"

#include "core/io/device_guess.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "core/io/project_store.h"
#include "widgets/controller/project_document.h"
#include "widgets/controller/project_io.h"
#include "widgets/models/project_tree.h"
#include "widgets/models/project_tree_menu.h"
#include "widgets/panels/profile_notice.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <set>

using namespace hetplan;

namespace {

Project richProject()
{
    Project p;
    Cluster a = test::twoNodeCluster("V100-16GB", 2, "T4", 2);
    a.name = "a";
    Cluster b = test::twoNodeCluster("A100-80GB", 1, "T4", 1);
    b.name = "b";
    p.clusters = {a, b};
    ProjectModel gpt{buildExampleModel("gpt2-amp"), {}};
    gpt.profile.model = gpt.model.name;
    gpt.profile.source = "csv";
    LayerTiming t;
    t.forward = 1e-3;
    t.backward = 2e-3;
    gpt.profile.set(ProfileKey{"T4", 1, 1}, std::vector<LayerTiming>(size_t(gpt.model.layerCount()), t));
    ModelSpec toy = test::toyModel(4);
    toy.name = "toy";
    p.models = {gpt, ProjectModel{toy, {}}};
    p.jobs = {NamedJob{"default", Job{}}, NamedJob{"long", Job{}}};
    p.jobs[1].job.sequenceLength = 2048;
    for (int id : {1, 2}) {
        Run run;
        run.id = id;
        run.cluster = "a";
        run.model = gpt.model.name;
        run.job = "default";
        run.started = "2026-11-21T21:40:00Z";
        for (const char* planner : {"first", "second", "third"}) {
            RunResult r;
            r.planner = planner;
            r.status = RunStatus::Infeasible;
            run.results.push_back(r);
        }
        p.runs.push_back(run);
    }
    return p;
}

// The document opened from richProject(): "a", "gpt2-amp" and "default" current, no history, clean.
ProjectDocument* richDocument(QObject* parent, const QTemporaryDir& dir)
{
    const std::string path = dir.filePath("rich.hetplan").toStdString();
    saveProject(richProject(), path);
    auto* doc = new ProjectDocument(parent);
    doc->open(QString::fromStdString(path));
    return doc;
}

struct Snapshot {
    Project project;
    std::string cluster, model, job;
    std::optional<PlanRef> plan;
    bool operator==(const Snapshot&) const = default;
};

Snapshot snapshot(const ProjectDocument& d)
{
    return {d.project(), d.currentCluster(), d.currentModel(), d.currentJob(), d.currentPlan()};
}

std::vector<std::string> clusterNames(const ProjectDocument& d)
{
    std::vector<std::string> n;
    for (const Cluster& c : d.project().clusters)
        n.push_back(c.name);
    return n;
}

// The tree item for a cluster / model / job called `name`.
QModelIndex treeItem(const ProjectTreeModel& m, TreeKind kind, const QString& name)
{
    for (const QModelIndex& i : m.match(m.index(0, 0), kRoleName, name, -1, Qt::MatchExactly | Qt::MatchRecursive))
        if (i.data(kRoleKind).toInt() == int(kind))
            return i;
    return {};
}

QAction* actionNamed(const QList<QAction*>& actions, const QString& name)
{
    for (QAction* a : actions)
        if (a->objectName() == name)
            return a;
    return nullptr;
}

} // namespace

class TestProjectManage : public QObject {
    Q_OBJECT
    QTemporaryDir dir;

private slots:
    void uniqueNameCountsUp()
    {
        const std::set<std::string> taken = {"a", "a (2)", "b (7)"};
        auto isTaken = [&](const std::string& n) { return taken.count(n) > 0; };
        QCOMPARE(uniqueName("c", isTaken), std::string("c"));
        QCOMPARE(uniqueName("a", isTaken), std::string("a (3)"));
        QCOMPARE(uniqueName("a (2)", isTaken), std::string("a (3)")); // not "a (2) (2)"
        QCOMPARE(uniqueName("b (7)", isTaken), std::string("b (2)"));
        QCOMPARE(uniqueName("x (y)", [](const std::string& n) { return n == "x (y)"; }), std::string("x (y) (2)"));
    }

    void renameUndoRedoEachKind()
    {
        QObject owner;
        ProjectDocument* doc = richDocument(&owner, dir);
        const Snapshot before = snapshot(*doc);
        const std::string gpt = doc->currentModel();

        QVERIFY(doc->renameItem(ItemKind::Cluster, "a", "big"));
        QCOMPARE(clusterNames(*doc), (std::vector<std::string>{"big", "b"})); // same place in the list
        QCOMPARE(doc->currentCluster(), std::string("big"));                  // the current one follows
        QCOMPARE(doc->project().runs[0].cluster, std::string("a"));           // runs keep what they ran on
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Rename cluster a to big"));

        QVERIFY(doc->renameItem(ItemKind::Model, gpt, "my-gpt"));
        QCOMPARE(doc->model()->model.name, std::string("my-gpt"));
        QCOMPARE(doc->model()->profile.model, std::string("my-gpt")); // the profile names its model
        QVERIFY(doc->renameItem(ItemKind::Job, "long", "seq2k"));
        QCOMPARE(doc->currentJob(), std::string("default")); // not current: stays so
        QVERIFY(doc->project().findJob("seq2k"));

        // Refused without a step: taken, empty, unknown.
        const int steps = doc->undoStack()->count();
        QVERIFY(!doc->renameItem(ItemKind::Cluster, "big", "b"));
        QVERIFY(!doc->renameItem(ItemKind::Job, "default", ""));
        QVERIFY(!doc->renameItem(ItemKind::Model, "nope", "x"));
        QCOMPARE(doc->undoStack()->count(), steps);

        const Snapshot after = snapshot(*doc);
        for (int i = 0; i < 3; ++i)
            doc->undoStack()->undo();
        QVERIFY(snapshot(*doc) == before);
        QVERIFY(!doc->isDirty());
        for (int i = 0; i < 3; ++i)
            doc->undoStack()->redo();
        QVERIFY(snapshot(*doc) == after);
    }

    void duplicatePutsTheCopyAfterTheOriginal()
    {
        QObject owner;
        ProjectDocument* doc = richDocument(&owner, dir);
        const Snapshot before = snapshot(*doc);
        QCOMPARE(doc->duplicateItem(ItemKind::Cluster, "a"), std::string("a (2)"));
        QCOMPARE(clusterNames(*doc), (std::vector<std::string>{"a", "a (2)", "b"}));
        Cluster expected = before.project.clusters[0];
        expected.name = "a (2)";
        QVERIFY(doc->project().clusters[1] == expected); // a copy in every other field
        QCOMPARE(doc->currentCluster(), std::string("a"));
        QCOMPARE(doc->duplicateItem(ItemKind::Cluster, "a"), std::string("a (3)"));
        QCOMPARE(doc->duplicateItem(ItemKind::Job, "long"), std::string("long (2)"));
        QCOMPARE(doc->project().findJob("long (2)")->job.sequenceLength, 2048);
        QCOMPARE(doc->duplicateItem(ItemKind::Job, "missing"), std::string());
        QCOMPARE(doc->undoStack()->count(), 3);
        const Snapshot after = snapshot(*doc);
        while (doc->undoStack()->canUndo())
            doc->undoStack()->undo();
        QVERIFY(snapshot(*doc) == before);
        while (doc->undoStack()->canRedo())
            doc->undoStack()->redo();
        QVERIFY(snapshot(*doc) == after);
    }

    void deletingTheCurrentItemLeavesAValidOne()
    {
        QObject owner;
        ProjectDocument* doc = richDocument(&owner, dir);
        const Snapshot before = snapshot(*doc);
        QVERIFY(doc->removeItem(ItemKind::Cluster, "a"));
        QCOMPARE(doc->currentCluster(), std::string("b")); // the first one left
        QVERIFY(doc->cluster());
        QVERIFY(doc->removeItem(ItemKind::Cluster, "b"));
        QCOMPARE(doc->currentCluster(), std::string()); // none, never a dangling name
        QVERIFY(!doc->cluster());
        QVERIFY(doc->removeItem(ItemKind::Job, "long")); // not current: the current one stays
        QCOMPARE(doc->currentJob(), std::string("default"));
        QVERIFY(doc->removeItem(ItemKind::Model, "toy"));
        QVERIFY(!doc->removeItem(ItemKind::Model, "toy"));
        QCOMPARE(doc->project().runs.size(), size_t(2)); // runs are not items' children
        QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Delete model toy"));
        const Snapshot after = snapshot(*doc);
        while (doc->undoStack()->canUndo())
            doc->undoStack()->undo();
        QVERIFY(snapshot(*doc) == before);
        QVERIFY(!doc->isDirty());
        while (doc->undoStack()->canRedo())
            doc->undoStack()->redo();
        QVERIFY(snapshot(*doc) == after);
        QCOMPARE(doc->currentCluster(), std::string());
    }

    void deletingRunsAndResultsIsUndone()
    {
        QObject owner;
        ProjectDocument* doc = richDocument(&owner, dir);
        doc->setCurrentPlan(PlanRef{1, 2});
        const Snapshot before = snapshot(*doc);

        // A result before the current one: the current plan moves up with its result.
        QVERIFY(doc->removeRunResult(1, 0));
        QCOMPARE(doc->project().runs[0].results.size(), size_t(2));
        QCOMPARE(doc->project().runs[0].results[0].planner, std::string("second"));
        QCOMPARE(doc->currentPlan(), std::optional<PlanRef>(PlanRef{1, 1}));
        QVERIFY(doc->isDirty());
        doc->undoStack()->undo();
        QVERIFY(snapshot(*doc) == before);

        // The current result itself: no current plan.
        QVERIFY(doc->removeRunResult(1, 2));
        QCOMPARE(doc->currentPlan(), std::nullopt);
        doc->undoStack()->undo();
        QVERIFY(snapshot(*doc) == before);

        // A whole run, at the front of the list: back in its place; redo takes it again.
        QVERIFY(doc->removeRun(1));
        QCOMPARE(doc->project().runs.size(), size_t(1));
        QCOMPARE(doc->project().runs[0].id, 2);
        QCOMPARE(doc->currentPlan(), std::nullopt);
        const Snapshot withoutRun = snapshot(*doc);
        doc->undoStack()->undo();
        QVERIFY(snapshot(*doc) == before);
        doc->undoStack()->redo();
        QVERIFY(snapshot(*doc) == withoutRun);
        doc->undoStack()->undo();
        QVERIFY(!doc->removeRun(7));
        QVERIFY(!doc->removeRunResult(1, 3));
        QVERIFY(!doc->isDirty());
    }

    // Deleting the plan on show leaves the views on the best plan left, not blank.
    void deletingTheShownPlanShowsTheBestLeft()
    {
        ProjectDocument doc;
        const auto runOf = [](std::vector<std::pair<double, bool>> plans) {
            Run run;
            for (const auto& [seconds, fits] : plans) {
                RunResult r;
                r.planner = "p" + std::to_string(run.results.size());
                r.plan = Plan{};
                r.plan->estimate.iterationSeconds = seconds;
                r.plan->estimate.feasible = fits;
                run.results.push_back(r);
            }
            return run;
        };
        const int earlier = doc.addRun(runOf({{5.0, true}}));
        const int latest = doc.addRun(runOf({{3.0, true}, {1.0, true}, {2.0, true}, {0.5, false}}));
        doc.setCurrentPlan(PlanRef{latest, 1});
        QVERIFY(doc.removeRunResult(latest, 1));
        // Of 3 s, 2 s and a 0.5 s plan that does not fit: the 2 s one, now at index 1.
        QCOMPARE(doc.currentPlan(), std::optional<PlanRef>(PlanRef{latest, 1}));
        QVERIFY(doc.removeRun(latest));
        QCOMPARE(doc.currentPlan(), std::optional<PlanRef>(PlanRef{earlier, 0})); // the other run's best
        doc.undoStack()->undo();
        QCOMPARE(doc.currentPlan(), std::optional<PlanRef>(PlanRef{latest, 1}));
        QVERIFY(doc.removeRun(earlier));
        QVERIFY(doc.removeRun(latest));
        QCOMPARE(doc.currentPlan(), std::nullopt); // none left
    }

    void aRunAddedAfterADeleteSurvivesItsUndo()
    {
        QObject owner;
        ProjectDocument* doc = richDocument(&owner, dir);
        QVERIFY(doc->removeRun(1));
        Run later;
        later.cluster = "b";
        const int id = doc->addRun(later);
        QCOMPARE(id, 3);
        doc->undoStack()->undo();
        QCOMPARE(doc->project().runs.size(), size_t(3));
        QCOMPARE(doc->project().runs[0].id, 1);
        QCOMPARE(doc->project().runs[2].id, 3);
    }

    void treeActionsRenameDuplicateDeleteSetCurrent()
    {
        QObject owner;
        ProjectDocument* doc = richDocument(&owner, dir);
        ProjectTreeModel tree;
        auto rebuild = [&] { tree.rebuild(doc->project()); };
        QObject::connect(doc, &ProjectDocument::changed, &tree, rebuild);
        rebuild();
        ProjectTreeActions actions(doc);
        QString asked;
        actions.askName = [&](const QString& title, const QString&) -> std::optional<QString> {
            asked = title;
            return QStringLiteral("renamed");
        };
        QObject menuOwner;

        // Which actions each kind of item gets.
        const QModelIndex b = treeItem(tree, TreeKind::Cluster, "b");
        QList<QAction*> forB = actions.actionsFor(b, &menuOwner);
        for (const char* name : {"setCurrent", "rename", "duplicate", "delete"})
            QVERIFY2(actionNamed(forB, name), name);
        QVERIFY(!actionNamed(forB, "newJob"));
        const QModelIndex run = tree.match(tree.index(0, 0), kRoleRun, 1, 1, Qt::MatchExactly | Qt::MatchRecursive)[0];
        const QList<QAction*> forRun = actions.actionsFor(run, &menuOwner);
        QCOMPARE(forRun.size(), 1);
        QCOMPARE(forRun[0]->objectName(), QStringLiteral("delete"));
        QVERIFY(actions.actionsFor(tree.index(0, 0), &menuOwner).isEmpty()); // the Clusters group

        actionNamed(forB, "setCurrent")->trigger();
        QCOMPARE(doc->currentCluster(), std::string("b"));
        actionNamed(forB, "rename")->trigger();
        QCOMPARE(asked, QStringLiteral("Rename b"));
        QCOMPARE(clusterNames(*doc), (std::vector<std::string>{"a", "renamed"}));
        QCOMPARE(doc->currentCluster(), std::string("renamed"));

        const QModelIndex a = treeItem(tree, TreeKind::Cluster, "a");
        actionNamed(actions.actionsFor(a, &menuOwner), "duplicate")->trigger();
        QCOMPARE(clusterNames(*doc), (std::vector<std::string>{"a", "a (2)", "renamed"}));
        // Renaming onto a taken name does nothing and says why.
        QSignalSpy messages(&actions, &ProjectTreeActions::message);
        actions.askName = [](const QString&, const QString&) -> std::optional<QString> { return QStringLiteral("a"); };
        actionNamed(actions.actionsFor(treeItem(tree, TreeKind::Cluster, "a (2)"), &menuOwner), "rename")->trigger();
        QCOMPARE(messages.count(), 1);
        QVERIFY(messages[0][1].toBool());
        QCOMPARE(clusterNames(*doc), (std::vector<std::string>{"a", "a (2)", "renamed"}));

        actionNamed(actions.actionsFor(treeItem(tree, TreeKind::Cluster, "renamed"), &menuOwner), "delete")->trigger();
        QCOMPARE(clusterNames(*doc), (std::vector<std::string>{"a", "a (2)"}));
        QCOMPARE(doc->currentCluster(), std::string("a"));
        // Undo walks back through delete, duplicate and rename (set current is navigation, not a step).
        QCOMPARE(doc->undoStack()->count(), 3);
        doc->undoStack()->undo();
        doc->undoStack()->undo();
        doc->undoStack()->undo();
        QCOMPARE(clusterNames(*doc), (std::vector<std::string>{"a", "b"}));
        QCOMPARE(doc->currentCluster(), std::string("b"));
    }

    void severalJobsAndSetCurrent()
    {
        QObject owner;
        ProjectDocument* doc = richDocument(&owner, dir);
        ProjectTreeModel tree;
        tree.rebuild(doc->project());
        ProjectTreeActions actions(doc);
        QObject menuOwner;
        const QModelIndex jobsGroup = tree.index(2, 0);
        QCOMPARE(jobsGroup.data().toString(), QStringLiteral("Jobs"));
        QAction* add = actionNamed(actions.actionsFor(jobsGroup, &menuOwner), "newJob");
        QVERIFY(add);
        doc->setCurrentJob("long");
        add->trigger();
        add->trigger();
        QCOMPARE(doc->project().jobs.size(), size_t(4));
        QCOMPARE(doc->currentJob(), std::string("job (2)")); // the newest, made current
        QCOMPARE(doc->project().findJob("job")->job.sequenceLength, 2048); // a copy of the current job's settings
        tree.rebuild(doc->project());
        QSignalSpy current(&actions, &ProjectTreeActions::madeCurrent);
        actionNamed(actions.actionsFor(treeItem(tree, TreeKind::Job, "default"), &menuOwner), "setCurrent")->trigger();
        QCOMPARE(doc->currentJob(), std::string("default"));
        QCOMPARE(current.count(), 1);
        actionNamed(actions.actionsFor(treeItem(tree, TreeKind::Model, "toy"), &menuOwner), "setCurrent")->trigger();
        QCOMPARE(doc->currentModel(), std::string("toy"));
        doc->undoStack()->undo();
        QCOMPARE(doc->project().jobs.size(), size_t(3));
    }

    void runningRunCannotBeDeleted()
    {
        QObject owner;
        ProjectDocument* doc = richDocument(&owner, dir);
        ProjectTreeModel tree;
        tree.rebuild(doc->project());
        ProjectTreeActions actions(doc);
        actions.isRunning = [](int id) { return id == 2; };
        QObject menuOwner;
        const QModelIndex run2 = tree.resultIndex(2, 0).parent();
        QCOMPARE(run2.data(kRoleRun).toInt(), 2);
        QVERIFY(!actionNamed(actions.actionsFor(run2, &menuOwner), "delete")->isEnabled());
        QVERIFY(!actions.removeAt(run2));
        QVERIFY(!actions.removeAt(tree.resultIndex(2, 1)));
        QCOMPARE(doc->project().runs.size(), size_t(2));
        QVERIFY(actions.removeAt(tree.resultIndex(1, 1)));
        QCOMPARE(doc->project().runs[0].results.size(), size_t(2));
    }

    void importAndExportUseTheCliFormats()
    {
        QObject owner;
        ProjectDocument* doc = richDocument(&owner, dir);
        // The CLI's bundled example file loads into the GUI as the CLI sees it.
        const std::string example = test::sourceDir() + "/resources/clusters/amp-het-cluster.json";
        QCOMPARE(importJson(*doc, JsonItem::Cluster, example), std::string("amp-het-cluster"));
        QVERIFY(*doc->cluster() == readCluster(example));
        QCOMPARE(doc->undoStack()->count(), 1);
        // A second time: a name clash is imported as "name (2)".
        QCOMPARE(importJson(*doc, JsonItem::Cluster, example), std::string("amp-het-cluster (2)"));
        QCOMPARE(doc->currentCluster(), std::string("amp-het-cluster (2)"));

        // GUI export → CLI reader → GUI import: the same cluster and model.
        const std::string clusterFile = dir.filePath("cluster-out.json").toStdString();
        const std::string modelFile = dir.filePath("model-out.json").toStdString();
        doc->setCurrentCluster("a");
        exportJson(*doc, JsonItem::Cluster, clusterFile);
        exportJson(*doc, JsonItem::Model, modelFile);
        QVERIFY(readCluster(clusterFile) == *doc->cluster());
        QVERIFY(readModel(modelFile) == doc->model()->model);
        const std::string modelName = importJson(*doc, JsonItem::Model, modelFile);
        QCOMPARE(modelName, doc->model()->model.name + "");
        QVERIFY(modelName.find(" (2)") != std::string::npos);
        ModelSpec renamed = doc->project().models.front().model;
        renamed.name = modelName;
        QVERIFY(doc->model()->model == renamed);

        // No plan selected: export says so, nothing is written.
        const std::string planFile = dir.filePath("plan-none.json").toStdString();
        const auto noPlan = test::errorOf([&] { exportJson(*doc, JsonItem::Plan, planFile); });
        QVERIFY(noPlan && noPlan->field() == "plan");
        QVERIFY(!QFile::exists(QString::fromStdString(planFile)));
    }

    void badImportFilesLeaveTheProjectAlone()
    {
        QObject owner;
        ProjectDocument* doc = richDocument(&owner, dir);
        const Snapshot before = snapshot(*doc);
        QFile bad(dir.filePath("bad-cluster.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"name": "x", "nodes": [{"name": "n", "device": "T4", "gpus": -2}]})");
        bad.close();
        for (JsonItem kind : {JsonItem::Cluster, JsonItem::Model, JsonItem::Plan}) {
            const auto e = test::errorOf([&] { importJson(*doc, kind, bad.fileName().toStdString()); });
            QVERIFY(e);
            QCOMPARE(e->file(), bad.fileName().toStdString()); // file: field: reason
            QVERIFY(!e->reason().empty());
            const auto missing = test::errorOf([&] { importJson(*doc, kind, "/nonexistent/x.json"); });
            QVERIFY(missing);
        }
        QVERIFY(snapshot(*doc) == before);
        QCOMPARE(doc->undoStack()->count(), 0);
        QVERIFY(!doc->isDirty());
    }

    void deviceGuessFromPathThenContent()
    {
        QCOMPARE(guessDeviceType("/data/A100-80/profile.json"), std::string("A100-80GB"));
        QCOMPARE(guessDeviceType("runs/v100_16gb/times.npy"), std::string("V100-16GB"));
        QCOMPARE(guessDeviceType("runs/V100-16/x/layer_times.csv"), std::string("V100-16GB"));
        QCOMPARE(guessDeviceType("/p/T4/gpt2.npy"), std::string("T4"));
        QCOMPARE(guessDeviceType("/p/profile_a100_80gb_pcie.csv"), std::string("A100-80GB-PCIe")); // longest
        QCOMPARE(guessDeviceType("/p/T40/x.npy"), std::string());       // "T4" only as a whole token
        QCOMPARE(guessDeviceType("/p/a100-80gb/t4.csv"), std::string("T4")); // the nearest component first
        QCOMPARE(guessDeviceType("/p/nothing/here.json"), std::string());

        QFile json(dir.filePath("measured.json"));
        QVERIFY(json.open(QIODevice::WriteOnly));
        json.write(R"({"model": "m", "gpu": "Tesla V100-SXM2-32GB", "layers": []})");
        json.close();
        QCOMPARE(guessDeviceType(json.fileName().toStdString()), std::string("V100-32GB"));
        QFile csv(dir.filePath("times.csv"));
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("device,tp,micro_batch,layer,forward_ms,backward_ms\nH100-SXM,1,1,0,1.0,2.0\n");
        csv.close();
        QCOMPARE(guessDeviceType(csv.fileName().toStdString()), std::string("H100-SXM"));
    }

    void profileNoticeFollowsTheEngineRule()
    {
        Profile p;
        LayerTiming t;
        t.forward = 1e-3;
        p.set(ProfileKey{"T4", 1, 1}, {t});
        p.sequenceLength = 512;
        p.precision = Precision::FP16;
        Job job;
        job.sequenceLength = 512;
        job.precision = Precision::FP16;
        QCOMPARE(profileNotice(job, p).text, QString()); // matches: no flag
        QCOMPARE(profileNotice(job, Profile{}).text, QString());
        job.sequenceLength = 1024;
        ProfileNotice n = profileNotice(job, p);
        QVERIFY2(n.text.contains("sequence length 512") && n.text.contains("1024"), qPrintable(n.text));
        QVERIFY(!n.refused);
        job.sequenceLength = 512;
        job.precision = Precision::FP32;
        n = profileNotice(job, p);
        QVERIFY(n.refused);
        QVERIFY2(n.text.contains("fp16") || n.text.contains("FP16"), qPrintable(n.text));
    }
};

QTEST_MAIN(TestProjectManage)
#include "tst_project_manage.moc"
