// The project document's one undo history: job edits, profile imports, model choices, new clusters and
// cluster canvas edits are steps on it; the dirty flag follows it back to clean; planner runs dirty the
// document without being steps; replacing the project ends the history, showing another cluster does not
// (a canvas step undone later brings its own cluster back).
#include "canvas_fixtures.h"
#include "testutil.h"

#include "core/io/examples.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/property_panel.h" // cluster_editor.h's panel() needs the complete type
#include "widgets/commands/cluster_fields.h"
#include "widgets/controller/project_document.h"
#include "widgets/models/cluster_document.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QTest>

using namespace hetplan;

namespace {

ProjectDocument* exampleDocument(QObject* parent)
{
    auto* doc = new ProjectDocument(parent);
    doc->loadExample("amp-het-cluster", "gpt2-amp");
    return doc;
}

Cluster labCluster()
{
    Cluster lab = test::triangle();
    lab.name = "lab";
    return lab;
}

// The example project plus labCluster(), the example's cluster current again and the history empty: two
// clusters to switch between.
ProjectDocument* twoClusterDocument(QObject* parent)
{
    ProjectDocument* doc = exampleDocument(parent);
    const std::string a = doc->cluster()->name;
    doc->setCluster(labCluster());
    doc->setCurrentCluster(a);
    doc->undoStack()->clear();
    return doc;
}

Job withBatch(int gbs)
{
    Job j;
    j.globalBatchSize = gbs;
    return j;
}

} // namespace

class TestProjectDocument : public QObject {
    Q_OBJECT
private slots:
    void jobEditUndoRedo();
    void jobEditsOfOneFieldMerge();
    void profileImportUndoRedo();
    void modelChoiceUndoRedo();
    void jobFollowsTheModelsSequence();
    void newClusterUndoRedo();
    void dirtyFollowsUndoBackToClean();
    void runsDirtyWithoutUndoSteps();
    void canvasEditUndoThroughDocumentStack();
    void undoSurvivesSwitchingClusters();
    void undoingARenameOfAnotherCluster();
    void treeRenamesBetweenCanvasSteps();
    void canvasRenameRefusesATakenName();
    void drawingOnTheEmptyCanvasAddsACluster();
    void failedNodesChangedFollowsUndoAcrossClusters();
    void replacingTheProjectEndsHistory();
};

void TestProjectDocument::jobEditUndoRedo()
{
    QObject owner;
    ProjectDocument* doc = exampleDocument(&owner);
    const NamedJob before = *doc->job();
    NamedJob edited = before;
    edited.job.zeroStage = 2;
    doc->setJob(edited);
    QCOMPARE(doc->job()->job.zeroStage, 2);
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Edit job default"));
    QSignalSpy changed(doc, &ProjectDocument::changed);
    doc->undoStack()->undo();
    QVERIFY(*doc->job() == before);
    QCOMPARE(changed.count(), 1); // the views follow undo
    doc->undoStack()->redo();
    QVERIFY(*doc->job() == edited);
    doc->setJob(edited); // nothing changes: no step
    QCOMPARE(doc->undoStack()->count(), 1);

    // A job that does not exist yet is added and selected; undo removes it and selects the old one.
    doc->setJob({"long", withBatch(512)});
    QCOMPARE(doc->currentJob(), std::string("long"));
    QCOMPARE(doc->project().jobs.size(), size_t(2));
    doc->undoStack()->undo();
    QCOMPARE(doc->currentJob(), std::string("default"));
    QCOMPARE(doc->project().jobs.size(), size_t(1));
}

void TestProjectDocument::jobEditsOfOneFieldMerge()
{
    QObject owner;
    ProjectDocument* doc = exampleDocument(&owner);
    const NamedJob start = *doc->job();
    NamedJob j = start;
    for (int gbs : {33, 34, 35}) { // three spin-box clicks
        j.job.globalBatchSize = gbs;
        doc->setJob(j);
    }
    QCOMPARE(doc->undoStack()->count(), 1);
    j.job.recompute = true; // another field: a step of its own
    doc->setJob(j);
    QCOMPARE(doc->undoStack()->count(), 2);
    doc->undoStack()->undo();
    QCOMPARE(doc->job()->job.globalBatchSize, 35);
    doc->undoStack()->undo();
    QVERIFY(*doc->job() == start);
}

