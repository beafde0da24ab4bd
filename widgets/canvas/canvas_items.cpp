#include "canvas_items.h"

#include "device_style.h"

#include "core/model/device.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace hetplan {

namespace {

QFont pixelFont(int px, bool bold = false)
{
    QFont f;
    f.setPixelSize(px);
    f.setBold(bold);
    return f;
}

const QColor kSelection(0x00, 0x5A, 0x9C);

} // namespace

namespace {
QString toolTipText(const Node& n)
{
    const QString name = QString::fromStdString(n.name);
    return n.failed ? QCoreApplication::translate("NodeItem", "%1 — failed: planning leaves it out").arg(name) : name;
}
} // namespace

// ---- NodeItem ---------------------------------------------------------------------------------------

NodeItem::NodeItem(const Node& node) : node_(node)
{
    setFlags(ItemIsMovable | ItemIsSelectable | ItemSendsGeometryChanges);
    setPos(node.x, node.y);
    setZValue(1); // below links, whose labels must stay readable
    setAcceptHoverEvents(true);
    setToolTip(toolTipText(node));
}

void NodeItem::setNode(const Node& node)
{
    if (node.gpus != node_.gpus)
        prepareGeometryChange();
    node_ = node;
    setToolTip(toolTipText(node));
    if (pos() != QPointF(node.x, node.y))
        setPos(node.x, node.y);
    for (LinkItem* l : links_)
        l->updateGeometry();
    update();
}

QRectF NodeItem::box() const { return QRectF(0, 0, nodebox::width, nodebox::height(node_.gpus)); }

QRectF NodeItem::boundingRect() const { return box().adjusted(-4, -4, 5, 5); } // selection halo + shadow

QPainterPath NodeItem::shape() const
{
    QPainterPath path;
    path.addRoundedRect(box(), 8, 8);
    return path;
}

namespace {
// A failed node keeps its place and shape but loses its colour: grey header, pale body, hollow GPUs.
DeviceStyle failedStyle(DeviceStyle st)
{
    st.color = QColor(0x9E, 0x9E, 0x9E);
    st.fill = QColor(0xF2, 0xF2, 0xF2);
    st.onColor = Qt::white;
    return st;
}
} // namespace

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget*)
{
    const bool failed = node_.failed;
    const DeviceStyle st = failed ? failedStyle(deviceStyle(node_.deviceType)) : deviceStyle(node_.deviceType);
    const QRectF r = box();
    const bool selected = opt->state & QStyle::State_Selected;
    p->setRenderHint(QPainter::Antialiasing);

    // Soft shadow, then the body.
    p->setPen(Qt::NoPen);
    p->setBrush(QColor(0, 0, 0, 35));
    p->drawRoundedRect(r.translated(2, 3), 8, 8);
    p->setBrush(st.fill);
    p->setPen(QPen(selected ? kSelection : st.color.darker(130), selected ? 3 : 1.2));
    p->drawRoundedRect(r, 8, 8);

    // Header band: rounded on top, square at the bottom.
    QPainterPath head;
    head.addRoundedRect(QRectF(r.left(), r.top(), r.width(), nodebox::header + 8), 8, 8);
    QPainterPath cut;
    cut.addRect(QRectF(r.left(), r.top() + nodebox::header, r.width(), 8));
    p->setPen(Qt::NoPen);
    p->setBrush(st.color);
    p->drawPath(head.subtracted(cut));

    p->setPen(st.onColor);
    p->setFont(pixelFont(13, true));
    const bool cpu = node_.communicator == Communicator::CpuEthernet;
    // The header's right end flags the node's state where it is seen first: failed, else the CPU path.
    const QString badge = failed ? QCoreApplication::translate("NodeItem", "FAILED")
                          : cpu  ? QStringLiteral("CPU")
                                 : QString();
    const QRectF title(r.left() + 8, r.top(), r.width() - (failed ? 76 : cpu ? 52 : 16), nodebox::header);
    p->drawText(title, Qt::AlignVCenter | Qt::AlignLeft,
                QFontMetricsF(p->font()).elidedText(QString::fromStdString(node_.name), Qt::ElideRight, title.width()));
    if (!badge.isEmpty()) {
        p->setFont(pixelFont(10, true));
        p->setPen(failed ? QColor(0xB0, 0x00, 0x20) : st.onColor);
        const QRectF area(r.right() - (failed ? 66 : 44), r.top() + 4, failed ? 60 : 38, nodebox::header - 8);
        if (failed) { // a white pill so the red word reads on grey
            p->setBrush(Qt::white);
            p->drawRoundedRect(area, 3, 3);
        }
        p->drawText(area, Qt::AlignCenter | (failed ? Qt::AlignHCenter : Qt::AlignRight), badge);
    }

    // One small square per GPU (hollow when the node has failed: its GPUs are not planned on).
    p->setPen(QPen(st.color.darker(150), 0.8));
    p->setBrush(failed ? QBrush(Qt::NoBrush) : QBrush(st.color));
    const double sq = nodebox::gpuSlot - 2.5;
    const double top = r.top() + nodebox::header + nodebox::pad;
    for (int g = 0; g < node_.gpus; ++g) {
        const int row = g / nodebox::gpusPerRow, col = g % nodebox::gpusPerRow;
        p->drawRoundedRect(
            QRectF(r.left() + nodebox::pad + col * nodebox::gpuSlot, top + row * nodebox::gpuSlot, sq, sq), 1.5, 1.5);
    }

    // "8 × A100-40GB" and the bandwidths.
    const double textTop = top + nodebox::gpuRows(node_.gpus) * nodebox::gpuSlot + 4;
    const QRectF line1(r.left() + nodebox::pad, textTop, r.width() - 2 * nodebox::pad, 17);
    const QRectF line2 = line1.translated(0, 16);
    p->setPen(failed ? QColor(120, 120, 120) : QColor(25, 25, 25));
    p->setFont(pixelFont(12, true));
    const QString kind = QStringLiteral("%1 × %2").arg(node_.gpus).arg(QString::fromStdString(node_.deviceType));
    p->drawText(line1, Qt::AlignLeft | Qt::AlignVCenter,
                QFontMetricsF(p->font()).elidedText(kind, Qt::ElideRight, line1.width()));
    p->setPen(QColor(70, 70, 70));
    p->setFont(pixelFont(10));
    double intra = node_.intraBandwidth;
    if (intra <= 0) // 0 = the device type's default
        if (const DeviceType* d = DeviceCatalog::builtin().find(node_.deviceType))
            intra = d->intraNodeBandwidth;
    QString bw = QStringLiteral("NIC %1").arg(formatGbps(node_.nicBandwidth));
    if (intra > 0)
        bw = QStringLiteral("intra %1 · ").arg(formatGBps(intra)) + bw;
    p->drawText(line2, Qt::AlignLeft | Qt::AlignVCenter,
                QFontMetricsF(p->font()).elidedText(bw, Qt::ElideRight, line2.width()));
}

