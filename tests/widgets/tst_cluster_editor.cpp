// Cluster canvas editor API: add/remove/move/link round trips with undo/redo, merged drags, invalid
// renames, auto-layout, loading every example, panel ownership and a render check.
#include "canvas_fixtures.h"

#include "core/io/examples.h"
#include "widgets/canvas/auto_layout.h"
#include "widgets/models/cluster_document.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/cluster_scene.h"
#include "widgets/canvas/cluster_view.h"
#include "widgets/canvas/device_palette.h"
#include "widgets/canvas/device_style.h"
#include "widgets/canvas/property_panel.h"
#include "widgets/commands/link_commands.h"

#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QMainWindow>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

#include <set>

using namespace hetplan;
using namespace hetplan::test;

class TestClusterEditor : public QObject {
    Q_OBJECT
private slots:
    void addNodeRoundTrip();
    void uniqueNames();
    void deleteNodeTakesLinksAndUndoRestores();
    void dragMovesAndMerges();
    void invalidRenameRefused();
    void addLinkAndEditIt();
    void autoLayoutGrid();
    void setClusterRoundTripsExamples();
    void clusterChangedOncePerStep();
    void panelOwnedByEditor();
    void rendersNonEmpty();
    void fitFollowsResizeUntilUserZooms();
};

void TestClusterEditor::addNodeRoundTrip()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.setCluster(exampleCluster("ditto-ex3"));
    const Cluster before = ed.cluster();
    QVERIFY(ed.addNode(QStringLiteral("A100-40GB"), 8, QPointF(100, 100)));
    const Cluster after = ed.cluster();
    QCOMPARE(after.nodes.size(), before.nodes.size() + 1);
    const Node& n = after.nodes.back();
    QCOMPARE(n.name, std::string("a100-0"));
    QCOMPARE(n.deviceType, std::string("A100-40GB"));
    QCOMPARE(n.gpus, 8);
    QCOMPARE(n.nicBandwidth, 100e9 / 8); // 100 Gbps = 12.5e9 bytes/s
    QCOMPARE(n.intraBandwidth, 300e9);   // the catalog's A100 NVLink figure
    // Centred on the click: x = 100 - 184/2 = 8.
    QCOMPARE(n.x, 8.0);
    QCOMPARE(ed.selectedNodes(), std::vector<int>{int(after.nodes.size()) - 1});
    QCOMPARE(ed.undoStack()->count(), 1);
    ed.undoStack()->undo();
    QVERIFY(ed.cluster() == before);
    QCOMPARE(ed.scene()->nodeItemCount(), int(before.nodes.size()));
    ed.undoStack()->redo();
    QVERIFY(ed.cluster() == after);
    QCOMPARE(ed.scene()->nodeItemCount(), int(after.nodes.size()));
    // Unknown types are refused without a command.
    QVERIFY(!ed.addNode(QStringLiteral("no-such-gpu"), 8, QPointF()));
    QCOMPARE(ed.undoStack()->count(), 1);
}

void TestClusterEditor::uniqueNames()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    for (int i = 0; i < 3; ++i)
        QVERIFY(ed.addNodeAtFreeSpot(QStringLiteral("A100-40GB"), 4));
    Cluster c = ed.cluster();
    QCOMPARE(c.nodes[2].name, std::string("a100-2"));
    // Boxes placed at free spots do not overlap.
    const QRectF r0(c.nodes[0].x, c.nodes[0].y, nodebox::width, nodebox::height(4));
    const QRectF r1(c.nodes[1].x, c.nodes[1].y, nodebox::width, nodebox::height(4));
    QVERIFY(!r0.intersects(r1));
    ed.selectItems({1});
    QVERIFY(ed.deleteSelection());
    QVERIFY(ed.addNodeAtFreeSpot(QStringLiteral("A100-40GB"), 4));
    QCOMPARE(ed.cluster().nodes.back().name, std::string("a100-1")); // first free suffix
}