void TestProjectDocument::profileImportUndoRedo()
{
    QObject owner;
    ProjectDocument* doc = exampleDocument(&owner);
    const ProjectModel before = *doc->model();
    QVERIFY(before.profile.empty());
    Profile measured;
    measured.model = before.model.name;
    measured.source = "test";
    measured.set({"T4", 1, 1}, std::vector<LayerTiming>(before.model.layerCount(), LayerTiming{1e-3, 2e-3, 0, -1}));
    doc->setProfile(before.model.name, measured);
    QCOMPARE(doc->model()->profile, measured);
    QVERIFY(doc->isDirty());
    QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Import profile for gpt2-amp"));
    doc->undoStack()->undo();
    QVERIFY(*doc->model() == before);
    QVERIFY(!doc->isDirty());
    doc->undoStack()->redo();
    QCOMPARE(doc->model()->profile, measured);
    doc->setProfile("no-such-model", measured); // refused without a step
    QCOMPARE(doc->undoStack()->count(), 1);
}

void TestProjectDocument::modelChoiceUndoRedo()
{
    QObject owner;
    ProjectDocument* doc = exampleDocument(&owner);
    QSignalSpy current(doc, &ProjectDocument::currentChanged);
    doc->addModel({buildExampleModel("bert-base"), {}});
    QCOMPARE(doc->project().models.size(), size_t(2));
    QCOMPARE(doc->currentModel(), std::string("bert-base"));
    QCOMPARE(current.count(), 1);
    doc->chooseModel("gpt2-amp"); // a model the project has: only the choice is a step
    QCOMPARE(doc->currentModel(), std::string("gpt2-amp"));
    doc->chooseModel("gpt2-amp"); // already current: no step
    doc->chooseModel("no-such");  // unknown: no step
    QCOMPARE(doc->undoStack()->count(), 2);
    QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Choose model gpt2-amp"));
    doc->undoStack()->undo();
    QCOMPARE(doc->currentModel(), std::string("bert-base"));
    doc->undoStack()->undo();
    QCOMPARE(doc->project().models.size(), size_t(1));
    QCOMPARE(doc->currentModel(), std::string("gpt2-amp"));
    QVERIFY(!doc->isDirty());
    doc->undoStack()->redo();
    QCOMPARE(doc->project().models.back().model.name, std::string("bert-base"));
    QCOMPARE(doc->currentModel(), std::string("bert-base"));
}

void TestProjectDocument::jobFollowsTheModelsSequence()
{
    // gpt2-amp is built for 1024 tokens and the example's job has 1024; llama2-7b is built for 4096.
    QObject owner;
    ProjectDocument* doc = exampleDocument(&owner);
    QCOMPARE(doc->job()->job.sequenceLength, 1024);
    doc->addModel({buildExampleModel("llama2-7b"), {}});
    QCOMPARE(doc->job()->job.sequenceLength, 4096); // followed: the user had not chosen another length
    QCOMPARE(doc->undoStack()->count(), 1);          // one step for both
    QVERIFY(!doc->contextText().contains("own"));
    doc->undoStack()->undo();
    QCOMPARE(doc->currentModel(), std::string("gpt2-amp"));
    QCOMPARE(doc->job()->job.sequenceLength, 1024);
    doc->undoStack()->redo();
    QCOMPARE(doc->job()->job.sequenceLength, 4096);
    // A length the user chose stays; the context line then shows the model's own.
    NamedJob chosen = *doc->job();
    chosen.job.sequenceLength = 2048;
    doc->setJob(chosen);
    doc->chooseModel("gpt2-amp");
    QCOMPARE(doc->job()->job.sequenceLength, 2048);
    QVERIFY2(doc->contextText().contains("seq 2048 (the model's own: 1024)"), qPrintable(doc->contextText()));
}

