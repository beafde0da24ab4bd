// Cluster canvas editor: undo/redo round trips on the document and through the editor's widgets,
// merging of moves and spin-box edits, validation, auto-layout, and a render check.
#include "canvas_fixtures.h"

#include "core/io/examples.h"
#include "widgets/canvas/auto_layout.h"
#include "widgets/canvas/cluster_document.h"
#include "widgets/canvas/cluster_editor.h"
#include "widgets/canvas/cluster_scene.h"
#include "widgets/canvas/cluster_view.h"
#include "widgets/canvas/device_palette.h"
#include "widgets/canvas/device_style.h"
#include "widgets/canvas/property_panel.h"
#include "widgets/commands/link_commands.h"

#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QGraphicsSceneDragDropEvent>
#include <QLineEdit>
#include <QMainWindow>
#include <QMimeData>
#include <QScrollBar>
#include <QToolBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>

#include <set>

using namespace hetplan;
using hetplan::test::triangle;

namespace {

template <class T> T* child(QWidget* w, const char* name)
{
    T* c = w->findChild<T*>(QLatin1String(name));
    if (!c)
        qFatal("no child %s", name);
    return c;
}

// Sends a left-button press/move/release sequence to the view's viewport (QTest::mouseMove cannot hold
// a button down).
void dragOnView(QGraphicsView* v, QPointF fromScene, QPointF toScene, Qt::KeyboardModifiers mods = {})
{
    QWidget* vp = v->viewport();
    const QPointF a = v->mapFromScene(fromScene), b = v->mapFromScene(toScene);
    QMouseEvent press(QEvent::MouseButtonPress, a, vp->mapToGlobal(a), Qt::LeftButton, Qt::LeftButton, mods);
    QApplication::sendEvent(vp, &press);
    for (int k = 1; k <= 4; ++k) {
        const QPointF p = a + (b - a) * (k / 4.0);
        QMouseEvent move(QEvent::MouseMove, p, vp->mapToGlobal(p), Qt::NoButton, Qt::LeftButton, mods);
        QApplication::sendEvent(vp, &move);
    }
    QMouseEvent release(QEvent::MouseButtonRelease, b, vp->mapToGlobal(b), Qt::LeftButton, Qt::NoButton, mods);
    QApplication::sendEvent(vp, &release);
}

QPointF nodeCenter(const Node& n) { return {n.x + nodebox::width / 2, n.y + nodebox::height(n.gpus) / 2}; }

} // namespace

class TestClusterEditor : public QObject {
    Q_OBJECT
private slots:
    void addNodeRoundTrip();
    void uniqueNames();
    void deleteNodeTakesLinksAndUndoRestores();
    void dragMovesAndMerges();
    void panelEditsNode();
    void deviceTypeChangeFollowsDefaultBandwidth();
    void invalidRenameRefused();
    void renameUpdatesLinks();
    void addLinkAndEditIt();
    void shiftDragDrawsLink();
    void clusterPropertiesAndEmptyName();
    void autoLayoutGrid();
    void setClusterRoundTripsExamples();
    void clusterChangedOncePerStep();
    void dropAndDoubleClickAddNodes();
    void deleteKey();
    void panelOwnedByEditor();
    void zoomPanAndLinkTool();
    void rendersNonEmpty();
};

