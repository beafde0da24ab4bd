#include "link_commands.h"

#include "command_text.h"
#include "core/base/qstrings.h"

#include <QCoreApplication>

namespace hetplan {

// ---- AddLink ----------------------------------------------------------------------------------------

AddLinkCommand::AddLinkCommand(ClusterDocument* doc, const Link& link, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), link_(link), index_(doc->linkCount())
{
    setText(commandText("Link %1–%2").arg(qs(link.a), qs(link.b)));
}

void AddLinkCommand::redo()
{
    doc_->insertLink(index_, link_);
    doc_->notifyEdited();
}

void AddLinkCommand::undo()
{
    doc_->takeLink(index_);
    doc_->notifyEdited();
}

} // namespace hetplan
