#include "cluster_editor.h"

#include "widgets/models/cluster_document.h"
#include "cluster_scene.h"
#include "cluster_view.h"
#include "device_palette.h"
#include "device_style.h"
#include "property_panel.h"

#include "widgets/commands/cluster_fields.h"
#include "widgets/commands/link_commands.h"

#include "core/model/device.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QSplitter>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace hetplan {

PropertyPanel* ClusterEditor::panel() const { return panel_; }

namespace {
constexpr double kDefaultNic = 100e9 / 8; // 100 Gbps, a common data-centre NIC
} // namespace

ClusterEditor::ClusterEditor(ClusterDocument* document, QUndoStack* undoStack, QWidget* parent)
    : QWidget(parent), doc_(document ? document : new ClusterDocument(this)), undo_(undoStack)
{
    scene_ = new ClusterScene(doc_, this);
    view_ = new ClusterView(scene_, this);
    view_->setObjectName(QStringLiteral("clusterView"));
    palette_ = new DevicePalette(this);
    panel_ = new PropertyPanel(doc_, undo_); // parentless until the main window docks it

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(palette_);
    split->addWidget(view_);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({200, 800});
    buildToolBar();
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    lay->addWidget(toolBar_);
    lay->addWidget(split, 1);

    connect(doc_, &ClusterDocument::edited, this, &ClusterEditor::clusterChanged);
    connect(doc_, &ClusterDocument::edited, this, &ClusterEditor::updatePanel);
    connect(doc_, &ClusterDocument::reset, this, &ClusterEditor::updatePanel);
    connect(doc_, &ClusterDocument::reset, this, [this] { // another cluster (the scene rebuilt itself first)
        fitPending_ = true;
        if (isVisible())
            zoomToFit();
    });
    connect(scene_, &QGraphicsScene::selectionChanged, this, [this] {
        updatePanel();
        if (deleteAction_)
            deleteAction_->setEnabled(!selectedNodes().empty() || !selectedLinks().empty());
        emit selectionChanged();
    });
    connect(scene_, &ClusterScene::nodesDragged, this, &ClusterEditor::onNodesDragged);
    connect(scene_, &ClusterScene::linkRequested, this, &ClusterEditor::addLink);
    connect(scene_, &ClusterScene::deviceDropped, this,
            [this](const QString& type, QPointF pos) { addNode(type, palette_->gpusPerNode(), pos); });
    connect(scene_, &ClusterScene::backgroundDoubleClicked, this, [this](QPointF pos) {
        if (!palette_->currentDeviceType().isEmpty())
            addNode(palette_->currentDeviceType(), palette_->gpusPerNode(), pos);
    });
    connect(palette_, &DevicePalette::addRequested, this, &ClusterEditor::addNodeAtFreeSpot);
    connect(scene_, &ClusterScene::nodeMenuRequested, this, [this](int node, QPoint screenPos) {
        QMenu* menu = nodeMenu(node, this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(screenPos);
    });
    updatePanel();
}

ClusterEditor::~ClusterEditor()
{
    delete panel_; // it points at our document and stack, wherever it is docked
}

void ClusterEditor::buildToolBar()
{
    toolBar_ = new QToolBar(this);
    toolBar_->setObjectName(QStringLiteral("clusterEditorToolBar"));
    toolBar_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolBar_->setIconSize(QSize(18, 18));
    const auto icon = [](const char* name) { return QIcon::fromTheme(QLatin1String(name)); };

    auto* tools = new QActionGroup(this);
    const auto tool = [&](const QString& text, const char* iconName, const QString& key, const QString& tip,
                          ClusterScene::Tool t) {
        QAction* a = toolBar_->addAction(icon(iconName), text);
        a->setCheckable(true);
        a->setShortcut(QKeySequence(key));
        a->setShortcutContext(Qt::WidgetShortcut); // letters act on the canvas only
        view_->addAction(a);
        a->setToolTip(tip);
        tools->addAction(a);
        connect(a, &QAction::triggered, this, [this, t] {
            scene_->setTool(t);
            view_->setPanTool(t == ClusterScene::Tool::Pan);
        });
        return a;
    };
    tool(tr("Select"), "edit-select", QStringLiteral("S"),
         tr("Select and move nodes; drag the background for a "
            "rubber band (S)"),
         ClusterScene::Tool::Select)
        ->setChecked(true);
    tool(tr("Pan"), "transform-move", QStringLiteral("H"),
         tr("Drag the canvas to pan; the middle mouse button "
            "pans in every tool (H)"),
         ClusterScene::Tool::Pan);
    tool(tr("Link"), "network-wired", QStringLiteral("L"),
         tr("Drag from one node to another to add an explicit "
            "link; Shift+drag does the same in any tool (L)"),
         ClusterScene::Tool::Link);
    toolBar_->addSeparator();

    deleteAction_ = toolBar_->addAction(icon("edit-delete"), tr("Delete"), this, &ClusterEditor::deleteSelection);
    deleteAction_->setShortcuts({QKeySequence::Delete, QKeySequence(Qt::Key_Backspace)});
    deleteAction_->setShortcutContext(Qt::WidgetShortcut);
    deleteAction_->setToolTip(tr("Delete the selected nodes (with their links) and links (Del)"));
    deleteAction_->setEnabled(false);
    view_->addAction(deleteAction_); // Del acts on the canvas only, not in text fields
    QAction* layout = toolBar_->addAction(icon("view-grid"), tr("Auto-layout"), this, &ClusterEditor::autoLayout);
    layout->setToolTip(tr("Arrange the nodes in a grid, one row group per device type"));
    toolBar_->addSeparator();

    // No shortcuts here: the main window's View menu owns Ctrl++ / Ctrl+- / Ctrl+0 (two actions with one
    // shortcut would make it ambiguous and neither would fire).
    const auto zoom = [&](const QString& text, const char* iconName, const QString& tip,
                          void (ClusterEditor::*slot)()) {
        toolBar_->addAction(icon(iconName), text, this, slot)->setToolTip(tip);
    };
    // "+" and "−": short enough that the whole tool bar fits a 1024-pixel-wide window's canvas.
    zoom(QStringLiteral("+"), "zoom-in", tr("Zoom in (or Ctrl+wheel)"), &ClusterEditor::zoomIn);
    zoom(QStringLiteral("−"), "zoom-out", tr("Zoom out (or Ctrl+wheel)"), &ClusterEditor::zoomOut);
    zoom(tr("Fit"), "zoom-fit-best", tr("Show the whole cluster"), &ClusterEditor::zoomToFit);
}

QWidget* ClusterEditor::propertyPanel() const { return panel_; }

void ClusterEditor::setCluster(const Cluster& cluster) { doc_->setCluster(cluster); }

Cluster ClusterEditor::cluster() const { return doc_->cluster(); }

void ClusterEditor::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    if (fitPending_) // the viewport has its real size only once shown
        QTimer::singleShot(0, this, [this] {
            if (fitPending_)
                zoomToFit();
        });
}

