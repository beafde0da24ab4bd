#include "node_commands.h"

#include "command_text.h"
#include "core/base/qstrings.h"

#include "widgets/canvas/auto_layout.h"

#include <QCoreApplication>

#include <algorithm>

namespace hetplan {

// ---- AddNode ----------------------------------------------------------------------------------------

AddNodeCommand::AddNodeCommand(ClusterDocument* doc, const Node& node, QUndoCommand* parent)
    : ClusterCommand(doc, parent), node_(node), index_(doc->nodeCount())
{
    setText(commandText("Add node %1").arg(toQString(node.name)));
}

void AddNodeCommand::apply() { doc_->insertNode(index_, node_); }

void AddNodeCommand::revert() { doc_->takeNode(index_); }

// ---- RemoveItems ------------------------------------------------------------------------------------

RemoveItemsCommand::RemoveItemsCommand(ClusterDocument* doc, const std::vector<int>& nodes,
                                       const std::vector<int>& links, QUndoCommand* parent)
    : ClusterCommand(doc, parent)
{
    std::vector<int> ns(nodes), ls(links);
    for (int n : nodes) {
        const std::vector<int> touching = doc->linksOfNode(n);
        ls.insert(ls.end(), touching.begin(), touching.end());
    }
    for (std::vector<int>* v : {&ns, &ls}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    for (int n : ns)
        if (n >= 0 && n < doc->nodeCount())
            nodes_.emplace_back(n, doc->node(n));
    for (int l : ls)
        if (l >= 0 && l < doc->linkCount())
            links_.emplace_back(l, doc->link(l));
    if (nodes_.size() == 1 && links_.empty())
        setText(commandText("Delete node %1").arg(toQString(nodes_.front().second.name)));
    else if (nodes_.empty() && links_.size() == 1)
        setText(commandText("Delete link %1–%2").arg(toQString(links_.front().second.a), toQString(links_.front().second.b)));
    else
        setText(commandText("Delete %1 node(s) and %2 link(s)").arg(nodes_.size()).arg(links_.size()));
}

void RemoveItemsCommand::apply()
{
    // Descending order keeps the smaller recorded indices valid while removing.
    for (auto it = links_.rbegin(); it != links_.rend(); ++it)
        doc_->takeLink(it->first);
    for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it)
        doc_->takeNode(it->first);
}

void RemoveItemsCommand::revert()
{
    // Ascending re-insertion puts each item back at its original index.
    for (const auto& [i, n] : nodes_)
        doc_->insertNode(i, n);
    for (const auto& [i, l] : links_)
        doc_->insertLink(i, l);
}

// ---- MoveNodes / AutoLayout -------------------------------------------------------------------------

MoveNodesCommand::MoveNodesCommand(ClusterDocument* doc, std::vector<int> nodes, std::vector<QPointF> newPos,
                                   QUndoCommand* parent)
    : ClusterCommand(doc, parent), nodes_(std::move(nodes)), newPos_(std::move(newPos))
{
    newPos_.resize(nodes_.size());
    for (int n : nodes_)
        oldPos_.emplace_back(doc->node(n).x, doc->node(n).y);
    setText(nodes_.size() == 1 ? commandText("Move %1").arg(toQString(doc->node(nodes_.front()).name))
                               : commandText("Move %1 nodes").arg(nodes_.size()));
}

void MoveNodesCommand::apply()
{
    for (size_t i = 0; i < nodes_.size(); ++i)
        doc_->setNodePos(nodes_[i], newPos_[i]);
}

void MoveNodesCommand::revert()
{
    for (size_t i = 0; i < nodes_.size(); ++i)
        doc_->setNodePos(nodes_[i], oldPos_[i]);
}

bool MoveNodesCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = static_cast<const MoveNodesCommand*>(other);
    if (o->nodes_ != nodes_ || !continuedBy(*o))
        return false;
    newPos_ = o->newPos_;
    absorb(*o);
    setObsolete(newPos_ == oldPos_); // dragged back to where it started: nothing to undo
    return true;
}

static std::vector<int> allNodes(const ClusterDocument* doc)
{
    std::vector<int> v(size_t(doc->nodeCount()));
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = int(i);
    return v;
}

AutoLayoutCommand::AutoLayoutCommand(ClusterDocument* doc, QUndoCommand* parent)
    : MoveNodesCommand(doc, allNodes(doc), autoLayoutPositions(doc->cluster()), parent)
{
    setText(commandText("Auto-layout"));
}

} // namespace hetplan
