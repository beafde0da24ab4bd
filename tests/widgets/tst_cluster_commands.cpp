// Undo commands of the cluster canvas on a ClusterDocument alone (no scene, no view): every command
// kind round-trips through undo/redo, removals restore exactly, and merging follows its rules (the
// ChangeValue template merges consecutive edits of one field of one object).
#include "canvas_fixtures.h"

#include "core/io/examples.h"
#include "widgets/canvas/auto_layout.h"
#include "widgets/models/cluster_document.h"
#include "widgets/commands/cluster_fields.h"
#include "widgets/commands/link_commands.h"

#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

#include <algorithm>
#include <set>

using namespace hetplan;
using hetplan::test::triangle;

class TestClusterCommands : public QObject {
    Q_OBJECT
private slots:
    void nameStems();
    void nameChecks();
    void documentRemoveUndoIsExactProperty();
    void documentMovesMerge();
    void everyCommandRoundTrips();
    void changeValueMergesConsecutiveEdits();
    void changeValueTexts();
    void oneEditedSignalPerStep();
};

void TestClusterCommands::nameStems()
{
    QCOMPARE(nodeNameStem("A100-40GB"), std::string("a100"));
    QCOMPARE(nodeNameStem("RTX-3090"), std::string("rtx3090"));
    QCOMPARE(nodeNameStem("V100-16GB"), std::string("v100"));
    QCOMPARE(nodeNameStem("A100-80GB-PCIe"), std::string("a100pcie"));
    QCOMPARE(nodeNameStem("MI300X"), std::string("mi300x"));
    QCOMPARE(nodeNameStem("--"), std::string("node"));
}

// Property check on the document alone (no view): for random subsets of nodes and links, removing
// leaves exactly the complement (in order) with no dangling link, and undo restores the original.
void TestClusterCommands::documentRemoveUndoIsExactProperty()
{
    QRandomGenerator rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        Cluster c;
        c.name = "rand";
        const int n = 2 + int(rng.bounded(6));
        for (int i = 0; i < n; ++i)
            c.nodes.push_back(Node{"n" + std::to_string(i), "T4", 1 + int(rng.bounded(8)), 0, 1e9,
                                   Communicator::GpuRdma, double(i * 10), 0});
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j)
                if (rng.bounded(2))
                    c.links.push_back(Link{c.nodes[i].name, c.nodes[j].name, 1e9 + i, 1e-6 * j});
        std::vector<int> delNodes, delLinks;
        for (int i = 0; i < n; ++i)
            if (rng.bounded(3) == 0)
                delNodes.push_back(i);
        for (int i = 0; i < int(c.links.size()); ++i)
            if (rng.bounded(3) == 0)
                delLinks.push_back(i);

        ClusterDocument doc;
        doc.setCluster(c);
        QUndoStack stack;
        stack.push(new RemoveItemsCommand(&doc, delNodes, delLinks));
        const Cluster& after = doc.cluster();
        std::set<std::string> gone;
        for (int i : delNodes)
            gone.insert(c.nodes[size_t(i)].name);
        std::vector<Node> keptNodes;
        for (const Node& x : c.nodes)
            if (!gone.count(x.name))
                keptNodes.push_back(x);
        std::vector<Link> keptLinks;
        for (int i = 0; i < int(c.links.size()); ++i) {
            const Link& l = c.links[size_t(i)];
            const bool explicitlyDeleted = std::find(delLinks.begin(), delLinks.end(), i) != delLinks.end();
            if (!explicitlyDeleted && !gone.count(l.a) && !gone.count(l.b))
                keptLinks.push_back(l);
        }
        QVERIFY(after.nodes == keptNodes);
        QVERIFY(after.links == keptLinks);
        stack.undo();
        QVERIFY(doc.cluster() == c);
        stack.redo();
        QVERIFY(doc.cluster().nodes == keptNodes && doc.cluster().links == keptLinks);
    }
}

void TestClusterCommands::documentMovesMerge()
{
    ClusterDocument doc;
    doc.setCluster(triangle());
    QUndoStack stack;
    // Three consecutive moves of {0,1}: one undo step from the start to the end position.
    stack.push(new MoveNodesCommand(&doc, {0, 1}, {{10, 10}, {250, 10}}));
    stack.push(new MoveNodesCommand(&doc, {0, 1}, {{20, 20}, {260, 20}}));
    stack.push(new MoveNodesCommand(&doc, {0, 1}, {{30, 30}, {270, 30}}));
    QCOMPARE(stack.count(), 1);
    QCOMPARE(doc.node(1).x, 270.0);
    // A different node set does not merge.
    stack.push(new MoveNodesCommand(&doc, {2}, {{5, 205}}));
    QCOMPARE(stack.count(), 2);
    // Moving node 2 back where it started makes the merged command a no-op, which Qt drops.
    stack.push(new MoveNodesCommand(&doc, {2}, {{0, 200}}));
    QCOMPARE(stack.count(), 1);
    stack.undo();
    QVERIFY(doc.cluster() == triangle());
    stack.redo();
    QCOMPARE(doc.node(0).x, 30.0);
    QCOMPARE(doc.node(1).y, 30.0);
}

