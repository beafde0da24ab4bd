// Cluster canvas editor through its widgets: property-panel edits, mouse gestures (Shift+drag links, the
// Link tool, middle-button pan, Ctrl+wheel zoom), palette drops, double clicks and the Delete key.
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

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGraphicsSceneDragDropEvent>
#include <QLineEdit>
#include <QMimeData>
#include <QScrollBar>
#include <QSpinBox>
#include <QTest>
#include <QToolBar>
#include <QTreeWidget>
#include <QUndoStack>

using namespace hetplan;
using namespace hetplan::test;

class TestClusterPanel : public QObject {
    Q_OBJECT
private slots:
    void panelEditsNode();
    void panelEditsPrice();
    void deviceTypeChangeFollowsDefaultBandwidth();
    void deviceTypeChangeRenamesDefaultNames();
    void renameUpdatesLinks();
    void hostUnsafeNameIsRefused();
    void clusterPropertiesAndEmptyName();
    void shiftDragDrawsLink();
    void dropAndDoubleClickAddNodes();
    void deleteKey();
    void zoomPanAndLinkTool();
};

void TestClusterPanel::panelEditsNode()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
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
    // Written as the node's card writes it: no trailing zeros, the same rounding.
    QCOMPARE(nic->text(), QStringLiteral("100 Gbps"));
    QCOMPARE(formatGbps(12.5e9), QStringLiteral("100 Gbps"));
    QCOMPARE(formatGBps(21.25e9), QStringLiteral("21.25 GB/s")); // 170 Gbps of NVLink, as amp-het-cluster says
    QCOMPARE(formatGBps(21.254e9), QStringLiteral("21.25 GB/s"));
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

// The price field: empty ("catalog price") by default; a value overrides the catalog through one undoable
// command per finished entry; 0 clears the override again (-1 in the model, left out of the file).
void TestClusterPanel::panelEditsPrice()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.setCluster(triangle());
    ed.selectItems({0});
    auto* price = child<QDoubleSpinBox>(ed.propertyPanel(), "nodePricePerGpuHour");
    QCOMPARE(price->value(), 0.0);
    QCOMPARE(price->text(), QStringLiteral("catalog price"));
    QVERIFY(price->toolTip().contains(QStringLiteral("2024")));
    price->setValue(1.5);
    QCOMPARE(ed.cluster().nodes[0].pricePerGpuHour, 1.5);
    QCOMPARE(ed.undoStack()->count(), 1);
    QCOMPARE(ed.undoStack()->undoText(), QStringLiteral("Change price per GPU-hour of %1").arg(QString::fromStdString(triangle().nodes[0].name)));
    ed.undoStack()->undo();
    QVERIFY(ed.cluster() == triangle());
    QCOMPARE(price->value(), 0.0);
    ed.undoStack()->redo();
    QCOMPARE(price->value(), 1.5); // the panel follows redo
    price->setValue(0);
    QCOMPARE(ed.cluster().nodes[0].pricePerGpuHour, -1.0);
    QVERIFY(ed.cluster() == triangle());
}

void TestClusterPanel::deviceTypeChangeFollowsDefaultBandwidth()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.setCluster(triangle());
    ed.selectItems({2}); // c: A100-40GB with intra 300 GB/s = the A100 default
    auto* type = child<QComboBox>(ed.propertyPanel(), "nodeDeviceType");
    type->setCurrentIndex(type->findText(QStringLiteral("V100-16GB")));
    emit type->activated(type->currentIndex());
    QCOMPARE(ed.cluster().nodes[2].deviceType, std::string("V100-16GB"));
    QCOMPARE(ed.cluster().nodes[2].intraBandwidth, 150e9); // the V100 default
    ed.selectItems({0});                                   // a: intra 0 ("device default") stays 0
    type->setCurrentIndex(type->findText(QStringLiteral("T4")));
    emit type->activated(type->currentIndex());
    QCOMPARE(ed.cluster().nodes[0].intraBandwidth, 0.0);
    ed.undoStack()->undo();
    ed.undoStack()->undo();
    QVERIFY(ed.cluster() == triangle());
}

