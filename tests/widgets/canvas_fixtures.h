#pragma once
// Small hand-made clusters and input helpers shared by the canvas editor tests.
#include "core/model/cluster.h"
#include "widgets/canvas/device_style.h"

#include <QApplication>
#include <QGraphicsView>
#include <QMouseEvent>

namespace hetplan::test {

// Three nodes of different types, fully linked: a-b, b-c, a-c.
inline Cluster triangle()
{
    Cluster c;
    c.name = "tri";
    c.nodes = {Node{"a", "V100-16GB", 4, 0, 12.5e9, Communicator::GpuRdma, 0, 0},
               Node{"b", "T4", 4, 0, 3.125e9, Communicator::GpuRdma, 240, 0},
               Node{"c", "A100-40GB", 8, 300e9, 25e9, Communicator::CpuEthernet, 0, 200}};
    c.links = {Link{"a", "b", 1.25e9, 10e-6}, Link{"b", "c", 2.5e9, 20e-6}, Link{"a", "c", 5e9, 5e-6}};
    return c;
}

template <class T>
inline T* child(QWidget* w, const char* name)
{
    T* c = w->findChild<T*>(QLatin1String(name));
    if (!c)
        qFatal("no child %s", name);
    return c;
}

// Sends a left-button press/move/release sequence to the view's viewport (QTest::mouseMove cannot hold
// a button down).
inline void dragOnView(QGraphicsView* v, QPointF fromScene, QPointF toScene, Qt::KeyboardModifiers mods = {})
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

inline QPointF nodeCenter(const Node& n) { return {n.x + nodebox::width / 2, n.y + nodebox::height(n.gpus) / 2}; }

} // namespace hetplan::test
