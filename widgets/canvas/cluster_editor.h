#pragma once
// The cluster canvas editor: device palette + graphics view of a ClusterDocument, a small tool bar,
// and a property panel widget the main window docks. All edits are undo commands pushed onto a stack the
// editor is given and does not own: in the app, the project document's one undo stack.
#include "core/model/cluster.h"

#include <QPointF>
#include <QPointer>
#include <QWidget>

#include <vector>

class QAction;
class QMenu;
class QUndoStack;
class QToolBar;

namespace hetplan {

class ClusterDocument;
class ClusterScene;
class ClusterView;
class DevicePalette;
class PropertyPanel;

class ClusterEditor : public QWidget {
    Q_OBJECT
public:
    // Edits `document` (the project document's, in the app), or a document of its own when that is null.
    // `undoStack` and `document` must outlive the editor.
    ClusterEditor(ClusterDocument* document, QUndoStack* undoStack, QWidget* parent = nullptr);
    explicit ClusterEditor(QUndoStack* undoStack, QWidget* parent = nullptr)
        : ClusterEditor(nullptr, undoStack, parent)
    {
    }
    ~ClusterEditor() override;

    // Replaces the document's content (emits neither clusterChanged nor an undo step).
    void setCluster(const Cluster& cluster);
    Cluster cluster() const; // current state, canvas positions included
    QUndoStack* undoStack() const { return undo_; }
    // The node/link/cluster editor for the main window's dock. Owned by the editor: deleted with it
    // even after the dock has adopted it.
    QWidget* propertyPanel() const;

    // Edits (each one undo step). Return false when there was nothing to do.
    bool addNode(const QString& deviceType, int gpus, QPointF center);
    bool addNodeAtFreeSpot(const QString& deviceType, int gpus);
    bool addLink(int fromNode, int toNode);
    bool deleteSelection();
    void autoLayout();
    // Marks a node failed or healthy again (one undo step, "Mark <node> failed" / "... healthy"); false when
    // the index is out of range or the node is already in that state. Planning leaves failed nodes out.
    bool setNodeFailed(int node, bool failed);
    // The node's context menu ("Mark failed" or "Mark healthy", "Delete"), owned by `parent`.
    QMenu* nodeMenu(int node, QWidget* parent);

    void zoomIn();
    void zoomOut();
    void zoomToFit();

    std::vector<int> selectedNodes() const;
    std::vector<int> selectedLinks() const;
    void selectItems(const std::vector<int>& nodes, const std::vector<int>& links = {});

    // For tests and the main window's wiring.
    ClusterDocument* document() const { return doc_; }
    ClusterScene* scene() const { return scene_; }
    ClusterView* view() const { return view_; }
    DevicePalette* palette() const { return palette_; }
    PropertyPanel* panel() const; // out of line: QPointer needs the complete type, which this header lacks
    QToolBar* toolBar() const { return toolBar_; }

signals:
    void clusterChanged(); // after every edit, undo or redo
    void selectionChanged();

protected:
    void showEvent(QShowEvent* e) override;

private:
    void buildToolBar();
    void updatePanel();
    void onNodesDragged(const std::vector<int>& nodes, const std::vector<QPointF>& newPos);

    ClusterDocument* doc_;
    QUndoStack* undo_;
    ClusterScene* scene_;
    ClusterView* view_;
    DevicePalette* palette_;
    QPointer<PropertyPanel> panel_;
    QToolBar* toolBar_;
    QAction* deleteAction_ = nullptr;
    bool fitPending_ = true;
};

} // namespace hetplan
