#pragma once
// The property panel of the cluster editor (placed in the main window's right-hand dock). It shows the
// selected node, the selected link, or the cluster itself when nothing is selected; every edit is pushed
// as an undo command, and invalid input (an empty or duplicate node name) is refused with a message
// instead of a command.
#include "widgets/models/cluster_document.h"

#include <QWidget>

#include <type_traits>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QUndoStack;

namespace hetplan {

template <class Object, class Value>
struct Field;

class PropertyPanel : public QWidget {
    Q_OBJECT
public:
    PropertyPanel(ClusterDocument* doc, QUndoStack* stack, QWidget* parent = nullptr);

    // Which item(s) to show; indices are the document's. Also re-reads the values from the document.
    void showSelection(const std::vector<int>& nodes, const std::vector<int>& links);
    QString errorText() const; // the last refused edit's reason ("" if none)

private:
    QWidget* buildClusterPage();
    QWidget* buildNodePage();
    QWidget* buildLinkPage();
    void refresh();
    void showPage(QWidget* page);
    void showError(const QString& text);
    // Pushes a change of `field` of the node/link `index` (any index for the cluster's own fields) unless
    // it already has that value; index -1 (nothing shown) pushes nothing.
    template <class Object, class Value>
    void pushChange(int index, const Field<Object, Value>& field, const std::type_identity_t<Value>& value);

    void commitNodeName();
    void commitDeviceType();
    void commitClusterName();

    ClusterDocument* doc_;
    QUndoStack* undo_;
    std::vector<int> selNodes_, selLinks_;
    int node_ = -1, link_ = -1;

    QLabel* failedNote_ = nullptr;
    QLabel* title_;
    QLabel* error_;
    QWidget *clusterPage_, *nodePage_, *linkPage_, *multiPage_;
    // node page
    QLabel* nodeInfo_;
    QLineEdit* nodeName_;
    QComboBox* nodeType_;
    QSpinBox* nodeGpus_;
    QDoubleSpinBox *nodeIntra_, *nodeNic_, *nodePrice_;
    QComboBox* nodeComm_;
    // link page
    QLabel* linkEnds_;
    QDoubleSpinBox *linkBw_, *linkLat_;
    // cluster page
    QLineEdit* clusterName_;
    QLabel* clusterInfo_;
    QDoubleSpinBox *intraLat_, *interLat_, *cpuIntraBw_, *cpuInterBw_;
    // several items
    QLabel* multiInfo_;
};

} // namespace hetplan
