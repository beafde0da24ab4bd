#pragma once
// The project's undo commands. PutItemCommand: a named item (cluster, model, job) put in place (added or
// replaced) and/or made current — job edits, model choices, profile imports and new clusters are these;
// undo puts back what was there (removing an item the step added) and the previous selection.
// ItemsCommand: renaming, duplicating or deleting items (the project tree's menu) — both states whole.
// RemoveRunCommand / RemoveResultCommand: a run, or one result of it, deleted; undo puts it back in place.
#include "project_document.h"
#include "widgets/commands/command_ids.h"

#include <QUndoCommand>

#include <utility>

namespace hetplan {

inline const std::string& itemName(const Cluster& c) { return c.name; }
inline const std::string& itemName(const ProjectModel& m) { return m.model.name; }
inline const std::string& itemName(const NamedJob& j) { return j.name; }

// Which fields of a job an edit changed, one bit each: consecutive edits of the same field merge (clicks on
// the global-batch spin box) while an edit of another field starts a new step. Other items never merge.
unsigned editedFields(const NamedJob& before, const NamedJob& after);
template <class Item>
unsigned editedFields(const Item&, const Item&)
{
    return 0;
}

template <class Item>
class PutItemCommand : public QUndoCommand {
public:
    // `after`: what the item called `name` becomes (nullopt: it stays as it is); `makeCurrent`: select it.
    PutItemCommand(ProjectDocument* doc, const QString& text, std::string name, std::optional<Item> after,
                   bool makeCurrent)
        : doc_(doc),
          name_(std::move(name)),
          after_(std::move(after)),
          makeCurrent_(makeCurrent),
          previous_(doc->current(tag()))
    {
        setText(text);
        if (const Item* existing = doc->find<Item>(name_))
            before_ = *existing;
        if (before_ && after_)
            fields_ = editedFields(*before_, *after_);
    }

    void redo() override { apply(after_, name_); }
    void undo() override { apply(before_, previous_); }
    // Only job edits have fields (editedFields), so EditJobId is never shared with another Item type.
    int id() const override { return fields_ ? EditJobId : kNeverMerges; }

    bool mergeWith(const QUndoCommand* other) override
    {
        const auto* o = static_cast<const PutItemCommand*>(other);
        if (o->name_ != name_ || o->fields_ != fields_)
            return false;
        after_ = o->after_;
        setObsolete(after_ == before_ && previous_ == name_);
        return true;
    }

private:
    static Item* tag() { return nullptr; }

    void apply(const std::optional<Item>& item, const std::string& current)
    {
        if (after_)
            doc_->put<Item>(name_, item);
        const bool moved = makeCurrent_ && doc_->select(doc_->current(tag()), current);
        doc_->emitChanges(after_.has_value(), moved);
    }

    ProjectDocument* doc_;
    std::string name_;
    std::optional<Item> before_, after_;
    bool makeCurrent_;
    std::string previous_; // the current item's name before the step
    unsigned fields_ = 0;
};

// The item lists and current names before and after a step (they are small: a few clusters, models, jobs).
class ItemsCommand : public QUndoCommand {
public:
    ItemsCommand(ProjectDocument* doc, const QString& text, ItemsState before, ItemsState after);
    void redo() override;
    void undo() override;

private:
    ProjectDocument* doc_;
    ItemsState before_, after_;
};

// Runs are addressed by id, results by (run id, index): other runs may be added while the step is on the
// stack, so these put back only what they took.
class RemoveRunCommand : public QUndoCommand {
public:
    RemoveRunCommand(ProjectDocument* doc, size_t position);
    void redo() override;
    void undo() override;

private:
    ProjectDocument* doc_;
    size_t position_;
    Run run_;
    std::optional<PlanRef> plan_; // the current plan before the step
};

class RemoveResultCommand : public QUndoCommand {
public:
    RemoveResultCommand(ProjectDocument* doc, int runId, int result);
    void redo() override;
    void undo() override;

private:
    Run* run() const;
    ProjectDocument* doc_;
    int runId_, index_;
    RunResult result_;
    std::optional<PlanRef> plan_;
};

} // namespace hetplan
