#pragma once
// HAP's background theory (section 4.2): properties `e | I` of distributed tensors and Hoare triples
// {pre} instruction {post}, derived from the single-device program by rules.
//
// A property says how a distributed tensor relates to a reference tensor e of the single-device graph:
//   e | Identity      every device holds e              (written Form::identity())
//   e | All-Reduce    the devices' instances sum to e   (Form::partial(), a partial sum)
//   e | All-Gather(d) the instances are e's slices on d (Form::sharded(d))
//
// Rules (fig. 9 generalised through the ops' einsum labels, see tensor_graph.h):
//  - shard label L of an op: each input holding L must be sharded on L's dimension, the others replicated;
//    the output is sharded on L's dimension, or a partial sum if L is reduced away (fig. 9 rules 5-7);
//  - replicated compute: all inputs Identity → output Identity (section 4.4; enables sufficient factor
//    broadcasting: a gradient product on all-gathered factors instead of an all-reduced gradient);
//  - linear ops (Add): partial-sum inputs → partial-sum output;
//  - Placeholder-Shard(d) / Parameter-Shard(d) and their replicated forms: {∅} load {e | form};
//  - collectives (fig. 9 rules 1-4): All-Reduce {e|AR}→{e|Id}, Reduce-Scatter {e|AR}→{e|AG(d)},
//    All-To-All {e|AG(d1)}→{e|AG(d2)}, All-Gather (padded) and Grouped-Broadcast {e|AG(d)}→{e|Id}, and a
//    local Slice {e|Id}→{e|AG(d)}.
// Each rule also fixes the backward: the gradient of an input is sharded like the input when it holds the
// sharded label and a partial sum otherwise (replicated and linear rules give replicated gradients), and
// the gradient an op's output needs is the dual of its form (sharded → same, Identity or partial → Identity).
#include "tensor_graph.h"

#include "core/cost/spmd_costs.h"

#include <string>
#include <vector>

namespace hetplan::hap {

// A tensor's form: Identity (0), partial sum (1) or sharded on dimension d (2 + d).
struct Form {
    int code = 0;
    static Form identity() { return {0}; }
    static Form partial() { return {1}; }
    static Form sharded(int d) { return {2 + d}; }
    bool isIdentity() const { return code == 0; }
    bool isPartial() const { return code == 1; }
    bool isSharded() const { return code >= 2; }
    int dim() const { return code - 2; }
    bool operator==(const Form&) const = default;
    // The form the gradient of a tensor in this form takes in the backward pass.
    Form dual() const { return isPartial() ? identity() : *this; }
};
std::string toString(Form f); // "Identity", "All-Reduce", "All-Gather(1)"

// The label an op instance shards: a label character, kReplicated or kLinear.
constexpr char kReplicated = 0;
constexpr char kLinear = '+';

struct Rule {
    char label = kReplicated;
    std::vector<Form> in;   // required form of each input
    Form out;               // form of the output
    std::vector<Form> grad; // form of each input's gradient contribution
    bool scales = false;    // compute divides by the shard ratio (a sharded label that is not noScale)
};

// All rules that apply to forward or backward op `op` (never to leaves).
std::vector<Rule> rulesFor(const Op& op);
// The rule instance for `label` (kReplicated, kLinear or a label of the op); nullopt-like empty `in` if
// the label cannot be sharded.
bool ruleFor(const Op& op, char label, Rule& out);

// The collectives that turn form `from` into `to` (empty if none): two for Sharded → Identity (padded
// All-Gather and Grouped-Broadcast), one otherwise.
std::vector<SpmdCollective> conversions(Form from, Form to);

} // namespace hetplan::hap
