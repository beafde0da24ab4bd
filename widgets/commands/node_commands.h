#pragma once
// Undo commands for adding, removing and moving nodes on a ClusterDocument (one QUndoCommand per kind of
// edit, in the style of Qt's undoframework example and Tiled; field edits are ChangeValue, in
// change_value.h). Each captures the "before" state from the document when it is constructed, so push()
// right after construction is the expected use.
#include "cluster_command.h"
#include "command_ids.h"

#include <QPointF>

#include <utility>
#include <vector>

namespace hetplan {

class AddNodeCommand : public ClusterCommand {
public:
    AddNodeCommand(ClusterDocument* doc, const Node& node, QUndoCommand* parent = nullptr);
    int index() const { return index_; }

private:
    void apply() override;
    void revert() override;

    Node node_;
    int index_;
};

// Deletes nodes and links; a node takes every link touching it along, and undo restores all of them
// at their original positions in the lists.
class RemoveItemsCommand : public ClusterCommand {
public:
    RemoveItemsCommand(ClusterDocument* doc, const std::vector<int>& nodes, const std::vector<int>& links,
                       QUndoCommand* parent = nullptr);
    bool isEmpty() const { return nodes_.empty() && links_.empty(); }

private:
    void apply() override;
    void revert() override;

    std::vector<std::pair<int, Node>> nodes_; // ascending index
    std::vector<std::pair<int, Link>> links_; // ascending index
};

// Moves nodes to new canvas positions. Consecutive moves of the same set of nodes merge into one step.
class MoveNodesCommand : public ClusterCommand {
public:
    MoveNodesCommand(ClusterDocument* doc, std::vector<int> nodes, std::vector<QPointF> newPos,
                     QUndoCommand* parent = nullptr);
    int id() const override { return MoveNodesId; }
    bool mergeWith(const QUndoCommand* other) override;
    bool changesSomething() const { return oldPos_ != newPos_; }

private:
    void apply() override;
    void revert() override;

    std::vector<int> nodes_;
    std::vector<QPointF> oldPos_, newPos_;
};

// Places every node on the grid computed by autoLayoutPositions(); never merges.
class AutoLayoutCommand : public MoveNodesCommand {
public:
    explicit AutoLayoutCommand(ClusterDocument* doc, QUndoCommand* parent = nullptr);
    int id() const override { return kNeverMerges; }
};

} // namespace hetplan