void TestClusterEditor::addNodeRoundTrip()
{
    ClusterEditor ed;
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
    QCOMPARE(n.intraBandwidth, 300e9);    // the catalog's A100 NVLink figure
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
    ClusterEditor ed;
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
    ClusterEditor ed;
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
    ClusterEditor ed;
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

void TestClusterEditor::panelEditsNode()
{
    ClusterEditor ed;
    ed.setCluster(triangle());
    ed.selectItems({0});
    QWidget* panel = ed.propertyPanel();
    auto* gpus = child<QSpinBox>(panel, "nodeGpus");
    QCOMPARE(gpus->value(), 4);
    gpus->setValue(6);
    gpus->setValue(7); // spin clicks on one field of one node merge
    QCOMPARE(ed.cluster().nodes[0].gpus, 7);
    QCOMPARE(ed.undoStack()->count(), 1);
    auto* nic = child<QDoubleSpinBox>(panel, "nodeNicBandwidth");
    QCOMPARE(nic->value(), 100.0); // 12.5e9 bytes/s = 100 Gbps
    nic->setValue(200);
    QCOMPARE(ed.cluster().nodes[0].nicBandwidth, 25e9);
    auto* comm = child<QComboBox>(panel, "nodeCommunicator");
    comm->setCurrentIndex(1);
    emit comm->activated(1);
    QCOMPARE(ed.cluster().nodes[0].communicator, Communicator::CpuEthernet);
    QCOMPARE(ed.undoStack()->count(), 3);
    const Cluster edited = ed.cluster();
    while (ed.undoStack()->canUndo())
        ed.undoStack()->undo();
    QVERIFY(ed.cluster() == triangle());
    QCOMPARE(gpus->value(), 4); // the panel follows undo
    while (ed.undoStack()->canRedo())
        ed.undoStack()->redo();
    QVERIFY(ed.cluster() == edited);
}

void TestClusterEditor::deviceTypeChangeFollowsDefaultBandwidth()
{
    ClusterEditor ed;
    ed.setCluster(triangle());
    ed.selectItems({2}); // c: A100-40GB with intra 300 GB/s = the A100 default
    auto* type = child<QComboBox>(ed.propertyPanel(), "nodeDeviceType");
    type->setCurrentIndex(type->findText(QStringLiteral("V100-16GB")));
    emit type->activated(type->currentIndex());
    QCOMPARE(ed.cluster().nodes[2].deviceType, std::string("V100-16GB"));
    QCOMPARE(ed.cluster().nodes[2].intraBandwidth, 150e9); // the V100 default
    ed.selectItems({0}); // a: intra 0 ("device default") stays 0
    type->setCurrentIndex(type->findText(QStringLiteral("T4")));
    emit type->activated(type->currentIndex());
    QCOMPARE(ed.cluster().nodes[0].intraBandwidth, 0.0);
    ed.undoStack()->undo();
    ed.undoStack()->undo();
    QVERIFY(ed.cluster() == triangle());
}

void TestClusterEditor::invalidRenameRefused()
{
    ClusterEditor ed;
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

void TestClusterEditor::renameUpdatesLinks()
{
    ClusterEditor ed;
    ed.setCluster(triangle());
    ed.selectItems({0});
    auto* name = child<QLineEdit>(ed.propertyPanel(), "nodeName");
    name->setText(QStringLiteral("fast"));
    emit name->editingFinished();
    QCOMPARE(ed.undoStack()->count(), 1);
    QVERIFY(ed.panel()->errorText().isEmpty());
    const Cluster c = ed.cluster();
    QCOMPARE(c.nodes[0].name, std::string("fast"));
    QCOMPARE(c.links[0].a, std::string("fast"));
    QCOMPARE(c.links[2].a, std::string("fast"));
    QCOMPARE(c.links[1].a, std::string("b")); // untouched
    ed.undoStack()->undo();
    QVERIFY(ed.cluster() == triangle());
}

void TestClusterEditor::addLinkAndEditIt()
{
    ClusterEditor ed;
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

void TestClusterEditor::shiftDragDrawsLink()
{
    ClusterEditor ed;
    ed.resize(1000, 600);
    ed.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ed));
    Cluster c = triangle();
    c.links.clear();
    ed.setCluster(c);
    dragOnView(ed.view(), nodeCenter(c.nodes[0]), nodeCenter(c.nodes[1]), Qt::ShiftModifier);
    QCOMPARE(ed.cluster().links.size(), size_t(1));
    QCOMPARE(ed.cluster().links[0].a + ed.cluster().links[0].b, std::string("ab"));
    QVERIFY(ed.cluster().nodes == c.nodes); // drawing a link moves nothing
    // Releasing on empty canvas draws nothing.
    dragOnView(ed.view(), nodeCenter(c.nodes[2]), QPointF(900, 900), Qt::ShiftModifier);
    QCOMPARE(ed.cluster().links.size(), size_t(1));
    QCOMPARE(ed.undoStack()->count(), 1);
}

void TestClusterEditor::clusterPropertiesAndEmptyName()
{
    ClusterEditor ed;
    ed.setCluster(triangle());
    QWidget* panel = ed.propertyPanel();
    auto* inter = child<QDoubleSpinBox>(panel, "interLatency");
    QCOMPARE(inter->value(), 20.0); // default 20e-6 s
    inter->setValue(50);
    QCOMPARE(ed.cluster().interLatency, 50e-6);
    child<QDoubleSpinBox>(panel, "cpuPathPenalty")->setValue(2.5);
    QCOMPARE(ed.cluster().cpuPathPenalty, 2.5);
    auto* name = child<QLineEdit>(panel, "clusterName");
    name->setText(QString());
    emit name->editingFinished();
    QCOMPARE(ed.cluster().name, std::string("tri"));
    QVERIFY(!ed.panel()->errorText().isEmpty());
    QCOMPARE(ed.undoStack()->count(), 2);
    name->setText(QStringLiteral("lab"));
    emit name->editingFinished();
    QCOMPARE(ed.cluster().name, std::string("lab"));
    while (ed.undoStack()->canUndo())
        ed.undoStack()->undo();
    QVERIFY(ed.cluster() == triangle());
}

void TestClusterEditor::autoLayoutGrid()
{
    ClusterEditor ed;
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
    ClusterEditor ed;
    QSignalSpy changed(&ed, &ClusterEditor::clusterChanged);
    ed.addNodeAtFreeSpot(QStringLiteral("T4"), 4);
    QCOMPARE(ed.undoStack()->count(), 1);
    changed.clear();
    for (const std::string& name : exampleClusterNames()) {
        const Cluster ex = exampleCluster(name);
        ed.setCluster(ex);
        QVERIFY2(ed.cluster() == ex, name.c_str()); // positions included
        QCOMPARE(ed.undoStack()->count(), 0);
        QCOMPARE(ed.scene()->nodeItemCount(), int(ex.nodes.size()));
        QCOMPARE(ed.scene()->linkItemCount(), int(ex.links.size()));
        QCOMPARE(ed.scene()->nodeItem(0)->pos(), QPointF(ex.nodes[0].x, ex.nodes[0].y));
    }
    QCOMPARE(changed.count(), 0); // loading is not an edit
}

void TestClusterEditor::clusterChangedOncePerStep()
{
    ClusterEditor ed;
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

void TestClusterEditor::dropAndDoubleClickAddNodes()
{
    ClusterEditor ed;
    ed.resize(1000, 600);
    ed.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ed));
    // The palette's drag payload, taken through the model as a real drag would.
    QTreeWidget* list = ed.palette()->list();
    const QList<QTreeWidgetItem*> hits = list->findItems(QStringLiteral("H100-SXM"), Qt::MatchExactly, 0);
    QCOMPARE(hits.size(), 1);
    std::unique_ptr<QMimeData> mime(list->model()->mimeData({list->indexFromItem(hits[0])}));
    QVERIFY(mime && mime->hasFormat(QLatin1String(kDeviceMimeType)));
    ed.palette()->setGpusPerNode(4);
    QGraphicsSceneDragDropEvent drop(QEvent::GraphicsSceneDrop);
    drop.setMimeData(mime.get());
    drop.setScenePos(QPointF(300, 200));
    drop.setProposedAction(Qt::CopyAction);
    drop.setPossibleActions(Qt::CopyAction);
    QApplication::sendEvent(ed.scene(), &drop);
    QCOMPARE(ed.cluster().nodes.size(), size_t(1));
    QCOMPARE(ed.cluster().nodes[0].deviceType, std::string("H100-SXM"));
    QCOMPARE(ed.cluster().nodes[0].gpus, 4);
    QCOMPARE(ed.cluster().nodes[0].name, std::string("h100sxm-0"));

    // Double-click on empty canvas adds the palette's current type there.
    ed.palette()->setCurrentDeviceType(QStringLiteral("MI300X"));
    ed.zoomToFit();
    const QPoint empty = ed.view()->mapFromScene(QPointF(-250, -200));
    QTest::mouseDClick(ed.view()->viewport(), Qt::LeftButton, {}, empty);
    QCOMPARE(ed.cluster().nodes.size(), size_t(2));
    QCOMPARE(ed.cluster().nodes[1].deviceType, std::string("MI300X"));
    QCOMPARE(ed.undoStack()->count(), 2);
}

