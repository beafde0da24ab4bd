#include "link_commands.h"

#include "command_text.h"
#include "core/base/qstrings.h"

#include <QCoreApplication>

namespace hetplan {

// ---- AddLink ----------------------------------------------------------------------------------------

AddLinkCommand::AddLinkCommand(ClusterDocument* doc, const Link& link, QUndoCommand* parent)
    : ClusterCommand(doc, parent), link_(link), index_(doc->linkCount())
{
    setText(commandText("Link %1–%2").arg(toQString(link.a), toQString(link.b)));
}

void AddLinkCommand::apply() { doc_->insertLink(index_, link_); }

void AddLinkCommand::revert() { doc_->takeLink(index_); }

} // namespace hetplan