void TestProjectDocument::newClusterUndoRedo()
{
    QObject owner;
    ProjectDocument* doc = exampleDocument(&owner);
    Cluster lab;
    lab.name = "lab";
    doc->setCluster(lab);
    QCOMPARE(doc->currentCluster(), std::string("lab"));
    QCOMPARE(doc->project().clusters.size(), size_t(2));
    doc->undoStack()->undo();
    QCOMPARE(doc->currentCluster(), std::string("amp-het-cluster"));
    QCOMPARE(doc->project().clusters.size(), size_t(1));
}

void TestProjectDocument::dirtyFollowsUndoBackToClean()
{
    QTemporaryDir dir;
    QObject owner;
    ProjectDocument* doc = exampleDocument(&owner);
    QVERIFY(!doc->isDirty());
    QSignalSpy dirty(doc, &ProjectDocument::dirtyChanged);
    doc->setJob({"default", withBatch(64)});
    QVERIFY(doc->isDirty());
    doc->setJob({"default", withBatch(64)}); // no change: no step, no signal
    doc->undoStack()->undo();
    QVERIFY(!doc->isDirty());
    QCOMPARE(dirty.count(), 2);
    QCOMPARE(dirty.at(0).at(0).toBool(), true);
    QCOMPARE(dirty.at(1).at(0).toBool(), false);

    // Saved state in the middle of the history: undo leaves it, redo comes back to it.
    doc->undoStack()->redo();
    doc->saveAs(dir.filePath("p.hetplan"));
    QVERIFY(!doc->isDirty());
    doc->undoStack()->undo();
    QVERIFY(doc->isDirty());
    doc->undoStack()->redo();
    QVERIFY(!doc->isDirty());
    QCOMPARE(dirty.count(), 6);
}

void TestProjectDocument::runsDirtyWithoutUndoSteps()
{
    QTemporaryDir dir;
    QObject owner;
    ProjectDocument* doc = exampleDocument(&owner);
    doc->setJob({"default", withBatch(64)});
    doc->undoStack()->undo();
    QVERIFY(!doc->isDirty());
    Run run; // a run as the Run tab starts one: the current cluster, model and job
    run.cluster = doc->cluster()->name;
    run.model = doc->model()->model.name;
    run.job = doc->job()->name;
    run.started = "2026-12-05T12:00:00Z";
    const int id = doc->addRun(run);
    QVERIFY(doc->isDirty());
    QCOMPARE(doc->undoStack()->count(), 1); // the job edit (undone); the run is no step
    QVERIFY(!doc->undoStack()->canUndo());
    RunResult failed; // a planner that gave no plan
    failed.planner = "amp";
    failed.status = RunStatus::Infeasible;
    failed.message = "no plan fits";
    doc->addRunResult(id, failed);
    // Going back to the stack's clean state does not hide an unsaved run.
    doc->undoStack()->redo();
    doc->undoStack()->undo();
    QVERIFY(doc->undoStack()->isClean());
    QVERIFY(doc->isDirty());
    doc->saveAs(dir.filePath("runs.hetplan"));
    QVERIFY(!doc->isDirty());
    QCOMPARE(doc->project().runs.size(), size_t(1));
}

void TestProjectDocument::canvasEditUndoThroughDocumentStack()
{
    QObject owner;
    ProjectDocument* doc = exampleDocument(&owner);
    const Cluster original = *doc->cluster();
    // The main window's wiring: the editor edits the document's canvas, which holds the current cluster.
    ClusterEditor editor(doc->clusterDocument(), doc->undoStack());
    QVERIFY(editor.cluster() == original);
    QVERIFY(editor.addNode(QStringLiteral("A100-40GB"), 8, QPointF(900, 0)));
    QCOMPARE(doc->cluster()->nodes.size(), original.nodes.size() + 1);
    QVERIFY(doc->isDirty());
    QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Add node a100-0"));
    doc->setJob({"default", withBatch(96)}); // another kind of step on the same stack
    doc->undoStack()->undo();
    doc->undoStack()->undo();
    QVERIFY(*doc->cluster() == original);
    QVERIFY(editor.cluster() == original);
    QVERIFY(!doc->isDirty());
    doc->undoStack()->redo();
    QCOMPARE(doc->cluster()->nodes.back().name, std::string("a100-0"));
}