void TestClusterEditor::deleteNodeTakesLinksAndUndoRestores()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.setCluster(triangle());
    QCOMPARE(ed.scene()->linkItemCount(), 3);
    ed.selectItems({1}); // b: touches a-b and b-c
    QVERIFY(ed.deleteSelection());
    Cluster after = ed.cluster();
    QCOMPARE(after.nodes.size(), size_t(2));
    QCOMPARE(after.links.size(), size_t(1));
    QCOMPARE(after.links[0].a + after.links[0].b, std::string("ac"));
    QCOMPARE(ed.scene()->linkItemCount(), 1);
    QCOMPARE(ed.undoStack()->count(), 1);
    ed.undoStack()->undo();
    QVERIFY(ed.cluster() == triangle());
    QCOMPARE(ed.scene()->linkItemCount(), 3);
    ed.undoStack()->redo();
    QVERIFY(ed.cluster() == after);
    QVERIFY(!ed.deleteSelection()); // nothing selected any more
}

void TestClusterEditor::dragMovesAndMerges()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.resize(1000, 600);
    ed.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ed));
    ed.setCluster(triangle());
    const Node a = ed.cluster().nodes[0];
    const QPointF start = nodeCenter(a);
    dragOnView(ed.view(), start, start + QPointF(40, 30));
    dragOnView(ed.view(), start + QPointF(40, 30), start + QPointF(80, 60));
    const Cluster moved = ed.cluster();
    QVERIFY(std::abs(moved.nodes[0].x - 80) <= 1 && std::abs(moved.nodes[0].y - 60) <= 1);
    QCOMPARE(moved.nodes[1], triangle().nodes[1]); // only the dragged node moved
    QCOMPARE(ed.undoStack()->count(), 1);          // two drags of the same node: one step
    ed.undoStack()->undo();
    QVERIFY(ed.cluster() == triangle());
    QCOMPARE(ed.scene()->nodeItem(0)->pos(), QPointF(0, 0)); // the item followed the document
    ed.undoStack()->redo();
    QVERIFY(ed.cluster() == moved);
}

void TestClusterEditor::invalidRenameRefused()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.setCluster(triangle());
    ed.selectItems({0});
    auto* panel = ed.panel();
    auto* name = child<QLineEdit>(panel, "nodeName");
    for (const char* bad : {"b", "", "  ", "x/y", " a"}) {
        name->setText(QString::fromLatin1(bad));
        emit name->editingFinished();
        QCOMPARE(ed.undoStack()->count(), 0);
        QVERIFY(ed.cluster() == triangle());
        QVERIFY2(!panel->errorText().isEmpty(), bad);
        QCOMPARE(name->text(), QStringLiteral("a")); // the field shows the real name again
    }
    name->setText(QStringLiteral("a")); // unchanged: no command, no error change needed
    emit name->editingFinished();
    QCOMPARE(ed.undoStack()->count(), 0);
}

void TestClusterEditor::addLinkAndEditIt()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    Cluster c = triangle();
    c.links.clear();
    ed.setCluster(c);
    QVERIFY(ed.addLink(0, 1));
    Link l = ed.cluster().links.at(0);
    // a has a 12.5e9 B/s NIC, b 3.125e9 B/s: the link runs at the lower one; latency = interLatency.
    QCOMPARE(l.bandwidth, 3.125e9);
    QCOMPARE(l.latency, c.interLatency);
    QVERIFY(!ed.addLink(1, 0)); // one link per pair
    QVERIFY(!ed.addLink(2, 2));
    QCOMPARE(ed.undoStack()->count(), 1);
    QCOMPARE(ed.selectedLinks(), std::vector<int>{0});
    auto* bw = child<QDoubleSpinBox>(ed.propertyPanel(), "linkBandwidth");
    auto* lat = child<QDoubleSpinBox>(ed.propertyPanel(), "linkLatency");
    QCOMPARE(bw->value(), 25.0); // 3.125e9 B/s * 8 = 25 Gbps
    bw->setValue(40);
    lat->setValue(7.5);
    QCOMPARE(ed.cluster().links[0].bandwidth, 5e9); // 40 Gbps / 8
    QCOMPARE(ed.cluster().links[0].latency, 7.5e-6);
    QCOMPARE(ed.undoStack()->count(), 3);
    ed.undoStack()->undo();
    ed.undoStack()->undo();
    QCOMPARE(ed.cluster().links[0], l);
    ed.undoStack()->undo();
    QVERIFY(ed.cluster() == c);
    QCOMPARE(ed.scene()->linkItemCount(), 0);
}

