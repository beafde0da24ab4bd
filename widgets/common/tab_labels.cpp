#include "tab_labels.h"

#include <QEvent>
#include <QFontMetrics>
#include <QTabBar>
#include <QTabWidget>

namespace hetplan {

namespace {
constexpr int kSlackPixels = 8;
QString shown(QString label) { return label.replace(QStringLiteral("&&"), QStringLiteral("&")); }
} // namespace

TabLabels::TabLabels(QTabWidget* tabs) : QObject(tabs), tabs_(tabs) { tabs_->installEventFilter(this); }

void TabLabels::setShortLabel(QWidget* page, const QString& shortLabel)
{
    const int i = tabs_->indexOf(page);
    if (i < 0)
        return;
    labels_[page] = {tabs_->tabText(i), shortLabel};
    tabs_->setTabToolTip(i, shown(tabs_->tabText(i)));
    if (short_) // the others are short already
        tabs_->setTabText(i, shortLabel);
    fit();
}

void TabLabels::fit()
{
    // The tab bar's width with full labels: its size hint (every tab's, side by side) with the current
    // texts swapped for the full ones (the padding around a label does not depend on it).
    const QTabBar* bar = tabs_->tabBar();
    const QFontMetrics fm(bar->font());
    int wanted = bar->sizeHint().width();
    for (const auto& [page, l] : labels_)
        if (const int i = tabs_->indexOf(page); i >= 0)
            wanted += fm.horizontalAdvance(shown(l.full)) - fm.horizontalAdvance(shown(tabs_->tabText(i)));
    // A few pixels of slack: the style measures a label (mnemonics, rounding) a little differently.
    apply(wanted + kSlackPixels > tabs_->width());
}

void TabLabels::apply(bool useShort)
{
    if (useShort == short_)
        return;
    short_ = useShort;
    for (const auto& [page, l] : labels_)
        if (const int i = tabs_->indexOf(page); i >= 0)
            tabs_->setTabText(i, useShort ? l.shortLabel : l.full);
}

bool TabLabels::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == tabs_ && event->type() == QEvent::Resize)
        fit();
    return QObject::eventFilter(watched, event);
}

} // namespace hetplan