void TestProjectDocument::undoSurvivesSwitchingClusters()
{
    QObject owner;
    ProjectDocument* doc = twoClusterDocument(&owner);
    const Cluster a = *doc->cluster();
    const Cluster b = labCluster();
    ClusterEditor editor(doc->clusterDocument(), doc->undoStack());

    // Edit a node of A, switch to B, edit a node there, switch back to A.
    QVERIFY(editor.setNodeFailed(0, true));
    doc->setCurrentCluster("lab");
    QVERIFY(editor.cluster() == b); // the canvas follows the current cluster
    doc->undoStack()->push(changeValue(doc->clusterDocument(), 1, nodeField::gpus, 7));
    QCOMPARE(doc->project().findCluster("lab")->nodes[1].gpus, 7);
    doc->setCurrentCluster(a.name);
    QCOMPARE(doc->undoStack()->count(), 2); // navigating kept both steps

    // Undo twice: B's edit (bringing B onto the canvas), then A's.
    doc->undoStack()->undo();
    QCOMPARE(doc->currentCluster(), std::string("lab"));
    QVERIFY(*doc->project().findCluster("lab") == b);
    QVERIFY(editor.cluster() == b);
    QVERIFY(doc->project().findCluster(a.name)->nodes[0].failed); // A's edit still there
    doc->undoStack()->undo();
    QCOMPARE(doc->currentCluster(), a.name);
    QVERIFY(*doc->project().findCluster(a.name) == a);
    QVERIFY(*doc->project().findCluster("lab") == b);
    QVERIFY(editor.cluster() == a);
    QVERIFY(!doc->undoStack()->canUndo());

    // And redo both, each on its own cluster, whichever is shown.
    doc->setCurrentCluster("lab");
    doc->undoStack()->redo();
    doc->undoStack()->redo();
    QVERIFY(doc->project().findCluster(a.name)->nodes[0].failed);
    QCOMPARE(doc->project().findCluster("lab")->nodes[1].gpus, 7);
    QCOMPARE(doc->currentCluster(), std::string("lab"));
}

void TestProjectDocument::undoingARenameOfAnotherCluster()
{
    // A canvas step may rename its cluster: the steps before and after it still find theirs.
    QObject owner;
    ProjectDocument* doc = twoClusterDocument(&owner);
    const Cluster a = *doc->cluster();
    const Cluster b = labCluster();
    ClusterDocument* canvas = doc->clusterDocument();
    doc->undoStack()->push(changeValue(canvas, 0, nodeField::gpus, 3));
    doc->undoStack()->push(changeValue(canvas, 0, clusterField::name, std::string("renamed")));
    QCOMPARE(doc->currentCluster(), std::string("renamed"));
    doc->undoStack()->push(changeValue(canvas, 1, nodeField::gpus, 5));
    doc->setCurrentCluster("lab");
    for (int i = 0; i < 3; ++i)
        doc->undoStack()->undo();
    QVERIFY(!doc->project().findCluster("renamed"));
    QVERIFY(*doc->project().findCluster(a.name) == a);
    QCOMPARE(doc->currentCluster(), a.name);
    doc->setCurrentCluster("lab");
    for (int i = 0; i < 3; ++i)
        doc->undoStack()->redo();
    const Cluster* r = doc->project().findCluster("renamed");
    QVERIFY(r && r->nodes[0].gpus == 3 && r->nodes[1].gpus == 5);
    QVERIFY(!doc->project().findCluster(a.name));
}

void TestProjectDocument::treeRenamesBetweenCanvasSteps()
{
    // Canvas step on A, A renamed in the project tree, canvas step on the renamed A, B shown: undo all three
    // and redo them, each on the cluster it changed.
    QObject owner;
    ProjectDocument* doc = twoClusterDocument(&owner);
    const Cluster a = *doc->cluster();
    const Cluster b = labCluster();
    ClusterDocument* canvas = doc->clusterDocument();
    doc->undoStack()->push(changeValue(canvas, 0, nodeField::gpus, 2));
    QVERIFY(doc->renameItem(ItemKind::Cluster, a.name, "renamed"));
    QCOMPARE(canvas->cluster().name, std::string("renamed"));
    doc->undoStack()->push(changeValue(canvas, 1, nodeField::gpus, 6));
    doc->setCurrentCluster("lab");
    for (int i = 0; i < 3; ++i)
        doc->undoStack()->undo();
    QVERIFY(*doc->project().findCluster(a.name) == a);
    QVERIFY(*doc->project().findCluster("lab") == b);
    QVERIFY(!doc->project().findCluster("renamed"));
    for (int i = 0; i < 3; ++i)
        doc->undoStack()->redo();
    const Cluster* r = doc->project().findCluster("renamed");
    QVERIFY(r && r->nodes[0].gpus == 2 && r->nodes[1].gpus == 6);
    QVERIFY(*doc->project().findCluster("lab") == b);
}

