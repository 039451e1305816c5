#include "writeturn.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace ddl::server {

namespace {
// A ticket lock: turns are served in the order they were asked for, so a batch thread that
// writes again at once cannot keep the event loop waiting.
std::mutex mutex;
std::condition_variable served;
std::uint64_t nextTicket = 0;
std::uint64_t serving = 0;
thread_local int held = 0; // turns this thread holds, nested
} // namespace

WriteTurn::WriteTurn()
{
    if (held++ > 0)
        return;
    std::unique_lock lock(mutex);
    const std::uint64_t ticket = nextTicket++;
    served.wait(lock, [ticket] { return serving == ticket; });
}

int WriteTurn::waiting()
{
    std::lock_guard lock(mutex);
    return nextTicket > serving ? int(nextTicket - serving - 1) : 0;
}

WriteTurn::~WriteTurn()
{
    if (--held > 0)
        return;
    {
        std::lock_guard lock(mutex);
        ++serving;
    }
    served.notify_all();
}

} // namespace ddl::server