void TestClusterEditor::autoLayoutGrid()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    Cluster c = exampleCluster("ditto-ex3");
    for (size_t i = 0; i < c.nodes.size(); ++i) { // scramble
        c.nodes[i].x = double((i * 37) % 11) * 13;
        c.nodes[i].y = double((i * 53) % 7) * 17;
    }
    ed.setCluster(c);
    ed.autoLayout();
    QCOMPARE(ed.undoStack()->count(), 1);
    const Cluster laid = ed.cluster();
    // Peak FLOP/s orders the groups: RTX-4090 165.2 > RTX-A6000 154.8 > V100 125 > RTX-3090 71 TFLOPS.
    // 11 nodes -> ceil(sqrt(11)) = 4 columns; every group starts a row. Spacing: 184 + 56 = 240 across,
    // box height for 2 GPUs + 56 down.
    const double dx = nodebox::width + 56, dy = nodebox::height(2) + 56;
    const auto at = [&](const char* name) {
        const Node& n = laid.nodes[size_t(laid.findNode(name).value())];
        return QPointF(n.x, n.y);
    };
    QCOMPARE(at("rtx4090-0"), QPointF(0, 0));
    QCOMPARE(at("rtx4090-1"), QPointF(dx, 0));
    QCOMPARE(at("a6000-1"), QPointF(dx, dy));
    QCOMPARE(at("v100-0"), QPointF(0, 2 * dy));
    QCOMPARE(at("v100-3"), QPointF(3 * dx, 2 * dy));
    QCOMPARE(at("rtx3090-2"), QPointF(2 * dx, 3 * dy));
    // Nothing but positions changed, and no two boxes overlap.
    for (size_t i = 0; i < c.nodes.size(); ++i) {
        Node n = laid.nodes[i];
        n.x = c.nodes[i].x;
        n.y = c.nodes[i].y;
        QCOMPARE(n, c.nodes[i]);
        for (size_t j = i + 1; j < c.nodes.size(); ++j)
            QVERIFY(!QRectF(laid.nodes[i].x, laid.nodes[i].y, nodebox::width, nodebox::height(2))
                         .intersects(QRectF(laid.nodes[j].x, laid.nodes[j].y, nodebox::width, nodebox::height(2))));
    }
    ed.autoLayout(); // already laid out: no empty step
    QCOMPARE(ed.undoStack()->count(), 1);
    ed.undoStack()->undo();
    QVERIFY(ed.cluster() == c);
    ed.undoStack()->redo();
    QVERIFY(ed.cluster() == laid);
}

void TestClusterEditor::setClusterRoundTripsExamples()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    QSignalSpy changed(&ed, &ClusterEditor::clusterChanged);
    ed.addNodeAtFreeSpot(QStringLiteral("T4"), 4);
    QCOMPARE(ed.undoStack()->count(), 1);
    changed.clear();
    for (const std::string& name : exampleClusterNames()) {
        const Cluster ex = exampleCluster(name);
        ed.setCluster(ex);
        QVERIFY2(ed.cluster() == ex, name.c_str()); // positions included
        QCOMPARE(ed.undoStack()->count(), 1);       // the stack's owner decides about its history
        QCOMPARE(ed.scene()->nodeItemCount(), int(ex.nodes.size()));
        QCOMPARE(ed.scene()->linkItemCount(), int(ex.links.size()));
        QCOMPARE(ed.scene()->nodeItem(0)->pos(), QPointF(ex.nodes[0].x, ex.nodes[0].y));
    }
    QCOMPARE(changed.count(), 0); // loading is not an edit
}

void TestClusterEditor::clusterChangedOncePerStep()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.setCluster(triangle());
    QSignalSpy changed(&ed, &ClusterEditor::clusterChanged);
    ed.selectItems({0, 1}); // two nodes and (through them) all three links
    QVERIFY(ed.deleteSelection());
    QCOMPARE(changed.count(), 1);
    ed.undoStack()->undo();
    QCOMPARE(changed.count(), 2);
    ed.undoStack()->redo();
    QCOMPARE(changed.count(), 3);
}

void TestClusterEditor::panelOwnedByEditor()
{
    QUndoStack undo;
    QMainWindow win;
    auto* dock = new QDockWidget(&win);
    win.addDockWidget(Qt::RightDockWidgetArea, dock);
    auto* ed = new ClusterEditor(&undo);
    win.setCentralWidget(ed);
    dock->setWidget(ed->propertyPanel());
    QPointer<QWidget> panel = ed->propertyPanel();
    delete ed; // the panel points at the editor's document: it goes too
    QVERIFY(panel.isNull());
    QVERIFY(dock->widget() == nullptr);
}

