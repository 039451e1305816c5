#pragma once

namespace ddl {

// Makes buffers of 1 MiB and more come from mmap and go back to the system when freed. glibc's
// default threshold slides up to the largest buffer freed so far, after which such buffers are
// carved from the heap of the thread that asked, and every thread that once held one keeps its
// size: a client reading 8 MiB blob batches on a dozen pool threads peaked near 100 MB (61 MB
// with this). Called once by the data transfer threads' pool. A no-op without glibc.
void keepLargeBuffersOffTheHeap();

} // namespace ddl
