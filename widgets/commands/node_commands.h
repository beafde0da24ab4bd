#pragma once
// Undo commands for node edits on a ClusterDocument (one QUndoCommand per kind of edit, in the style of
// Qt's undoframework example and Tiled). Each captures the "before" state from the document when it is
// constructed, so push() right after construction is the expected use.
#include "widgets/canvas/cluster_document.h"

#include <QPointF>
#include <QUndoCommand>

#include <utility>
#include <vector>

namespace hetplan {

// Ids for QUndoCommand::id(): commands with the same id may merge with the previous command.
enum CommandId { MoveNodesId = 1, ChangeNodeId, ChangeLinkId, ChangeClusterId };

class AddNodeCommand : public QUndoCommand {
public:
    AddNodeCommand(ClusterDocument* doc, const Node& node, QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    int index() const { return index_; }

private:
    ClusterDocument* doc_;
    Node node_;
    int index_;
};

// Deletes nodes and links; a node takes every link touching it along, and undo restores all of them
// at their original positions in the lists.
class RemoveItemsCommand : public QUndoCommand {
public:
    RemoveItemsCommand(ClusterDocument* doc, const std::vector<int>& nodes, const std::vector<int>& links,
                       QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    bool isEmpty() const { return nodes_.empty() && links_.empty(); }

private:
    ClusterDocument* doc_;
    std::vector<std::pair<int, Node>> nodes_; // ascending index
    std::vector<std::pair<int, Link>> links_; // ascending index
};

// Moves nodes to new canvas positions. Consecutive moves of the same set of nodes merge into one step.
class MoveNodesCommand : public QUndoCommand {
public:
    MoveNodesCommand(ClusterDocument* doc, std::vector<int> nodes, std::vector<QPointF> newPos,
                     QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    int id() const override { return MoveNodesId; }
    bool mergeWith(const QUndoCommand* other) override;
    bool changesSomething() const { return oldPos_ != newPos_; }

protected:
    ClusterDocument* doc_;
    std::vector<int> nodes_;
    std::vector<QPointF> oldPos_, newPos_;
};

// Places every node on the grid computed by autoLayoutPositions(); never merges.
class AutoLayoutCommand : public MoveNodesCommand {
public:
    explicit AutoLayoutCommand(ClusterDocument* doc, QUndoCommand* parent = nullptr);
    int id() const override { return -1; }
};

enum class NodeField { Name, DeviceType, Gpus, IntraBandwidth, NicBandwidth, Communicator };

// Replaces one node's fields (the name, type, counts, bandwidths, communicator). `field` names what
// changed, for the command text and merging: repeated numeric edits of one field of one node (spin-box
// clicks) merge into one step.
class ChangeNodePropertyCommand : public QUndoCommand {
public:
    ChangeNodePropertyCommand(ClusterDocument* doc, int index, NodeField field, const Node& after,
                              QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    int id() const override { return ChangeNodeId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    ClusterDocument* doc_;
    int index_;
    NodeField field_;
    Node before_, after_;
};

} // namespace hetplan