bool ClusterEditor::addNode(const QString& deviceType, int gpus, QPointF center)
{
    const DeviceType* d = DeviceCatalog::builtin().find(deviceType.toStdString());
    if (!d)
        return false;
    Node n;
    n.deviceType = d->name;
    n.name = doc_->uniqueNodeName(d->name);
    n.gpus = std::clamp(gpus, 1, 64);
    n.intraBandwidth = d->intraNodeBandwidth;
    n.nicBandwidth = kDefaultNic;
    n.x = std::round(center.x() - nodebox::width / 2);
    n.y = std::round(center.y() - nodebox::height(n.gpus) / 2);
    auto* cmd = new AddNodeCommand(doc_, n);
    const int index = cmd->index();
    undo_->push(cmd);
    selectItems({index});
    return true;
}

bool ClusterEditor::addNodeAtFreeSpot(const QString& deviceType, int gpus)
{
    // Start at the visible centre and step diagonally until the box does not cover another node.
    QPointF c = view_->mapToScene(view_->viewport()->rect().center());
    const QSizeF size(nodebox::width, nodebox::height(gpus));
    for (int tries = 0; tries < 200; ++tries) {
        const QRectF box(c - QPointF(size.width() / 2, size.height() / 2), size);
        const bool free = std::none_of(doc_->cluster().nodes.begin(), doc_->cluster().nodes.end(), [&](const Node& n) {
            return QRectF(n.x, n.y, nodebox::width, nodebox::height(n.gpus)).adjusted(-10, -10, 10, 10).intersects(box);
        });
        if (free)
            break;
        c += QPointF(30, 30);
    }
    return addNode(deviceType, gpus, c);
}

