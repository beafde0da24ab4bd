#pragma once
// The undo command that adds an explicit link (removal is RemoveItemsCommand, edits are ChangeValue).
#include "node_commands.h"

namespace hetplan {

class AddLinkCommand : public QUndoCommand {
public:
    AddLinkCommand(ClusterDocument* doc, const Link& link, QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    int index() const { return index_; }

private:
    ClusterDocument* doc_;
    Link link_;
    int index_;
};

} // namespace hetplan
