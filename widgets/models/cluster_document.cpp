#include "cluster_document.h"

#include "core/base/names.h"

#include <QRegularExpression>

#include <cctype>

namespace hetplan {

namespace {
// Removes and returns items[index] (nodes and links alike); an index out of range throws.
template <typename T>
T takeAt(std::vector<T>& items, int index)
{
    T item = items.at(size_t(index));
    items.erase(items.begin() + index);
    return item;
}
} // namespace

ClusterDocument::ClusterDocument(QObject* parent) : QObject(parent) {}

ClusterProperties ClusterDocument::properties() const
{
    return {cluster_.name,         cluster_.description,       cluster_.intraLatency,
            cluster_.interLatency, cluster_.cpuIntraBandwidth, cluster_.cpuInterBandwidth};
}

void ClusterDocument::setCluster(const Cluster& c)
{
    cluster_ = c;
    emit reset();
}

void ClusterDocument::bringTo(const std::string& name)
{
    if (name != cluster_.name && navigate_)
        navigate_(name);
    // Names are unique in a project and one linear history restores each before the steps that use it.
    Q_ASSERT(!navigate_ || cluster_.name == name);
}

void ClusterDocument::insertNode(int index, const Node& n)
{
    cluster_.nodes.insert(cluster_.nodes.begin() + index, n);
    emit nodeInserted(index);
}

Node ClusterDocument::takeNode(int index)
{
    Node n = takeAt(cluster_.nodes, index);
    emit nodeRemoved(index);
    return n;
}

void ClusterDocument::replaceNode(int index, const Node& n)
{
    Node& cur = cluster_.nodes.at(size_t(index));
    const std::string oldName = cur.name;
    cur = n;
    std::vector<int> renamed;
    if (oldName != n.name) {
        for (size_t i = 0; i < cluster_.links.size(); ++i) {
            Link& l = cluster_.links[i];
            bool hit = false;
            if (l.a == oldName) {
                l.a = n.name;
                hit = true;
            }
            if (l.b == oldName) {
                l.b = n.name;
                hit = true;
            }
            if (hit)
                renamed.push_back(int(i));
        }
    }
    emit nodeChanged(index);
    for (int li : renamed)
        emit linkChanged(li);
}

void ClusterDocument::setNodePos(int index, QPointF pos)
{
    Node& n = cluster_.nodes.at(size_t(index));
    if (n.x == pos.x() && n.y == pos.y())
        return;
    n.x = pos.x();
    n.y = pos.y();
    emit nodeMoved(index);
}

void ClusterDocument::insertLink(int index, const Link& l)
{
    cluster_.links.insert(cluster_.links.begin() + index, l);
    emit linkInserted(index);
}

Link ClusterDocument::takeLink(int index)
{
    Link l = takeAt(cluster_.links, index);
    emit linkRemoved(index);
    return l;
}

void ClusterDocument::replaceLink(int index, const Link& l)
{
    cluster_.links.at(size_t(index)) = l;
    emit linkChanged(index);
}

void ClusterDocument::setProperties(const ClusterProperties& p)
{
    cluster_.name = p.name;
    cluster_.description = p.description;
    cluster_.intraLatency = p.intraLatency;
    cluster_.interLatency = p.interLatency;
    cluster_.cpuIntraBandwidth = p.cpuIntraBandwidth;
    cluster_.cpuInterBandwidth = p.cpuInterBandwidth;
    emit propertiesChanged();
}

std::vector<int> ClusterDocument::linksOfNode(int index) const
{
    std::vector<int> out;
    const std::string& name = node(index).name;
    for (size_t i = 0; i < cluster_.links.size(); ++i)
        if (cluster_.links[i].a == name || cluster_.links[i].b == name)
            out.push_back(int(i));
    return out;
}

int ClusterDocument::findLink(const std::string& a, const std::string& b) const
{
    for (size_t i = 0; i < cluster_.links.size(); ++i) {
        const Link& l = cluster_.links[i];
        if ((l.a == a && l.b == b) || (l.a == b && l.b == a))
            return int(i);
    }
    return -1;
}

int ClusterDocument::findNode(const std::string& name) const
{
    for (size_t i = 0; i < cluster_.nodes.size(); ++i)
        if (cluster_.nodes[i].name == name)
            return int(i);
    return -1;
}

QString ClusterDocument::checkClusterName(const QString& name) const
{
    if (name.trimmed().isEmpty())
        return tr("The cluster name must not be empty.");
    if (name.toStdString() != cluster_.name && nameTaken_ && nameTaken_(name.toStdString()))
        return tr("Another cluster is already called '%1'.").arg(name);
    return {};
}

QString ClusterDocument::checkNodeName(int index, const QString& name) const
{
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty())
        return tr("A node name must not be empty.");
    if (trimmed != name)
        return tr("A node name must not start or end with spaces.");
    // The node name is the host name in hostfiles and launch scripts: the engine's rule, in its words.
    if (const std::string why = plainNameProblem(name.toStdString()); !why.empty())
        return tr("A node name is a host name: it %1.").arg(QString::fromStdString(why));
    const int other = findNode(name.toStdString());
    if (other >= 0 && other != index)
        return tr("Another node is already called '%1'.").arg(name);
    return {};
}

std::string nodeNameStem(const std::string& deviceType)
{
    static const QRegularExpression memory(QStringLiteral("^\\d+(gb|gib|g)$"));
    QString stem;
    const QStringList parts = QString::fromStdString(deviceType)
                                  .toLower()
                                  .split(QRegularExpression(QStringLiteral("[^a-z0-9]+")), Qt::SkipEmptyParts);
    for (const QString& p : parts)
        if (!memory.match(p).hasMatch())
            stem += p;
    return stem.isEmpty() ? std::string("node") : stem.toStdString();
}

std::string ClusterDocument::uniqueNodeName(const std::string& deviceType) const
{
    const std::string stem = nodeNameStem(deviceType);
    for (int k = 0;; ++k) {
        std::string candidate = stem + "-" + std::to_string(k);
        if (findNode(candidate) < 0)
            return candidate;
    }
}

std::string ClusterDocument::nameForNewType(int index, const std::string& deviceType) const
{
    const Node& n = node(index);
    const std::string oldStem = nodeNameStem(n.deviceType), newStem = nodeNameStem(deviceType);
    static const QRegularExpression number(QStringLiteral("^\\d+$"));
    const std::string prefix = oldStem + "-";
    if (oldStem == newStem || n.name.rfind(prefix, 0) != 0 ||
        !number.match(QString::fromStdString(n.name.substr(prefix.size()))).hasMatch())
        return {};
    const std::string sameNumber = newStem + n.name.substr(oldStem.size());
    return findNode(sameNumber) < 0 ? sameNumber : uniqueNodeName(deviceType);
}

} // namespace hetplan
