// libFuzzer target: the DDL task.yaml parser (JobSpecParser::parseTaskYamlDetailed, yaml-cpp
// underneath) and the validator behind it, with the wire round trip of every spec it accepts.

#include "fuzzcheck.h"

#include <QByteArray>
#include <QString>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray yaml(reinterpret_cast<const char *>(data), qsizetype(size));
    ddl::fuzz::checkResult(
        ddl::JobSpecParser::parseTaskYamlDetailed(yaml, QStringLiteral("fuzz-repo")));
    return 0;
}
