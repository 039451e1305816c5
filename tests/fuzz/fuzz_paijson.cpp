// libFuzzer target: the OpenPAI config parser (JobSpecParser::parsePaiConfigDetailed: v1 job JSON
// with comments, protocol v2 YAML) and the validator behind it, with the wire round trip of every
// spec it accepts.

#include "fuzzcheck.h"

#include <QByteArray>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray json(reinterpret_cast<const char *>(data), qsizetype(size));
    ddl::fuzz::checkResult(ddl::JobSpecParser::parsePaiConfigDetailed(json));
    return 0;
}