void TestClusterEditor::deleteKey()
{
    ClusterEditor ed;
    ed.resize(1000, 600);
    ed.show();
    QVERIFY(QTest::qWaitForWindowActive(&ed));
    ed.setCluster(triangle());
    ed.selectItems({}, {1}); // link b-c
    ed.view()->setFocus();
    QTest::keyClick(ed.view(), Qt::Key_Delete);
    QCOMPARE(ed.cluster().links.size(), size_t(2));
    QCOMPARE(ed.cluster().nodes.size(), size_t(3));
    ed.undoStack()->undo();
    QVERIFY(ed.cluster() == triangle());
}

void TestClusterEditor::panelOwnedByEditor()
{
    QMainWindow win;
    auto* dock = new QDockWidget(&win);
    win.addDockWidget(Qt::RightDockWidgetArea, dock);
    auto* ed = new ClusterEditor;
    win.setCentralWidget(ed);
    dock->setWidget(ed->propertyPanel());
    QPointer<QWidget> panel = ed->propertyPanel();
    delete ed; // the panel points at the editor's document: it goes too
    QVERIFY(panel.isNull());
    QVERIFY(dock->widget() == nullptr);
}

void TestClusterEditor::zoomPanAndLinkTool()
{
    ClusterEditor ed;
    ed.resize(1000, 600);
    ed.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ed));
    Cluster c = triangle();
    c.links.clear();
    ed.setCluster(c);
    ClusterView* v = ed.view();
    ed.zoomToFit();
    const double z0 = v->zoom();
    ed.zoomIn();
    QVERIFY(std::abs(v->zoom() - z0 * 1.25) < 1e-9);
    ed.zoomOut();
    QVERIFY(std::abs(v->zoom() - z0) < 1e-9);
    // Ctrl + one wheel notch up = 15 % closer; without Ctrl the wheel scrolls and keeps the zoom.
    const QPointF mid(500, 300);
    QWheelEvent wheel(mid, v->viewport()->mapToGlobal(mid), {}, {0, 120}, Qt::NoButton, Qt::ControlModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(v->viewport(), &wheel);
    QVERIFY(std::abs(v->zoom() - z0 * 1.15) < 1e-9);
    QWheelEvent plain(mid, v->viewport()->mapToGlobal(mid), {}, {0, 120}, Qt::NoButton, {}, Qt::NoScrollPhase, false);
    QApplication::sendEvent(v->viewport(), &plain);
    QVERIFY(std::abs(v->zoom() - z0 * 1.15) < 1e-9);
    // Middle-button drag pans (the scroll bars move by the drag distance) and edits nothing.
    ed.zoomIn();
    ed.zoomIn();
    const int h0 = v->horizontalScrollBar()->value();
    const QPointF p0(500, 300), p1(440, 300);
    QMouseEvent press(QEvent::MouseButtonPress, p0, v->viewport()->mapToGlobal(p0), Qt::MiddleButton,
                      Qt::MiddleButton, {});
    QApplication::sendEvent(v->viewport(), &press);
    QMouseEvent move(QEvent::MouseMove, p1, v->viewport()->mapToGlobal(p1), Qt::NoButton, Qt::MiddleButton, {});
    QApplication::sendEvent(v->viewport(), &move);
    QMouseEvent release(QEvent::MouseButtonRelease, p1, v->viewport()->mapToGlobal(p1), Qt::MiddleButton,
                        Qt::NoButton, {});
    QApplication::sendEvent(v->viewport(), &release);
    QCOMPARE(v->horizontalScrollBar()->value(), h0 + 60);
    QVERIFY(ed.cluster() == c);
    // The Link tool draws links without Shift.
    ed.zoomToFit();
    QAction* linkTool = nullptr;
    for (QAction* a : ed.toolBar()->actions())
        if (a->text() == QStringLiteral("Link"))
            linkTool = a;
    QVERIFY(linkTool);
    linkTool->trigger();
    QCOMPARE(v->dragMode(), QGraphicsView::RubberBandDrag);
    dragOnView(v, nodeCenter(c.nodes[2]), nodeCenter(c.nodes[1]));
    QCOMPARE(ed.cluster().links.size(), size_t(1));
    QCOMPARE(ed.cluster().links[0].a + ed.cluster().links[0].b, std::string("cb"));
    QVERIFY(ed.cluster().nodes == c.nodes);
}

void TestClusterEditor::rendersNonEmpty()
{
    ClusterEditor ed;
    ed.resize(1000, 600);
    ed.setCluster(exampleCluster("ditto-ex3"));
    ed.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ed));
    QTest::qWait(20); // the deferred fit-to-view
    QVERIFY(ed.view()->zoom() > 0.2);
    const QImage img = ed.view()->viewport()->grab().toImage();
    QVERIFY(!img.isNull());
    if (qEnvironmentVariableIsSet("HETPLAN_SHOT_DIR")) { // for looking at the canvas by eye
        const QString dir = qEnvironmentVariable("HETPLAN_SHOT_DIR");
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

QTEST_MAIN(TestClusterEditor)
#include "tst_cluster_editor.moc"
