#pragma once
// The comparison view's building blocks shared by its bar panels: value formatting, a bar series, a value
// label over a bar and a panel with planner names on its x axis.
#include <QColor>
#include <QString>
#include <QStringList>

class QCPAxisRect;
class QCPBars;
class QCustomPlot;

namespace hetplan::comparison {

// A value for a bar label: 3 significant digits, k/M suffix for big ones.
QString compact(double v);
QCPBars* bars(QCPAxisRect* rect, const QColor& colour, double width);
// A label over the bar at `key` (its height `value`), clipped to the panel.
void valueLabel(QCustomPlot* plot, QCPAxisRect* rect, double key, double value, const QString& text,
                const QColor& colour = QColor(40, 40, 40));
// Names as the x axis's ticks, `yLabel` on the y axis, no dragging or zooming.
void setupPanel(QCustomPlot* plot, QCPAxisRect* rect, const QStringList& names, const QString& yLabel);

} // namespace hetplan::comparison
