#pragma once
// Changing one field of one node, one link or the cluster itself: a single command template in the style
// of Tiled's ChangeValue<Object, Value>. A Field says how to read and write the value (getter/setter), what
// the undo step is called and under which id its edits merge. Consecutive edits of the same field of the
// same object merge into one step (spin-box clicks); a merge that lands back on the starting value leaves
// no step at all.
#include "cluster_command.h"
#include "command_ids.h"

#include <QUndoCommand>

#include <string>
#include <type_traits>
#include <utility>

namespace hetplan {

template <class Object, class Value>
struct Field {
    int id = kNeverMerges; // a CommandId of its own, or kNeverMerges (renames, choices)
    Value (*get)(const Object&) = nullptr;
    void (*set)(Object&, const Value&) = nullptr;
    const char* text = ""; // the step's name: %1 = the object's name, %2 = the new value
};

namespace detail {
template <class M>
struct MemberOf;
template <class O, class V>
struct MemberOf<V O::*> {
    using Object = O;
    using Value = V;
};
} // namespace detail

// The Field of a plain data member, e.g. memberField<&Node::gpus>(NodeGpusId, "Change GPU count of %1").
template <auto Member>
constexpr auto memberField(int id, const char* text)
{
    using Object = typename detail::MemberOf<decltype(Member)>::Object;
    using Value = typename detail::MemberOf<decltype(Member)>::Value;
    return Field<Object, Value>{id, [](const Object& o) { return o.*Member; },
                                [](Object& o, const Value& v) { o.*Member = v; }, text};
}

// Where an Object lives in a ClusterDocument: read and written by index (the cluster's own fields ignore
// it), and how the step's text names it.
template <class Object>
struct ClusterSlot;

template <>
struct ClusterSlot<Node> {
    static Node read(const ClusterDocument& d, int i) { return d.node(i); }
    static void write(ClusterDocument& d, int i, const Node& n) { d.replaceNode(i, n); }
    static QString name(const Node& n) { return QString::fromStdString(n.name); }
};

template <>
struct ClusterSlot<Link> {
    static Link read(const ClusterDocument& d, int i) { return d.link(i); }
    static void write(ClusterDocument& d, int i, const Link& l) { d.replaceLink(i, l); }
    static QString name(const Link& l) { return QString::fromStdString(l.a + "–" + l.b); }
};

template <>
struct ClusterSlot<ClusterProperties> {
    static ClusterProperties read(const ClusterDocument& d, int) { return d.properties(); }
    static void write(ClusterDocument& d, int, const ClusterProperties& p) { d.setProperties(p); }
    static QString name(const ClusterProperties& p) { return QString::fromStdString(p.name); }
};

// The translated step text with %1 and %2 filled in (either may be absent from the format).
QString stepText(const char* format, const QString& objectName, const QString& value);

template <class Value>
QString valueText(const Value& v)
{
    if constexpr (std::is_same_v<Value, std::string>)
        return QString::fromStdString(v);
    else
        return QString(); // only names appear in step texts
}

template <class Object, class Value>
class ChangeValue : public ClusterCommand {
    using Slot = ClusterSlot<Object>;

public:
    ChangeValue(ClusterDocument* doc, int index, const Field<Object, Value>& field, Value value,
                QUndoCommand* parent = nullptr)
        : ClusterCommand(doc, parent),
          index_(index),
          field_(field),
          before_(field.get(Slot::read(*doc, index))),
          after_(std::move(value))
    {
        setText(stepText(field.text, Slot::name(Slot::read(*doc, index)), valueText(after_)));
    }

    int id() const override { return field_.id; }

    bool mergeWith(const QUndoCommand* other) override
    {
        // Equal ids mean the same field, hence the same Object and Value: the cast is safe.
        const auto* o = static_cast<const ChangeValue*>(other);
        if (o->index_ != index_ || !continuedBy(*o))
            return false;
        after_ = o->after_;
        absorb(*o);
        setObsolete(after_ == before_);
        return true;
    }

private:
    void apply() override { put(after_); }
    void revert() override { put(before_); }

    void put(const Value& v)
    {
        Object o = Slot::read(*doc_, index_);
        field_.set(o, v);
        Slot::write(*doc_, index_, o);
    }

    int index_;
    Field<Object, Value> field_;
    Value before_, after_;
};

// Deduces the command's types from the field: changeValue(doc, 0, nodeField::gpus, 8).
template <class Object, class Value>
ChangeValue<Object, Value>* changeValue(ClusterDocument* doc, int index, const Field<Object, Value>& field,
                                        std::type_identity_t<Value> value)
{
    return new ChangeValue<Object, Value>(doc, index, field, std::move(value));
}

} // namespace hetplan
