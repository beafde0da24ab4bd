#pragma once
// Undo commands for explicit links and for the cluster's own fields.
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

enum class LinkField { Bandwidth, Latency };

// Replaces one link's bandwidth/latency; repeated edits of one field of one link merge.
class ChangeLinkPropertyCommand : public QUndoCommand {
public:
    ChangeLinkPropertyCommand(ClusterDocument* doc, int index, LinkField field, const Link& after,
                              QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    int id() const override { return ChangeLinkId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    ClusterDocument* doc_;
    int index_;
    LinkField field_;
    Link before_, after_;
};

enum class ClusterField { Name, Description, IntraLatency, InterLatency, CpuPathPenalty };

// Replaces the cluster-level fields; repeated numeric edits of one field merge.
class ChangeClusterPropertyCommand : public QUndoCommand {
public:
    ChangeClusterPropertyCommand(ClusterDocument* doc, ClusterField field, const ClusterProperties& after,
                                 QUndoCommand* parent = nullptr);
    void redo() override;
    void undo() override;
    int id() const override { return ChangeClusterId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    ClusterDocument* doc_;
    ClusterField field_;
    ClusterProperties before_, after_;
};

} // namespace hetplan
