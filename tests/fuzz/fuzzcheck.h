#pragma once

// What every spec fuzz target checks beside "does not crash": a parse result is either a spec
// or errors (never both, never neither), and an accepted spec survives the wire: toJson() parsed
// by parseWire gives a valid spec equal to it (but for datasetLocation, which stays on the client). A broken promise aborts, which libFuzzer reports.

#include "jobspec/jobspecparser.h"

#include <cstdio>
#include <cstdlib>

namespace ddl::fuzz {

[[noreturn]] inline void fail(const char *what)
{
    std::fprintf(stderr, "fuzz check failed: %s\n", what);
    std::abort();
}

inline void checkResult(const SpecParseResult &result)
{
    if (result.spec.has_value() == !result.errors.isEmpty())
        fail("a parse result must hold a spec or errors, not both or neither");
    for (const SpecError &error : result.errors) {
        if (error.message.isEmpty())
            fail("every spec error says what is wrong");
    }
    if (!result.spec)
        return;
    const SpecParseResult wire = JobSpecParser::parseWireDetailed(result.spec->toJson());
    if (!wire.ok())
        fail("an accepted spec is rejected in its wire form");
    JobSpec sent = *result.spec;
    sent.datasetLocation.clear(); // a client-side path, never sent (JobSpec::toJson)
    if (!(*wire.spec == sent))
        fail("an accepted spec changes on its way over the wire");
}

} // namespace ddl::fuzz
