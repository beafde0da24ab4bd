#pragma once
// The device palette beside the canvas: the built-in catalog (name, memory, TFLOPS, colour swatch).
// Drag a row onto the canvas, double-click it, or select it and press "Add node".
#include <QWidget>

class QSpinBox;
class QTreeWidget;
class QPushButton;

namespace hetplan {

class DevicePalette : public QWidget {
    Q_OBJECT
public:
    explicit DevicePalette(QWidget* parent = nullptr);

    QString currentDeviceType() const; // empty if nothing selected
    void setCurrentDeviceType(const QString& name);
    int gpusPerNode() const;
    void setGpusPerNode(int n);
    QTreeWidget* list() const { return tree_; }

signals:
    void addRequested(const QString& deviceType, int gpus);

protected:
    // A narrow palette (a small screen, where the canvas comes first) drops the TFLOPS column so the
    // device names stay readable; the tooltips keep every figure.
    void resizeEvent(QResizeEvent* event) override;

private:
    QTreeWidget* tree_;
    QSpinBox* gpus_;
    QPushButton* add_;
};

} // namespace hetplan
