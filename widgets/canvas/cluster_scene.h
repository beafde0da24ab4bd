#pragma once
// The canvas scene: mirrors a ClusterDocument as NodeItems and LinkItems (rebuilt from the document's
// signals, never edited directly) and turns mouse gestures into requests the editor answers with undo
// commands: a finished drag -> nodesDragged, Shift+drag (or the Link tool) between two nodes ->
// linkRequested, a palette drop -> deviceDropped, a double click on empty canvas -> backgroundDoubleClicked.
#include "canvas_items.h"
#include "widgets/models/cluster_document.h"

#include <QGraphicsScene>
#include <QPoint>
#include <QPointF>

#include <vector>

class QGraphicsLineItem;

namespace hetplan {

inline constexpr char kDeviceMimeType[] = "application/x-hetplan-device";

class ClusterScene : public QGraphicsScene {
    Q_OBJECT
public:
    enum class Tool { Select, Pan, Link };

    explicit ClusterScene(ClusterDocument* doc, QObject* parent = nullptr);
    ~ClusterScene() override;

    void setTool(Tool t) { tool_ = t; }
    Tool tool() const { return tool_; }

    NodeItem* nodeItem(int i) const { return nodes_.value(i); }
    LinkItem* linkItem(int i) const { return links_.value(i); }
    int nodeItemCount() const { return int(nodes_.size()); }
    int linkItemCount() const { return int(links_.size()); }
    NodeItem* nodeAt(QPointF scenePos) const;

    std::vector<int> selectedNodes() const; // ascending document indices
    std::vector<int> selectedLinks() const;
    void selectOnly(const std::vector<int>& nodes, const std::vector<int>& links = {});
    // Bounding rect of the nodes and links (empty scene: a default area around the origin).
    QRectF contentRect() const;

signals:
    void nodesDragged(const std::vector<int>& nodes, const std::vector<QPointF>& newPos);
    void linkRequested(int fromNode, int toNode);
    void deviceDropped(const QString& deviceType, QPointF scenePos);
    void backgroundDoubleClicked(QPointF scenePos);
    // A right click (or the menu key) on a node: the editor shows the node's menu at `screenPos`.
    void nodeMenuRequested(int node, QPoint screenPos);

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* e) override;
    void mouseMoveEvent(QGraphicsSceneMouseEvent* e) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent* e) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) override;
    void contextMenuEvent(QGraphicsSceneContextMenuEvent* e) override;
    void dragEnterEvent(QGraphicsSceneDragDropEvent* e) override;
    void dragMoveEvent(QGraphicsSceneDragDropEvent* e) override;
    void dropEvent(QGraphicsSceneDragDropEvent* e) override;

private:
    void rebuild();
    void clearItems();
    void onNodeInserted(int i);
    void onNodeRemoved(int i);
    void onNodeChanged(int i);
    void onLinkInserted(int i);
    void onLinkRemoved(int i);
    void onLinkChanged(int i);
    void reindex();
    void refreshPaths(); // which links the unified communicator routes over the CPU path
    void updateSceneRect();
    NodeItem* findNodeItem(const std::string& name) const;
    void removeLinkItem(LinkItem* l);

    ClusterDocument* doc_;
    QList<NodeItem*> nodes_;
    QList<LinkItem*> links_;
    Tool tool_ = Tool::Select;
    // Link drawing in progress.
    QGraphicsLineItem* rubberLink_ = nullptr;
    NodeItem* linkFrom_ = nullptr;
    // Node positions at mouse press, to detect a finished drag.
    std::vector<QPointF> pressPos_;
};

} // namespace hetplan
