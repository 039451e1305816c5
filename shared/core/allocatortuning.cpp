#include "allocatortuning.h"

// Any C library header defines __GLIBC__ (through <features.h>); without one the test below is
// always false.
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ddl {

void keepLargeBuffersOffTheHeap()
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

} // namespace ddl
