#pragma once
// Small hand-made clusters shared by the canvas editor tests.
#include "core/model/cluster.h"

namespace hetplan::test {

// Three nodes of different types, fully linked: a-b, b-c, a-c.
inline Cluster triangle()
{
    Cluster c;
    c.name = "tri";
    c.nodes = {Node{"a", "V100-16GB", 4, 0, 12.5e9, Communicator::GpuRdma, 0, 0},
               Node{"b", "T4", 4, 0, 3.125e9, Communicator::GpuRdma, 240, 0},
               Node{"c", "A100-40GB", 8, 300e9, 25e9, Communicator::CpuEthernet, 0, 200}};
    c.links = {Link{"a", "b", 1.25e9, 10e-6}, Link{"b", "c", 2.5e9, 20e-6}, Link{"a", "c", 5e9, 5e-6}};
    return c;
}

} // namespace hetplan::test
