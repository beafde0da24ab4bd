#pragma once
// The undo command that adds an explicit link (removal is RemoveItemsCommand, edits are ChangeValue).
#include "node_commands.h"

namespace hetplan {

class AddLinkCommand : public ClusterCommand {
public:
    AddLinkCommand(ClusterDocument* doc, const Link& link, QUndoCommand* parent = nullptr);
    int index() const { return index_; }

private:
    void apply() override;
    void revert() override;

    Link link_;
    int index_;
};

} // namespace hetplan
