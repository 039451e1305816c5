// libFuzzer target: what the server reads from a request before any handler logic runs
// (server/http/requestreader): the Authorization header, query integers, the Range header
// against a file size, and the JSON body, which for a submission carries a wire spec
// (JobSpecParser::parseWireDetailed) as the POST /v1/jobs route reads it.
//
// The input is split on the first three newlines into Authorization, query string, Range header
// and body, so the seed corpus files read like a request's parts.

#include "fuzzcheck.h"
#include "http/requestreader.h"

#include <QByteArray>
#include <QJsonObject>
#include <QUrlQuery>

#include <cstddef>
#include <cstdint>

using ddl::server::ByteRange;
using ddl::server::RequestReader;

namespace {

QByteArray takeLine(QByteArray &rest)
{
    const qsizetype newline = rest.indexOf('\n');
    if (newline < 0) {
        QByteArray line = rest;
        rest.clear();
        return line;
    }
    QByteArray line = rest.left(newline);
    rest.remove(0, newline + 1);
    return line;
}

void checkRange(const QByteArray &header, qint64 size, qint64 maxLength)
{
    const ddl::Result<ByteRange> range = RequestReader::parseRange(header, size, maxLength);
    if (!range)
        return;
    if (range->first < 0 || range->length < 0 || range->length > maxLength
        || range->first + range->length > size || range->size != size)
        ddl::fuzz::fail("a Range answer must lie inside the file and the slice limit");
    if (size > 0 && range->length == 0)
        ddl::fuzz::fail("a satisfiable Range of a non-empty file sends bytes");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QByteArray rest(reinterpret_cast<const char *>(data), qsizetype(size));
    const QByteArray authorization = takeLine(rest);
    const QByteArray query = takeLine(rest);
    const QByteArray rangeHeader = takeLine(rest);
    const QByteArray &body = rest;

    const QString token = RequestReader::parseBearerToken(authorization);
    if (!token.isEmpty() && !authorization.startsWith("Bearer "))
        ddl::fuzz::fail("a token comes only from a Bearer header");

    const QUrlQuery urlQuery(QString::fromUtf8(query));
    for (const QString &name : {QStringLiteral("limit"), QStringLiteral("offset"),
                               QStringLiteral("task"), QStringLiteral("tail")}) {
        const ddl::Result<qint64> value =
            RequestReader::parseInteger(urlQuery.queryItemValue(name), name, -1);
        if (value && *value < -1)
            ddl::fuzz::fail("a query integer is >= 0 or the fallback");
    }

    // The sizes a blob or artifact can have around the edges, and the 8 MiB slice.
    for (const qint64 fileSize : {qint64(0), qint64(1), qint64(4096), qint64(1) << 40})
        checkRange(rangeHeader, fileSize, 8 * 1024 * 1024);

    const ddl::Result<QJsonObject> object = RequestReader::parseJsonObject(body);
    if (!object)
        return 0;
    ddl::fuzz::checkResult(
        ddl::JobSpecParser::parseWireDetailed(object->value(QStringLiteral("spec")).toObject()));
    ddl::fuzz::checkResult(ddl::JobSpecParser::parseWireDetailed(*object));
    return 0;
}
