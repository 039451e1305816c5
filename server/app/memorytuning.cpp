#include "memorytuning.h"

// Any C library header defines __GLIBC__ (through <features.h>); without one the test below
// is always false and the tuning silently compiles to nothing.
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ddl::server {

void tuneAllocatorForStreaming()
{
#if defined(__GLIBC__)
    // Buffers up to 4 MiB come from the heap and are reused; the heap grows in steps of 64 MiB
    // and keeps up to 128 MiB of freed memory before giving it back, so a stream's buffers are
    // faulted in once, not per record. Pages are only resident once used: the RSS budget
    // (150 MB) holds.
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TOP_PAD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
}

} // namespace ddl::server