void TestClusterEditor::rendersNonEmpty()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.resize(1000, 600);
    ed.setCluster(exampleCluster("ditto-ex3"));
    ed.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ed));
    QTest::qWait(20); // the deferred fit-to-view
    QVERIFY(ed.view()->zoom() > 0.2);
    const QImage img = ed.view()->viewport()->grab().toImage();
    QVERIFY(!img.isNull());
    if (qEnvironmentVariableIsSet("HETPLAN_SCREENSHOTS")) { // for looking at the canvas by eye
        const QString dir = qEnvironmentVariable("HETPLAN_SCREENSHOTS");
        ed.grab().save(dir + QStringLiteral("/canvas-editor.png"));
        ed.propertyPanel()->resize(300, 600);
        ed.selectItems({0});
        ed.propertyPanel()->grab().save(dir + QStringLiteral("/canvas-panel.png"));
        ed.addLink(0, 4);
        ed.addLink(1, 5);
        ed.addLink(4, 7);
        ed.addNode(QStringLiteral("MI300X"), 8, QPointF(700, 500));
        ed.addLink(1, 11);
        ed.grab().save(dir + QStringLiteral("/canvas-links.png"));
        ed.propertyPanel()->grab().save(dir + QStringLiteral("/canvas-panel-link.png"));
        ed.selectItems({});
        ed.propertyPanel()->grab().save(dir + QStringLiteral("/canvas-panel-cluster.png"));
        ed.undoStack()->clear();
        ed.setCluster(exampleCluster("ditto-ex3"));
    }
    // Volta headers (4 V100 nodes) and the Ampere blue (3 A6000 GPUs rows) must show up, and the picture
    // must have many colours (text antialiasing, swatches), not just background and dots.
    const QRgb volta = deviceStyle("V100-16GB").color.rgb(), ampere = deviceStyle("RTX-A6000").color.rgb();
    int voltaPx = 0, amperePx = 0, nonBackground = 0;
    std::set<QRgb> colours;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QRgb p = img.pixel(x, y) | 0xff000000;
            colours.insert(p);
            voltaPx += p == (volta | 0xff000000);
            amperePx += p == (ampere | 0xff000000);
            nonBackground += p != qRgb(0xF7, 0xF8, 0xFA) && p != qRgb(0xCF, 0xD4, 0xDA);
        }
    QVERIFY2(voltaPx > 1000, qPrintable(QString::number(voltaPx)));
    QVERIFY2(amperePx > 200, qPrintable(QString::number(amperePx)));
    QVERIFY(nonBackground > img.width() * img.height() / 10);
    QVERIFY(colours.size() > 50);
}

// The canvas opens fitted, but the window often gets its final size only after that (a window manager, the
// first launch's resize): a fitted view must stay fitted through resizes, and stop once the user zooms.
void TestClusterEditor::fitFollowsResizeUntilUserZooms()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.resize(560, 420);
    ed.setCluster(exampleCluster("ditto-ex3"));
    ed.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ed));
    QTest::qWait(20); // the deferred fit-to-view
    ClusterView* view = ed.view();
    const QRectF content = static_cast<ClusterScene*>(view->scene())->contentRect();
    auto wholeInView = [&] {
        const QRect shown = view->mapFromScene(content).boundingRect();
        return view->viewport()->rect().contains(shown);
    };
    QVERIFY(wholeInView());
    const double small = view->zoom();
    QVERIFY2(small < 1.0, "the cluster should need shrinking at this size");

    ed.resize(1400, 1000); // more room: the fit follows, the cluster is drawn larger and still whole
    QTest::qWait(20);
    QVERIFY(view->zoom() > small * 1.2);
    QVERIFY(wholeInView());

    view->zoomIn(); // the user's zoom: a resize keeps it
    const double chosen = view->zoom();
    ed.resize(700, 500);
    QTest::qWait(20);
    QCOMPARE(view->zoom(), chosen);
}

QTEST_MAIN(TestClusterEditor)
#include "tst_cluster_editor.moc"
