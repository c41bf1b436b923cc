#pragma once
// Counts every operator new of the test binary between start and stop. The replacement
// operators live in counting_new.cpp, a translation unit with no containers of its own, so that
// GCC never sees a container's inlined allocation next to the replaced delete (its
// -Wmismatched-new-delete misfires on that pairing under -O1).
namespace meshplan::test {

void start_counting_allocations();
/// Allocations since start_counting_allocations().
long stop_counting_allocations();

}  // namespace meshplan::test
