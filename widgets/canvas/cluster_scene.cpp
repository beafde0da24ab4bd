#include "cluster_scene.h"

#include <QGraphicsLineItem>
#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneDragDropEvent>
#include <QGraphicsSceneMouseEvent>
#include <QMimeData>
#include <QPen>

#include <cmath>
#include <utility>

namespace hetplan {

ClusterScene::ClusterScene(ClusterDocument* doc, QObject* parent) : QGraphicsScene(parent), doc_(doc)
{
    connect(doc, &ClusterDocument::reset, this, &ClusterScene::rebuild);
    connect(doc, &ClusterDocument::nodeInserted, this, &ClusterScene::onNodeInserted);
    connect(doc, &ClusterDocument::nodeRemoved, this, &ClusterScene::onNodeRemoved);
    connect(doc, &ClusterDocument::nodeChanged, this, &ClusterScene::onNodeChanged);
    connect(doc, &ClusterDocument::nodeMoved, this, &ClusterScene::onNodeChanged);
    connect(doc, &ClusterDocument::linkInserted, this, &ClusterScene::onLinkInserted);
    connect(doc, &ClusterDocument::linkRemoved, this, &ClusterScene::onLinkRemoved);
    connect(doc, &ClusterDocument::linkChanged, this, &ClusterScene::onLinkChanged);
    connect(doc, &ClusterDocument::edited, this, &ClusterScene::updateSceneRect);
    rebuild();
}

// ---- document -> items ------------------------------------------------------------------------------

ClusterScene::~ClusterScene()
{
    // Delete our items before QGraphicsScene does: deleting a selected item emits selectionChanged, and
    // listeners must not see half-destroyed items in our lists.
    const QSignalBlocker block(this);
    clearItems();
}

void ClusterScene::clearItems()
{
    // Empty the lists before deleting, links first (they point at node items).
    const QList<LinkItem*> links = std::exchange(links_, {});
    const QList<NodeItem*> nodes = std::exchange(nodes_, {});
    for (LinkItem* l : links)
        delete l;
    for (NodeItem* n : nodes)
        delete n;
}

void ClusterScene::rebuild()
{
    clearItems();
    for (int i = 0; i < doc_->nodeCount(); ++i)
        onNodeInserted(i);
    for (int i = 0; i < doc_->linkCount(); ++i)
        onLinkInserted(i);
    updateSceneRect();
}

void ClusterScene::reindex()
{
    for (int i = 0; i < nodes_.size(); ++i)
        nodes_[i]->index = i;
    for (int i = 0; i < links_.size(); ++i)
        links_[i]->index = i;
}

void ClusterScene::onNodeInserted(int i)
{
    auto* item = new NodeItem(doc_->node(i));
    addItem(item);
    nodes_.insert(i, item);
    reindex();
}

void ClusterScene::onNodeRemoved(int i)
{
    NodeItem* item = nodes_.at(i);
    const QList<LinkItem*> attached = item->links(); // normally none: commands remove links first
    for (LinkItem* l : attached)
        removeLinkItem(l);
    nodes_.removeAt(i);
    reindex(); // before the delete: a selected item's deletion emits selectionChanged
    delete item;
}

void ClusterScene::onNodeChanged(int i)
{
    nodes_.at(i)->setNode(doc_->node(i));
    refreshPaths(); // a device type or communicator change may switch a link to the CPU path or back
}

void ClusterScene::refreshPaths()
{
    const Cluster& c = doc_->cluster();
    for (LinkItem* l : links_) {
        const auto a = c.findNode(l->link().a), b = c.findNode(l->link().b);
        l->setCpuPath(a && b && c.nodePath(*a, *b) == Communicator::CpuEthernet);
    }
}

NodeItem* ClusterScene::findNodeItem(const std::string& name) const
{
    for (NodeItem* n : nodes_)
        if (n->node().name == name)
            return n;
    return nullptr;
}

void ClusterScene::onLinkInserted(int i)
{
    const Link& l = doc_->link(i);
    NodeItem* a = findNodeItem(l.a);
    NodeItem* b = findNodeItem(l.b);
    auto* item = new LinkItem(l, a, b);
    if (a)
        a->attach(item);
    if (b)
        b->attach(item);
    addItem(item);
    links_.insert(i, item);
    reindex();
    refreshPaths();
}

void ClusterScene::removeLinkItem(LinkItem* l)
{
    if (l->endA())
        l->endA()->detach(l);
    if (l->endB())
        l->endB()->detach(l);
    links_.removeAll(l);
    reindex();
    delete l;
}

void ClusterScene::onLinkRemoved(int i) { removeLinkItem(links_.at(i)); }

void ClusterScene::onLinkChanged(int i)
{
    links_.at(i)->setLink(doc_->link(i));
    refreshPaths();
}

QRectF ClusterScene::contentRect() const
{
    QRectF r;
    for (NodeItem* n : nodes_)
        r |= n->sceneBoundingRect();
    for (LinkItem* l : links_)
        r |= l->sceneBoundingRect();
    return r.isNull() ? QRectF(-200, -150, 400, 300) : r;
}

void ClusterScene::updateSceneRect()
{
    // Generous margin so there is room to pan and to drop new nodes beside the existing ones.
    setSceneRect(contentRect().adjusted(-400, -300, 400, 300));
}

// ---- selection --------------------------------------------------------------------------------------

NodeItem* ClusterScene::nodeAt(QPointF scenePos) const
{
    for (QGraphicsItem* it : items(scenePos))
        if (it->type() == NodeItem::Type)
            return static_cast<NodeItem*>(it);
    return nullptr;
}

std::vector<int> ClusterScene::selectedNodes() const
{
    std::vector<int> v;
    for (NodeItem* n : nodes_)
        if (n->isSelected())
            v.push_back(n->index);
    return v;
}

std::vector<int> ClusterScene::selectedLinks() const
{
    std::vector<int> v;
    for (LinkItem* l : links_)
        if (l->isSelected())
            v.push_back(l->index);
    return v;
}

void ClusterScene::selectOnly(const std::vector<int>& nodes, const std::vector<int>& links)
{
    {
        const QSignalBlocker block(this); // one selectionChanged at the end, not one per item
        clearSelection();
        for (int i : nodes)
            if (NodeItem* n = nodes_.value(i))
                n->setSelected(true);
        for (int i : links)
            if (LinkItem* l = links_.value(i))
                l->setSelected(true);
    }
    emit selectionChanged();
}

// ---- gestures ---------------------------------------------------------------------------------------

void ClusterScene::mousePressEvent(QGraphicsSceneMouseEvent* e)
{
    if (e->button() == Qt::LeftButton) {
        NodeItem* from = nodeAt(e->scenePos());
        if (from && (tool_ == Tool::Link || (e->modifiers() & Qt::ShiftModifier))) {
            linkFrom_ = from;
            rubberLink_ = addLine(QLineF(from->sceneBoundingRect().center(), e->scenePos()),
                                  QPen(QColor(0x00, 0x5A, 0x9C), 2, Qt::DashLine));
            rubberLink_->setZValue(10);
            e->accept();
            return;
        }
        pressPos_.clear();
        for (NodeItem* n : std::as_const(nodes_))
            pressPos_.push_back(n->pos());
    }
    QGraphicsScene::mousePressEvent(e);
}

void ClusterScene::mouseMoveEvent(QGraphicsSceneMouseEvent* e)
{
    if (rubberLink_) {
        rubberLink_->setLine(QLineF(rubberLink_->line().p1(), e->scenePos()));
        return;
    }
    QGraphicsScene::mouseMoveEvent(e);
}

void ClusterScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* e)
{
    if (rubberLink_) {
        delete rubberLink_;
        rubberLink_ = nullptr;
        NodeItem* to = nodeAt(e->scenePos());
        NodeItem* from = linkFrom_;
        linkFrom_ = nullptr;
        if (to && from && to != from)
            emit linkRequested(from->index, to->index);
        return;
    }
    QGraphicsScene::mouseReleaseEvent(e);
    if (pressPos_.size() != size_t(nodes_.size())) {
        pressPos_.clear();
        return;
    }
    std::vector<int> moved;
    std::vector<QPointF> to;
    for (int i = 0; i < nodes_.size(); ++i)
        if (nodes_[i]->pos() != pressPos_[size_t(i)]) {
            moved.push_back(i);
            // Whole pixels keep saved files tidy.
            to.emplace_back(std::round(nodes_[i]->pos().x()), std::round(nodes_[i]->pos().y()));
        }
    pressPos_.clear();
    if (!moved.empty())
        emit nodesDragged(moved, to);
}

void ClusterScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e)
{
    if (e->button() == Qt::LeftButton && !itemAt(e->scenePos(), QTransform())) {
        emit backgroundDoubleClicked(e->scenePos());
        e->accept();
        return;
    }
    QGraphicsScene::mouseDoubleClickEvent(e);
}

void ClusterScene::contextMenuEvent(QGraphicsSceneContextMenuEvent* e)
{
    NodeItem* n = nodeAt(e->scenePos());
    if (!n) {
        QGraphicsScene::contextMenuEvent(e);
        return;
    }
    if (!n->isSelected()) // the menu acts on the node under the pointer; show which
        selectOnly({n->index});
    e->accept();
    emit nodeMenuRequested(n->index, e->screenPos());
}

void ClusterScene::dragEnterEvent(QGraphicsSceneDragDropEvent* e)
{
    if (e->mimeData()->hasFormat(QLatin1String(kDeviceMimeType)))
        e->acceptProposedAction();
    else
        QGraphicsScene::dragEnterEvent(e);
}

void ClusterScene::dragMoveEvent(QGraphicsSceneDragDropEvent* e)
{
    if (e->mimeData()->hasFormat(QLatin1String(kDeviceMimeType)))
        e->acceptProposedAction();
    else
        QGraphicsScene::dragMoveEvent(e);
}

void ClusterScene::dropEvent(QGraphicsSceneDragDropEvent* e)
{
    if (!e->mimeData()->hasFormat(QLatin1String(kDeviceMimeType))) {
        QGraphicsScene::dropEvent(e);
        return;
    }
    const QString type = QString::fromUtf8(e->mimeData()->data(QLatin1String(kDeviceMimeType)));
    e->acceptProposedAction();
    emit deviceDropped(type, e->scenePos());
}

} // namespace hetplan