bool ClusterEditor::addLink(int fromNode, int toNode)
{
    if (fromNode == toNode || fromNode < 0 || toNode < 0 || fromNode >= doc_->nodeCount() ||
        toNode >= doc_->nodeCount())
        return false;
    const Node& a = doc_->node(fromNode);
    const Node& b = doc_->node(toNode);
    const int existing = doc_->findLink(a.name, b.name);
    if (existing >= 0) { // one link per pair: show the one there is
        selectItems({}, {existing});
        return false;
    }
    // The pair can go no faster than the slower NIC.
    const Link l{a.name, b.name, std::min(a.nicBandwidth, b.nicBandwidth), doc_->cluster().interLatency};
    auto* cmd = new AddLinkCommand(doc_, l);
    const int index = cmd->index();
    undo_->push(cmd);
    selectItems({}, {index});
    return true;
}

bool ClusterEditor::deleteSelection()
{
    const std::vector<int> nodes = selectedNodes(), links = selectedLinks();
    if (nodes.empty() && links.empty())
        return false;
    undo_->push(new RemoveItemsCommand(doc_, nodes, links));
    return true;
}

bool ClusterEditor::setNodeFailed(int node, bool failed)
{
    if (node < 0 || node >= doc_->nodeCount() || doc_->node(node).failed == failed)
        return false;
    undo_->push(changeValue(doc_, node, failed ? nodeField::markFailed : nodeField::markHealthy, failed));
    return true;
}

QMenu* ClusterEditor::nodeMenu(int node, QWidget* parent)
{
    auto* menu = new QMenu(parent);
    if (node < 0 || node >= doc_->nodeCount())
        return menu;
    const bool failed = doc_->node(node).failed;
    QAction* state = menu->addAction(failed ? tr("Mark healthy") : tr("Mark failed"), this,
                                     [this, node, failed] { setNodeFailed(node, !failed); });
    state->setObjectName(failed ? QStringLiteral("markHealthy") : QStringLiteral("markFailed"));
    state->setStatusTip(failed ? tr("Put the node back into the cluster and re-plan the current plan")
                               : tr("Leave the node out of planning and re-plan the current plan"));
    menu->addSeparator();
    menu->addAction(tr("Delete"), this, [this, node] {
        selectItems({node});
        deleteSelection();
    });
    return menu;
}

void ClusterEditor::autoLayout()
{
    if (doc_->nodeCount() == 0)
        return;
    auto* cmd = new AutoLayoutCommand(doc_);
    if (cmd->changesSomething())
        undo_->push(cmd);
    else
        delete cmd; // already laid out: no empty undo step
    zoomToFit();
}

void ClusterEditor::onNodesDragged(const std::vector<int>& nodes, const std::vector<QPointF>& newPos)
{
    undo_->push(new MoveNodesCommand(doc_, nodes, newPos));
}

void ClusterEditor::zoomIn() { view_->zoomIn(); }
void ClusterEditor::zoomOut() { view_->zoomOut(); }

void ClusterEditor::zoomToFit()
{
    fitPending_ = !isVisible();
    view_->zoomToRect(scene_->contentRect());
}

std::vector<int> ClusterEditor::selectedNodes() const { return scene_->selectedNodes(); }
std::vector<int> ClusterEditor::selectedLinks() const { return scene_->selectedLinks(); }

void ClusterEditor::selectItems(const std::vector<int>& nodes, const std::vector<int>& links)
{
    scene_->selectOnly(nodes, links);
}

void ClusterEditor::updatePanel()
{
    if (panel_)
        panel_->showSelection(selectedNodes(), selectedLinks());
}

} // namespace hetplan