void TestClusterCommands::nameChecks()
{
    ClusterDocument doc;
    doc.setCluster(triangle());
    QVERIFY(doc.checkNodeName(0, QStringLiteral("a")).isEmpty()); // its own name
    QVERIFY(doc.checkNodeName(0, QStringLiteral("new")).isEmpty());
    QVERIFY(!doc.checkNodeName(0, QStringLiteral("b")).isEmpty());  // taken
    QVERIFY(!doc.checkNodeName(-1, QStringLiteral("a")).isEmpty()); // taken, for a new node
    QVERIFY(!doc.checkNodeName(0, QString()).isEmpty());
    QVERIFY(!doc.checkNodeName(0, QStringLiteral("x/1")).isEmpty()); // GPU names are node/index
    QVERIFY(!doc.checkNodeName(0, QStringLiteral("x ")).isEmpty());
    // Node names are host names in hostfiles and launch scripts: the engine's plain-name rule, in its words.
    for (const char* bad : {"a b", "a,b", "a;b", "-a", "a\nb", "$(x)"})
        QVERIFY2(doc.checkNodeName(0, QString::fromUtf8(bad)).contains(QStringLiteral("letters, digits")), bad);
    QVERIFY(doc.checkNodeName(0, QStringLiteral("gpu-node_1.rack2")).isEmpty());
    QCOMPARE(doc.uniqueNodeName("T4"), std::string("t4-0"));
    QCOMPARE(doc.findLink("c", "b"), 1); // either direction
    QCOMPARE(doc.linksOfNode(2), (std::vector<int>{1, 2}));
}

// Pushes one command of every kind, recording the state after each; then undoes to the start and redoes
// to the end, comparing the whole Cluster at every step.
void TestClusterCommands::everyCommandRoundTrips()
{
    ClusterDocument doc;
    doc.setCluster(exampleCluster("ditto-ex3"));
    QUndoStack stack;
    std::vector<Cluster> states{doc.cluster()};
    const auto push = [&](QUndoCommand* cmd) {
        stack.push(cmd);
        states.push_back(doc.cluster());
        QVERIFY(!(states[states.size() - 1] == states[states.size() - 2])); // every command changes something
    };

    push(new AddNodeCommand(&doc, Node{"h100-0", "H100-SXM", 8, 450e9, 50e9, Communicator::GpuRdma, 900, 0}));
    QCOMPARE(doc.cluster().nodes.back().name, std::string("h100-0"));
    push(new AddLinkCommand(&doc, Link{"h100-0", "v100-0", 3.125e9, 20e-6}));
    push(changeValue(&doc, 0, nodeField::name, "volta-0"));
    QCOMPARE(doc.cluster().links.back().b, std::string("volta-0")); // the link follows the rename
    push(changeValue(&doc, 1, nodeField::gpus, 8));
    push(changeValue(&doc, 0, linkField::bandwidth, 12.5e9));
    push(changeValue(&doc, 0, clusterField::interLatency, 35e-6));
    push(new MoveNodesCommand(&doc, {3, 4}, {{-100, -100}, {-300, -100}}));
    push(new AutoLayoutCommand(&doc));
    QVERIFY(doc.cluster().nodes.size() == autoLayoutPositions(doc.cluster()).size());
    push(new RemoveItemsCommand(&doc, {0, 11}, {}));
    QCOMPARE(doc.cluster().links.size(), size_t(0)); // the only link touched both removed nodes
    QCOMPARE(stack.count(), 9);

    for (size_t k = states.size() - 1; k > 0; --k) {
        stack.undo();
        QVERIFY2(doc.cluster() == states[k - 1], qPrintable(QStringLiteral("undo to state %1").arg(k - 1)));
    }
    for (size_t k = 1; k < states.size(); ++k) {
        stack.redo();
        QVERIFY2(doc.cluster() == states[k], qPrintable(QStringLiteral("redo to state %1").arg(k)));
    }
}

