#include "comparison_panels.h"

#include "widgets/common/palette.h"

#include <qcustomplot.h>

#include <cmath>

namespace hetplan::comparison {

QString compact(double v)
{
    const double a = std::abs(v);
    if (a >= 1e6)
        return QString::number(v / 1e6, 'g', 3) + QLatin1Char('M');
    if (a >= 1e4)
        return QString::number(v / 1e3, 'g', 3) + QLatin1Char('k');
    if (a >= 100)
        return QString::number(v, 'f', 0);
    return QString::number(v, 'g', 3);
}

QCPBars* bars(QCPAxisRect* rect, const QColor& colour, double width)
{
    auto* b = new QCPBars(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    b->setWidth(width);
    b->setBrush(colour);
    b->setPen(QPen(palette::shade(colour, 0.3), 1));
    b->setAntialiased(false);
    return b;
}

void valueLabel(QCustomPlot* plot, QCPAxisRect* rect, double key, double value, const QString& text,
                const QColor& colour)
{
    auto* label = new QCPItemText(plot);
    label->setClipAxisRect(rect);
    label->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    label->position->setCoords(key, value);
    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    label->setPadding(QMargins(0, 0, 0, 2));
    QFont f = plot->font();
    f.setPointSizeF(7.5);
    label->setFont(f);
    label->setColor(colour);
    label->setText(text);
}

void setupPanel(QCustomPlot* plot, QCPAxisRect* rect, const QStringList& names, const QString& yLabel)
{
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < names.size(); ++i)
        ticker->addTick(i, names[i]);
    x->setTicker(ticker);
    x->setSubTicks(false);
    x->setTickLength(0, 3);
    x->grid()->setVisible(false);
    x->setRange(-0.6, names.size() - 0.4);
    y->setLabel(yLabel);
    y->grid()->setPen(QPen(palette::gridLine(), 0, Qt::DotLine));
    QFont tf = plot->font();
    tf.setPointSizeF(8.5);
    x->setTickLabelFont(tf);
    y->setTickLabelFont(tf);
    QFont lf = plot->font();
    lf.setPointSizeF(9);
    y->setLabelFont(lf);
    rect->setRangeDrag(Qt::Orientations());
    rect->setRangeZoom(Qt::Orientations());
}

} // namespace hetplan::comparison
