#pragma once
// The base of every cluster canvas step. It remembers which cluster it changed, by the name the cluster
// had before and after the step (a step may rename it), and brings that cluster onto the document before it
// is undone or redone, so a step still applies where it was made after the user looked at other clusters.
#include "widgets/models/cluster_document.h"

#include <QUndoCommand>

#include <string>

namespace hetplan {

class ClusterCommand : public QUndoCommand {
public:
    explicit ClusterCommand(ClusterDocument* doc, QUndoCommand* parent = nullptr)
        : QUndoCommand(parent), doc_(doc), before_(doc->cluster().name), after_(before_)
    {
    }

    void redo() final
    {
        doc_->bringTo(before_);
        apply();
        after_ = doc_->cluster().name;
        doc_->notifyEdited();
    }

    void undo() final
    {
        doc_->bringTo(after_);
        revert();
        doc_->notifyEdited();
    }

protected:
    virtual void apply() = 0;  // the change, on the document holding the step's cluster
    virtual void revert() = 0; // its inverse

    // For mergeWith(): `next` (pushed after this step) changed the cluster this step left, and once merged
    // this step ends where `next` ended.
    bool continuedBy(const ClusterCommand& next) const { return next.before_ == after_; }
    void absorb(const ClusterCommand& next) { after_ = next.after_; }

    ClusterDocument* doc_;

private:
    std::string before_, after_;
};

} // namespace hetplan
