#include "requestreader.h"

#include <QJsonDocument>
#include <QUrlQuery>

namespace ddl::server {

Result<QJsonObject> RequestReader::jsonBody(const HttpRequest &request)
{
    return parseJsonObject(request.body());
}

Result<qint64> RequestReader::queryInteger(const HttpRequest &request, const QString &name,
                                           qint64 fallback)
{
    return parseInteger(request.query().queryItemValue(name), name, fallback);
}

Result<QJsonObject> RequestReader::parseJsonObject(const QByteArray &body)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        return Error::make(ErrorCode::BadRequest,
                           QStringLiteral("the request body must be a JSON object (%1 at byte %2)")
                               .arg(parseError.errorString())
                               .arg(parseError.offset));
    }
    return document.object();
}

QString RequestReader::parseBearerToken(const QByteArray &header)
{
    if (!header.startsWith("Bearer "))
        return {};
    return QString::fromLatin1(header.mid(7).trimmed());
}

Result<qint64> RequestReader::parseInteger(const QString &text, const QString &name,
                                           qint64 fallback)
{
    if (text.isEmpty())
        return fallback;
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value < 0) {
        return Error::make(
            ErrorCode::BadRequest,
            QStringLiteral("%1 must be a whole number >= 0, got \"%2\"").arg(name, text.left(40)),
            name);
    }
    return value;
}

Result<ByteRange> RequestReader::parseRange(const QByteArray &rawHeader, qint64 size,
                                            qint64 maxLength)
{
    const QByteArray header = rawHeader.trimmed();
    if (header.isEmpty())
        return ByteRange{0, std::min(size, maxLength), size, size > maxLength};
    const auto unsatisfiable = [&] {
        return Error::make(ErrorCode::RangeNotSatisfiable,
                           QStringLiteral("the range %1 is not inside the file's %2 bytes")
                               .arg(QString::fromLatin1(header.left(60)))
                               .arg(size));
    };
    // As RFC 9110 lets a server: a unit other than bytes, or several ranges at once, are
    // ignored and the whole file is sent (200); curl and browsers then take what they asked for.
    const ByteRange whole{0, std::min(size, maxLength), size, size > maxLength};
    if (!header.startsWith("bytes=") || header.contains(','))
        return whole;
    const QByteArray spec = header.mid(6).trimmed();
    const int dash = spec.indexOf('-');
    if (dash < 0)
        return unsatisfiable();
    if (dash == 0) {
        // "bytes=-N": the last N bytes (all of a file shorter than N).
        bool okSuffix = false;
        const qint64 suffix = spec.mid(1).toLongLong(&okSuffix);
        if (!okSuffix || suffix <= 0 || size == 0)
            return unsatisfiable();
        const qint64 first = std::max<qint64>(0, size - suffix);
        return ByteRange{first, std::min(size - first, maxLength), size, true};
    }
    bool okFirst = false;
    const qint64 first = spec.left(dash).toLongLong(&okFirst);
    qint64 last = size - 1;
    if (dash + 1 < spec.size()) {
        bool okLast = false;
        last = std::min(spec.mid(dash + 1).toLongLong(&okLast), size - 1);
        if (!okLast)
            return unsatisfiable();
    }
    if (!okFirst || first < 0 || first >= size || last < first)
        return unsatisfiable();
    return ByteRange{first, std::min(last - first + 1, maxLength), size, true};
}

} // namespace ddl::server
