#pragma once
// The canvas view: dotted background, Ctrl+wheel zoom under the mouse, middle-button panning in every
// tool, hand-drag panning in the Pan tool and rubber-band selection otherwise.
#include <QGraphicsView>

namespace hetplan {

class ClusterView : public QGraphicsView {
    Q_OBJECT
public:
    explicit ClusterView(QGraphicsScene* scene, QWidget* parent = nullptr);

    void setPanTool(bool pan);
    void zoomIn() { zoomBy(1.25); }
    void zoomOut() { zoomBy(1 / 1.25); }
    void zoomBy(double factor);
    // Shows `rect` whole, between 10 % and 100 % zoom (small clusters are not blown up), and keeps it whole
    // when the view is resized until the user zooms or pans.
    void zoomToRect(const QRectF& rect);
    double zoom() const { return transform().m11(); }

    QSize sizeHint() const override { return {760, 560}; }

signals:
    void zoomChanged(double zoom);

protected:
    void resizeEvent(QResizeEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void drawBackground(QPainter* p, const QRectF& rect) override;
    // An empty cluster says how to start.
    void drawForeground(QPainter* p, const QRectF& rect) override;

private:
    bool panning_ = false;
    QRectF fitRect_; // what the last fit showed; empty once the user zoomed or panned
    QPoint panLast_;
};

} // namespace hetplan
