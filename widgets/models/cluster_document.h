#pragma once
// The model behind the cluster canvas: one Cluster plus fine-grained change signals. Undo commands
// (widgets/commands/) mutate only this object; the scene and the property panel follow its signals.
// That keeps undo/redo testable without any view.
//
// In the app the project document owns one ClusterDocument that always holds its current cluster, and
// writes every edit back into the project. A command addresses its cluster by name and its nodes and links
// by index: with one linear undo history the project is, when a step is undone, exactly as that step left
// it, so both stay valid however often the user looked at other clusters in between. Before a step is
// undone or redone, bringTo() makes its cluster the shown one.
#include "core/model/cluster.h"

#include <QObject>
#include <QPointF>
#include <QString>

#include <functional>
#include <vector>

namespace hetplan {

// The cluster-level fields the "nothing selected" page of the property panel edits.
struct ClusterProperties {
    std::string name;
    std::string description;
    double intraLatency = 0;      // seconds
    double interLatency = 0;      // seconds
    double cpuIntraBandwidth = 0; // bytes/s, CPU communicator path inside a node
    double cpuInterBandwidth = 0; // bytes/s, CPU communicator path between nodes
    bool operator==(const ClusterProperties&) const = default;
};

class ClusterDocument : public QObject {
    Q_OBJECT
public:
    explicit ClusterDocument(QObject* parent = nullptr);

    const Cluster& cluster() const { return cluster_; }
    int nodeCount() const { return int(cluster_.nodes.size()); }
    int linkCount() const { return int(cluster_.links.size()); }
    const Node& node(int i) const { return cluster_.nodes.at(size_t(i)); }
    const Link& link(int i) const { return cluster_.links.at(size_t(i)); }
    ClusterProperties properties() const;

    // Replaces everything (not undoable). Emits reset().
    void setCluster(const Cluster& c);
    // Makes the cluster called `name` the one this document holds, through the navigator the owner set
    // (the project document: showing another cluster is navigation, not an edit). Without a navigator, or
    // when that cluster is held already, nothing happens: a document used alone has its one cluster.
    void bringTo(const std::string& name);
    void setNavigator(std::function<void(const std::string&)> navigate) { navigate_ = std::move(navigate); }
    // Whether another cluster of the owner's is called `name` (cluster names are how steps find theirs).
    void setNameTaken(std::function<bool(const std::string&)> taken) { nameTaken_ = std::move(taken); }

    // Mutators used by the undo commands. Each emits its fine-grained signal.
    void insertNode(int index, const Node& n);
    Node takeNode(int index);                   // caller removes the node's links first
    void replaceNode(int index, const Node& n); // a rename also renames the node in its links
    void setNodePos(int index, QPointF pos);
    void insertLink(int index, const Link& l);
    Link takeLink(int index);
    void replaceLink(int index, const Link& l);
    void setProperties(const ClusterProperties& p);
    // Called once at the end of every command's redo()/undo(): one edited() per user-visible step.
    void notifyEdited() { emit edited(); }

    // Queries used by the editor and the commands.
    std::vector<int> linksOfNode(int index) const;                  // ascending link indices touching the node
    int findLink(const std::string& a, const std::string& b) const; // either direction, -1 if none
    int findNode(const std::string& name) const;                    // -1 if none
    // Empty if `name` is acceptable for node `index` (-1 = a new node), else the reason it is not.
    QString checkNodeName(int index, const QString& name) const;
    // Likewise for the cluster's own name (not empty, not another cluster's).
    QString checkClusterName(const QString& name) const;
    // "a100-0", "a100-1", ...: the first free name derived from the device type.
    std::string uniqueNodeName(const std::string& deviceType) const;
    // The name node `index` takes when its type becomes `deviceType`, so default names follow the type:
    // "a100-3" → "h100-3" (the first free "h100-k" when that is taken). Empty when the name is not the
    // default pattern "<stem of its type>-<k>" (the user named it) or the stem stays the same.
    std::string nameForNewType(int index, const std::string& deviceType) const;

signals:
    void reset();
    void nodeInserted(int index);
    void nodeRemoved(int index);
    void nodeChanged(int index);
    void nodeMoved(int index);
    void linkInserted(int index);
    void linkRemoved(int index);
    void linkChanged(int index);
    void propertiesChanged();
    void edited();

private:
    Cluster cluster_;
    std::function<void(const std::string&)> navigate_;
    std::function<bool(const std::string&)> nameTaken_;
};

// Lower-case stem of a node name for a device type: memory sizes are dropped and the remaining parts
// joined ("A100-40GB" -> "a100", "RTX-3090" -> "rtx3090").
std::string nodeNameStem(const std::string& deviceType);

} // namespace hetplan
