#pragma once
// What sets the iteration time of a simulated timeline: the chain of events from the start to the event
// that ends last (its critical path), and the stretches where a GPU does nothing (its idle gaps).
#include "simulator.h"

#include <map>
#include <vector>

namespace hetplan {

struct CriticalPath {
    std::vector<int> chain;    // indices into SimResult::events, earliest first; empty without events
    std::vector<char> onPath;  // per event: on the chain, or a simultaneous copy of a chain event on another
                               // GPU of the same group (a data/tensor-parallel twin, another collective member)
};

// Walks back from the event that ends last. Each step goes to the dependency that finished last: the
// event's own GPU's latest earlier event, the event it waited on (TimelineEvent::waitedOn: a pipeline send
// or the neighbour stage's compute), and for a collective also its members' latest earlier events (a
// collective starts when its last member is ready). Ties keep the chain on the current GPU. Needs the
// timeline (SimOptions::timeline).
CriticalPath criticalPath(const SimResult& result);

struct IdleGap {
    double start = 0, end = 0; // seconds
};

// Per GPU with events: the intervals inside [0, iterationSeconds] where none of its events (compute or
// communication) runs, in time order. Gaps shorter than a millionth of the iteration are rounding and left
// out.
std::map<int, std::vector<IdleGap>> idleGaps(const SimResult& result);

} // namespace hetplan
