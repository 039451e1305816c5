#pragma once

namespace ddl::server {

// Keeps the allocator from mapping and unmapping the same few hundred KiB for every TLS record:
// with glibc's defaults, Qt's socket buffers above 128 KiB come from mmap and go back on free,
// and each reuse costs page faults and zeroing (measured: about a tenth of the CPU of an upload).
// A no-op where the C library is not glibc.
void tuneAllocatorForStreaming();

} // namespace ddl::server
