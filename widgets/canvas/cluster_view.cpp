#include "cluster_view.h"

#include <QMouseEvent>
#include <QResizeEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace hetplan {

namespace {
constexpr double kMinZoom = 0.1, kMaxZoom = 4.0;
constexpr double kGrid = 20; // background dot spacing (scene units)
} // namespace

ClusterView::ClusterView(QGraphicsScene* scene, QWidget* parent) : QGraphicsView(scene, parent)
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setDragMode(RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setTransformationAnchor(AnchorUnderMouse);
    setResizeAnchor(AnchorViewCenter);
    setViewportUpdateMode(SmartViewportUpdate);
    setAcceptDrops(true);
    setFocusPolicy(Qt::StrongFocus);
}

void ClusterView::setPanTool(bool pan) { setDragMode(pan ? ScrollHandDrag : RubberBandDrag); }

void ClusterView::zoomBy(double factor)
{
    fitRect_ = QRectF(); // the user's zoom from now on, not a fit
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    if (std::abs(target - zoom()) < 1e-9)
        return;
    scale(target / zoom(), target / zoom());
    emit zoomChanged(zoom());
}

void ClusterView::zoomToRect(const QRectF& rect)
{
    if (rect.isEmpty())
        return;
    fitRect_ = rect;
    const QRectF r = rect.adjusted(-24, -24, 24, 24);
    const QSizeF vp = viewport()->size();
    const double z = std::clamp(std::min(vp.width() / r.width(), vp.height() / r.height()), kMinZoom, 1.0);
    setTransform(QTransform::fromScale(z, z));
    centerOn(r.center());
    emit zoomChanged(zoom());
}

void ClusterView::resizeEvent(QResizeEvent* e)
{
    QGraphicsView::resizeEvent(e);
    // A fitted view stays fitted while the window settles or the user resizes it (until they zoom or pan).
    if (!fitRect_.isEmpty())
        zoomToRect(fitRect_);
}

void ClusterView::wheelEvent(QWheelEvent* e)
{
    if (e->modifiers() & Qt::ControlModifier) {
        // 120 units = one notch = 15 %; touchpads send smaller steps.
        zoomBy(std::pow(1.15, e->angleDelta().y() / 120.0));
        e->accept();
        return;
    }
    QGraphicsView::wheelEvent(e);
}

void ClusterView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() == Qt::MiddleButton) {
        panning_ = true;
        fitRect_ = QRectF(); // a pan keeps its place when the view is resized
        panLast_ = e->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
        e->accept();
        return;
    }
    QGraphicsView::mousePressEvent(e);
}

void ClusterView::mouseMoveEvent(QMouseEvent* e)
{
    if (panning_) {
        const QPoint d = e->position().toPoint() - panLast_;
        panLast_ = e->position().toPoint();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
        e->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(e);
}

void ClusterView::mouseReleaseEvent(QMouseEvent* e)
{
    if (panning_ && e->button() == Qt::MiddleButton) {
        panning_ = false;
        viewport()->unsetCursor();
        if (dragMode() == ScrollHandDrag)
            viewport()->setCursor(Qt::OpenHandCursor);
        e->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(e);
}

void ClusterView::drawBackground(QPainter* p, const QRectF& rect)
{
    p->fillRect(rect, QColor(0xF7, 0xF8, 0xFA));
    if (zoom() < 0.35) // dots would turn into noise
        return;
    p->setPen(QPen(QColor(0xCF, 0xD4, 0xDA), 1.5 / zoom()));
    QVector<QPointF> dots;
    const double x0 = std::floor(rect.left() / kGrid) * kGrid;
    const double y0 = std::floor(rect.top() / kGrid) * kGrid;
    for (double x = x0; x < rect.right(); x += kGrid)
        for (double y = y0; y < rect.bottom(); y += kGrid)
            dots.append(QPointF(x, y));
    p->drawPoints(dots);
}

void ClusterView::drawForeground(QPainter* p, const QRectF&)
{
    if (!scene() || !scene()->items().isEmpty())
        return;
    p->save();
    p->resetTransform(); // viewport pixels: the hint keeps its size at any zoom
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 1.1);
    p->setFont(f);
    p->setPen(QColor(0x70, 0x70, 0x70));
    p->drawText(viewport()->rect().adjusted(24, 24, -24, -24), Qt::AlignCenter | Qt::TextWordWrap,
                tr("No nodes yet.\nDrag a device type from the list onto the canvas, or double-click here, "
                   "to add a node of it; Link joins two nodes."));
    p->restore();
}

} // namespace hetplan