void TestClusterCommands::changeValueMergesConsecutiveEdits()
{
    ClusterDocument doc;
    doc.setCluster(triangle());
    QUndoStack stack;
    stack.push(changeValue(&doc, 0, nodeField::gpus, 5));
    stack.push(changeValue(&doc, 0, nodeField::gpus, 6));
    QCOMPARE(stack.count(), 1); // same node, same numeric field
    QCOMPARE(doc.node(0).gpus, 6);
    stack.push(changeValue(&doc, 0, nodeField::nicBandwidth, 50e9));
    QCOMPARE(stack.count(), 2); // another field of the same node
    stack.push(changeValue(&doc, 1, nodeField::nicBandwidth, 50e9));
    QCOMPARE(stack.count(), 3); // the same field of another node
    stack.push(changeValue(&doc, 1, nodeField::nicBandwidth, 3.125e9));
    QCOMPARE(stack.count(), 2); // back to b's original NIC: the merged step is a no-op and dropped
    stack.push(changeValue(&doc, 0, nodeField::name, "x"));
    stack.push(changeValue(&doc, 0, nodeField::name, "y"));
    QCOMPARE(stack.count(), 4); // renames stay separate steps
    stack.push(changeValue(&doc, 0, clusterField::intraLatency, 1e-6));
    stack.push(changeValue(&doc, 0, clusterField::intraLatency, 2e-6));
    QCOMPARE(stack.count(), 5);
    stack.push(changeValue(&doc, 0, clusterField::cpuInterBandwidth, 3.0e9));
    QCOMPARE(stack.count(), 6); // another field
    stack.push(changeValue(&doc, 2, linkField::latency, 1e-6));
    stack.push(changeValue(&doc, 2, linkField::latency, 2e-6));
    QCOMPARE(stack.count(), 7);
    QCOMPARE(doc.link(2).latency, 2e-6);
    stack.undo(); // one step takes the link back to its first latency
    QCOMPARE(doc.link(2).latency, 5e-6);
    while (stack.canUndo())
        stack.undo();
    QVERIFY(doc.cluster() == triangle());
    while (stack.canRedo())
        stack.redo();
    QCOMPARE(doc.node(0).name, std::string("y"));
    QCOMPARE(doc.node(0).gpus, 6);
    QCOMPARE(doc.cluster().cpuInterBandwidth, 3.0e9);
}

void TestClusterCommands::changeValueTexts()
{
    ClusterDocument doc;
    doc.setCluster(triangle());
    const auto text = [&](QUndoCommand* cmd) {
        const QString t = cmd->text();
        delete cmd;
        return t;
    };
    QCOMPARE(text(changeValue(&doc, 0, nodeField::nicBandwidth, 1e9)), QStringLiteral("Change NIC bandwidth of a"));
    QCOMPARE(text(changeValue(&doc, 1, nodeField::gpus, 2)), QStringLiteral("Change GPU count of b"));
    QCOMPARE(text(changeValue(&doc, 0, nodeField::name, "fast")), QStringLiteral("Rename a to fast"));
    QCOMPARE(text(changeValue(&doc, 1, linkField::bandwidth, 1e9)), QStringLiteral("Change bandwidth of link b–c"));
    QCOMPARE(text(changeValue(&doc, 0, clusterField::name, "lab")), QStringLiteral("Rename cluster to lab"));
    QCOMPARE(text(changeValue(&doc, 0, clusterField::interLatency, 1e-6)), QStringLiteral("Change inter-node latency"));
    // A name with a placeholder in it is shown as it is.
    QCOMPARE(stepText("Rename %1 to %2", QStringLiteral("%2"), QStringLiteral("b")), QStringLiteral("Rename %2 to b"));
}

void TestClusterCommands::oneEditedSignalPerStep()
{
    ClusterDocument doc;
    doc.setCluster(triangle());
    QSignalSpy edited(&doc, &ClusterDocument::edited);
    QSignalSpy removedNodes(&doc, &ClusterDocument::nodeRemoved);
    QSignalSpy removedLinks(&doc, &ClusterDocument::linkRemoved);
    QUndoStack stack;
    stack.push(new RemoveItemsCommand(&doc, {0, 2}, {}));
    QCOMPARE(edited.count(), 1);
    QCOMPARE(removedNodes.count(), 2);
    QCOMPARE(removedLinks.count(), 3);
    // Removal runs from the highest index down, so each signal's index was valid when it was sent.
    QCOMPARE(removedNodes.at(0).at(0).toInt(), 2);
    QCOMPARE(removedNodes.at(1).at(0).toInt(), 0);
    stack.undo();
    QCOMPARE(edited.count(), 2);
    QVERIFY(doc.cluster() == triangle());
}

QTEST_MAIN(TestClusterCommands)
#include "tst_cluster_commands.moc"
