#pragma once
// File ▸ Open Example: the bundled clusters as a list with each one's GPU count and description (the whole
// description of the selected one below the list), and the example models with their size. The caller
// opens the chosen pair.
#include <QDialog>

#include <string>

class QComboBox;
class QLabel;
class QTreeWidget;

namespace hetplan {

class ExamplePicker : public QDialog {
    Q_OBJECT
public:
    explicit ExamplePicker(QWidget* parent = nullptr);

    std::string cluster() const; // "" when none is selected
    std::string model() const;
    void select(const std::string& cluster, const std::string& model);

    QTreeWidget* clusters() const { return clusters_; } // columns: name, GPUs, description
    QComboBox* models() const { return models_; }
    QString descriptionText() const; // the selected cluster's full description

private:
    void fillClusters();
    void fillModels();
    void showSelected();

    QTreeWidget* clusters_;
    QLabel* description_;
    QComboBox* models_;
    QLabel* modelInfo_;
};

} // namespace hetplan