QVariant NodeItem::itemChange(GraphicsItemChange change, const QVariant& value)
{
    if (change == ItemPositionHasChanged)
        for (LinkItem* l : links_)
            l->updateGeometry();
    return QGraphicsItem::itemChange(change, value);
}

// ---- LinkItem ---------------------------------------------------------------------------------------

namespace {

// Where the segment from the centre of `box` towards `to` leaves the box.
QPointF exitPoint(const QRectF& box, QPointF to)
{
    const QPointF c = box.center();
    const QPointF d = to - c;
    if (std::abs(d.x()) < 1e-9 && std::abs(d.y()) < 1e-9)
        return c;
    const double tx = std::abs(d.x()) > 1e-9 ? box.width() / 2 / std::abs(d.x()) : 1e18;
    const double ty = std::abs(d.y()) > 1e-9 ? box.height() / 2 / std::abs(d.y()) : 1e18;
    return c + d * std::min({tx, ty, 1.0});
}

} // namespace

LinkItem::LinkItem(const Link& link, NodeItem* a, NodeItem* b) : link_(link), a_(a), b_(b)
{
    setFlags(ItemIsSelectable);
    setZValue(2); // above the node cards: a label in the middle of a short link stays readable
    setLink(link);
    updateGeometry();
}

void LinkItem::setLink(const Link& link)
{
    prepareGeometryChange(); // the label may change width
    link_ = link;
    setToolTip(QStringLiteral("%1 ↔ %2").arg(QString::fromStdString(link.a), QString::fromStdString(link.b)));
    update();
}

void LinkItem::updateGeometry()
{
    prepareGeometryChange();
    if (!a_ || !b_) {
        line_ = QLineF();
        return;
    }
    const QRectF ra = a_->mapRectToScene(a_->shape().boundingRect());
    const QRectF rb = b_->mapRectToScene(b_->shape().boundingRect());
    line_ = QLineF(exitPoint(ra, rb.center()), exitPoint(rb, ra.center()));
}

QString LinkItem::label() const
{
    const QString text = QStringLiteral("%1 · %2").arg(formatGbps(link_.bandwidth), formatMicroseconds(link_.latency));
    return cpuPath_ ? text + QStringLiteral(" · CPU path") : text;
}

bool LinkItem::touchesFailedNode() const { return (a_ && a_->node().failed) || (b_ && b_->node().failed); }

void LinkItem::setCpuPath(bool cpu)
{
    if (cpu == cpuPath_)
        return;
    prepareGeometryChange(); // the label grows or shrinks
    cpuPath_ = cpu;
    update();
}

QRectF LinkItem::labelRect() const
{
    QFont f;
    f.setPixelSize(11);
    const QSizeF s = QFontMetricsF(f).size(Qt::TextSingleLine, label()) + QSizeF(10, 4);
    const QPointF c = line_.center();
    return QRectF(c.x() - s.width() / 2, c.y() - s.height() / 2, s.width(), s.height());
}

QRectF LinkItem::boundingRect() const
{
    return QRectF(line_.p1(), line_.p2())
        .normalized()
        .adjusted(-4, -4, 4, 4)
        .united(labelRect().adjusted(-2, -2, 2, 2));
}

QPainterPath LinkItem::shape() const
{
    QPainterPath path(line_.p1());
    path.lineTo(line_.p2());
    QPainterPathStroker stroker;
    stroker.setWidth(10); // easy to hit
    QPainterPath s = stroker.createStroke(path);
    s.addRect(labelRect());
    return s;
}

void LinkItem::paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget*)
{
    if (line_.isNull())
        return;
    const bool selected = opt->state & QStyle::State_Selected;
    const bool dead = touchesFailedNode(); // no traffic can cross it: faded and dashed
    p->setRenderHint(QPainter::Antialiasing);
    p->setPen(QPen(selected ? kSelection
                   : dead   ? QColor(170, 170, 170)
                            : QColor(85, 85, 85),
                   selected ? 3.5 : 2, cpuPath_ || dead ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap));
    p->drawLine(line_);

    const QRectF lr = labelRect();
    p->setPen(QPen(selected ? kSelection : QColor(150, 150, 150), 1));
    p->setBrush(QColor(255, 255, 255, dead ? 170 : 235));
    p->drawRoundedRect(lr, 4, 4);
    QFont f;
    f.setPixelSize(11);
    p->setFont(f);
    p->setPen(dead ? QColor(150, 150, 150) : QColor(30, 30, 30));
    p->drawText(lr, Qt::AlignCenter, label());
}

} // namespace hetplan