void TestProjectDocument::canvasRenameRefusesATakenName()
{
    // Cluster names are how canvas steps find their cluster: the canvas may not give one a taken name.
    QObject owner;
    ProjectDocument* doc = twoClusterDocument(&owner);
    const ClusterDocument* canvas = doc->clusterDocument();
    QCOMPARE(canvas->checkClusterName("lab"), QStringLiteral("Another cluster is already called 'lab'."));
    QVERIFY(canvas->checkClusterName("amp-het-cluster").isEmpty()); // its own name is fine
    QVERIFY(canvas->checkClusterName("new name").isEmpty());
    QVERIFY(!canvas->checkClusterName("  ").isEmpty());
}

void TestProjectDocument::drawingOnTheEmptyCanvasAddsACluster()
{
    // A new project has no cluster: the canvas holds an empty one with a free name, which the first edit
    // adds to the project. Undo removes the node, not the cluster, so the project stays unsaved.
    QObject owner;
    auto* doc = new ProjectDocument(&owner);
    doc->newProject();
    QVERIFY(!doc->cluster());
    ClusterEditor editor(doc->clusterDocument(), doc->undoStack());
    QCOMPARE(editor.cluster().name, std::string("cluster"));
    QVERIFY(editor.addNode(QStringLiteral("T4"), 4, QPointF(0, 0)));
    QVERIFY(doc->cluster());
    QCOMPARE(doc->cluster()->name, std::string("cluster"));
    QCOMPARE(doc->cluster()->nodes.size(), size_t(1));
    doc->undoStack()->undo();
    QVERIFY(doc->cluster() && doc->cluster()->nodes.empty());
    QVERIFY(doc->isDirty());
    doc->undoStack()->redo();
    QCOMPARE(doc->cluster()->nodes.size(), size_t(1));
    QCOMPARE(doc->project().clusters.size(), size_t(1));
}

void TestProjectDocument::failedNodesChangedFollowsUndoAcrossClusters()
{
    QObject owner;
    ProjectDocument* doc = twoClusterDocument(&owner);
    const std::string a = doc->cluster()->name;
    QSignalSpy failed(doc, &ProjectDocument::failedNodesChanged);
    doc->undoStack()->push(changeValue(doc->clusterDocument(), 0, nodeField::markFailed, true));
    QCOMPARE(failed.count(), 1);
    doc->undoStack()->push(changeValue(doc->clusterDocument(), 0, nodeField::gpus, 3)); // not a failure
    QCOMPARE(failed.count(), 1);
    doc->setCurrentCluster("lab");
    doc->undoStack()->undo();
    doc->undoStack()->undo(); // the mark, undone on A, brought back onto the canvas
    QCOMPARE(failed.count(), 2);
    QCOMPARE(doc->currentCluster(), a);
    QVERIFY(failedNodeNames(*doc->cluster()).empty());
}

void TestProjectDocument::replacingTheProjectEndsHistory()
{
    QObject owner;
    ProjectDocument* doc = exampleDocument(&owner);
    doc->setJob({"default", withBatch(64)});
    doc->loadExample("ditto-ex2", "gpt2-xl");
    QCOMPARE(doc->undoStack()->count(), 0);
    QVERIFY(!doc->isDirty());
    doc->setJob({"default", withBatch(64)});
    doc->newProject();
    QCOMPARE(doc->undoStack()->count(), 0);
    QVERIFY(!doc->isDirty());
}

QTEST_MAIN(TestProjectDocument)
#include "tst_project_document.moc"
