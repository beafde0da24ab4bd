#pragma once
// The two graphics items of the cluster canvas. They only draw a copy of the document's data; edits go
// through undo commands, and the scene refreshes the items from the document's signals.
#include "core/model/cluster.h"

#include <QGraphicsItem>
#include <QList>

namespace hetplan {

class LinkItem;

// A node: rounded box with a coloured header (name), a row of GPU squares and the type/bandwidth text.
// A node marked failed is drawn grey with a FAILED badge and hollow GPU squares.
class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    explicit NodeItem(const Node& node);
    int type() const override { return Type; }

    void setNode(const Node& node);
    const Node& node() const { return node_; }
    int index = -1; // position in the document's node list (kept current by the scene)

    void attach(LinkItem* l) { links_.append(l); }
    void detach(LinkItem* l) { links_.removeAll(l); }
    const QList<LinkItem*>& links() const { return links_; }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget* w) override;

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;

private:
    QRectF box() const;
    Node node_;
    QList<LinkItem*> links_;
};

// An explicit link: a line between two node boxes labelled with its bandwidth and latency.
class LinkItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    // The scene attaches/detaches the item to its endpoints (not the destructor: item deletion order
    // during scene teardown is unspecified).
    LinkItem(const Link& link, NodeItem* a, NodeItem* b);
    int type() const override { return Type; }

    void setLink(const Link& link);
    // Whether the unified communicator routes this pair over the CPU path (drawn dashed, labelled).
    void setCpuPath(bool cpu);
    // Whether either end is marked failed (drawn dashed and faded).
    bool touchesFailedNode() const;
    NodeItem* endA() const { return a_; }
    NodeItem* endB() const { return b_; }
    const Link& link() const { return link_; }
    int index = -1; // position in the document's link list
    // Re-reads the endpoints' positions (called when a node moves or resizes).
    void updateGeometry();

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget* w) override;

private:
    QString label() const;
    QRectF labelRect() const;
    Link link_;
    NodeItem* a_;
    NodeItem* b_;
    QLineF line_;
    bool cpuPath_ = false;
};

} // namespace hetplan
