#include "link_commands.h"

#include <QCoreApplication>

namespace hetplan {

namespace {
QString tr(const char* s) { return QCoreApplication::translate("ClusterCommands", s); }
QString qs(const std::string& s) { return QString::fromStdString(s); }
} // namespace

// ---- AddLink ----------------------------------------------------------------------------------------

AddLinkCommand::AddLinkCommand(ClusterDocument* doc, const Link& link, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), link_(link), index_(doc->linkCount())
{
    setText(tr("Link %1–%2").arg(qs(link.a), qs(link.b)));
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

// ---- ChangeLinkProperty -----------------------------------------------------------------------------

ChangeLinkPropertyCommand::ChangeLinkPropertyCommand(ClusterDocument* doc, int index, LinkField field,
                                                     const Link& after, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), index_(index), field_(field), before_(doc->link(index)), after_(after)
{
    // The endpoints are not editable here (renaming a node renames them through the node command).
    after_.a = before_.a;
    after_.b = before_.b;
    const QString ends = qs(before_.a) + QStringLiteral("–") + qs(before_.b);
    setText(field == LinkField::Bandwidth ? tr("Change bandwidth of link %1").arg(ends)
                                          : tr("Change latency of link %1").arg(ends));
}

void ChangeLinkPropertyCommand::redo()
{
    doc_->replaceLink(index_, after_);
    doc_->notifyEdited();
}

void ChangeLinkPropertyCommand::undo()
{
    doc_->replaceLink(index_, before_);
    doc_->notifyEdited();
}

bool ChangeLinkPropertyCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = static_cast<const ChangeLinkPropertyCommand*>(other);
    if (o->index_ != index_ || o->field_ != field_)
        return false;
    after_ = o->after_;
    setObsolete(after_ == before_);
    return true;
}

// ---- ChangeClusterProperty --------------------------------------------------------------------------

ChangeClusterPropertyCommand::ChangeClusterPropertyCommand(ClusterDocument* doc, ClusterField field,
                                                           const ClusterProperties& after, QUndoCommand* parent)
    : QUndoCommand(parent), doc_(doc), field_(field), before_(doc->properties()), after_(after)
{
    switch (field) {
    case ClusterField::Name: setText(tr("Rename cluster to %1").arg(qs(after.name))); break;
    case ClusterField::Description: setText(tr("Change cluster description")); break;
    case ClusterField::IntraLatency: setText(tr("Change intra-node latency")); break;
    case ClusterField::InterLatency: setText(tr("Change inter-node latency")); break;
    case ClusterField::CpuPathPenalty: setText(tr("Change CPU path penalty")); break;
    }
}

void ChangeClusterPropertyCommand::redo()
{
    doc_->setProperties(after_);
    doc_->notifyEdited();
}

void ChangeClusterPropertyCommand::undo()
{
    doc_->setProperties(before_);
    doc_->notifyEdited();
}

bool ChangeClusterPropertyCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = static_cast<const ChangeClusterPropertyCommand*>(other);
    const bool text = field_ == ClusterField::Name || field_ == ClusterField::Description;
    if (text || o->field_ != field_)
        return false;
    after_ = o->after_;
    setObsolete(after_ == before_);
    return true;
}

} // namespace hetplan