// A node still called by its default name ("<type stem>-<k>") takes the new type's name with the same
// number, in the same undo step as the type; a name the user chose stays.
void TestClusterPanel::deviceTypeChangeRenamesDefaultNames()
{
    Cluster start;
    start.name = "names";
    start.nodes = {Node{"a100-3", "A100-40GB", 8, 0, 25e9, Communicator::GpuRdma, 0, 0},
                   Node{"mine", "A100-40GB", 8, 0, 25e9, Communicator::GpuRdma, 240, 0},
                   Node{"t4-1", "T4", 4, 0, 3.125e9, Communicator::GpuRdma, 480, 0},
                   Node{"t4-3", "T4", 4, 0, 3.125e9, Communicator::GpuRdma, 720, 0}};
    start.links = {Link{"a100-3", "mine", 5e9, 5e-6}};
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.setCluster(start);
    auto* type = child<QComboBox>(ed.propertyPanel(), "nodeDeviceType");
    const auto changeType = [&](int node, const char* to) {
        ed.selectItems({node});
        type->setCurrentIndex(type->findText(QString::fromLatin1(to)));
        emit type->activated(type->currentIndex());
    };

    changeType(0, "V100-16GB");
    QCOMPARE(ed.cluster().nodes[0].name, std::string("v100-3"));
    QCOMPARE(ed.cluster().links[0].a, std::string("v100-3")); // the link follows the rename
    QCOMPARE(undo.count(), 1);
    QCOMPARE(undo.undoText(), QStringLiteral("Change device type of a100-3"));
    undo.undo(); // one step reverts type and name
    QVERIFY(ed.cluster() == start);

    changeType(1, "V100-16GB"); // renamed by the user: keeps its name
    QCOMPARE(ed.cluster().nodes[1].deviceType, std::string("V100-16GB"));
    QCOMPARE(ed.cluster().nodes[1].name, std::string("mine"));
    undo.undo();

    changeType(2, "A100-40GB"); // "a100-1" is free
    QCOMPARE(ed.cluster().nodes[2].name, std::string("a100-1"));
    undo.undo();
    changeType(0, "T4"); // "t4-3" is taken: the first free T4 name
    QCOMPARE(ed.cluster().nodes[0].name, std::string("t4-0"));
    changeType(0, "A100-40GB"); // back: "a100-0" (the number it had as t4-0)
    QCOMPARE(ed.cluster().nodes[0].name, std::string("a100-0"));
    while (undo.canUndo())
        undo.undo();
    QVERIFY(ed.cluster() == start);
}

void TestClusterPanel::renameUpdatesLinks()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
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

void TestClusterPanel::hostUnsafeNameIsRefused()
{
    // A node name is a host name in hostfiles and launch scripts: one with a space is refused with the rule,
    // the node keeps its name and nothing lands on the undo stack.
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.resize(900, 600);
    ed.setCluster(triangle());
    ed.selectItems({0});
    auto* name = child<QLineEdit>(ed.propertyPanel(), "nodeName");
    name->setText(QStringLiteral("rack 1"));
    emit name->editingFinished();
    QCOMPARE(ed.undoStack()->count(), 0);
    QCOMPARE(ed.cluster().nodes[0].name, triangle().nodes[0].name);
    QVERIFY2(ed.panel()->errorText().contains(QStringLiteral("host name")) &&
                 ed.panel()->errorText().contains(QStringLiteral("letters, digits")),
             qPrintable(ed.panel()->errorText()));
    if (const QByteArray dir = qgetenv("HETPLAN_SCREENSHOTS"); !dir.isEmpty())
        ed.propertyPanel()->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/node-name-refused.png"));
}

void TestClusterPanel::clusterPropertiesAndEmptyName()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
    ed.setCluster(triangle());
    QWidget* panel = ed.propertyPanel();
    auto* inter = child<QDoubleSpinBox>(panel, "interLatency");
    QCOMPARE(inter->value(), 20.0); // default 20e-6 s
    inter->setValue(50);
    QCOMPARE(ed.cluster().interLatency, 50e-6);
    child<QDoubleSpinBox>(panel, "cpuInterBandwidth")->setValue(2.5);
    QCOMPARE(ed.cluster().cpuInterBandwidth, 2.5e9);
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

void TestClusterPanel::shiftDragDrawsLink()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
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

void TestClusterPanel::dropAndDoubleClickAddNodes()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
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

void TestClusterPanel::deleteKey()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
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

void TestClusterPanel::zoomPanAndLinkTool()
{
    QUndoStack undo;
    ClusterEditor ed(&undo);
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
    QMouseEvent press(QEvent::MouseButtonPress, p0, v->viewport()->mapToGlobal(p0), Qt::MiddleButton, Qt::MiddleButton,
                      {});
    QApplication::sendEvent(v->viewport(), &press);
    QMouseEvent move(QEvent::MouseMove, p1, v->viewport()->mapToGlobal(p1), Qt::NoButton, Qt::MiddleButton, {});
    QApplication::sendEvent(v->viewport(), &move);
    QMouseEvent release(QEvent::MouseButtonRelease, p1, v->viewport()->mapToGlobal(p1), Qt::MiddleButton, Qt::NoButton,
                        {});
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

QTEST_MAIN(TestClusterPanel)
#include "tst_cluster_panel.moc"
