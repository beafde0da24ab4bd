#pragma once
// Short tab labels for a narrow window. A QTabWidget with many tabs between two docks does not fit a
// 1152-pixel window (the default on a 1280-pixel screen): Qt would scroll tabs out of sight or elide every
// label to a few letters. TabLabels switches the tabs that have a short label ("Plan details" → "Details")
// to it while the full labels do not fit, and back when they do; the tooltip always has the full label.
// What still does not fit is up to the tab widget (scroll buttons, or its elide mode).
#include <QObject>
#include <QString>

#include <map>

class QTabWidget;

namespace hetplan {

class TabLabels : public QObject {
    Q_OBJECT
public:
    explicit TabLabels(QTabWidget* tabs); // a child of `tabs`, watching its resizes
    // `page`'s tab gets `shortLabel` when space is short; its current text is its full label.
    void setShortLabel(QWidget* page, const QString& shortLabel);
    // Chooses the labels for the tab widget's current width (called on every resize).
    void fit();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Labels {
        QString full, shortLabel;
    };
    void apply(bool useShort);

    QTabWidget* tabs_;
    std::map<QWidget*, Labels> labels_;
    bool short_ = false;
};

} // namespace hetplan
