#include "rangedownload.h"

#include "core/sha256.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>

namespace ddl {

RangeDownload::RangeDownload(ApiClient *client, const QString &path, const QUrlQuery &query,
                             const QString &destination, const QString &expectedSha256,
                             QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_path(path)
    , m_query(query)
    , m_destination(destination)
    , m_expectedSha256(expectedSha256)
    , m_part(destination + QStringLiteral(".part"))
{}

void RangeDownload::start()
{
    QDir().mkpath(QFileInfo(m_destination).absolutePath());
    if (!m_part.open(QIODevice::ReadWrite)) {
        fail(Error::make(QStringLiteral("io_error"),
                         QStringLiteral("cannot write %1: %2")
                             .arg(m_part.fileName(), m_part.errorString())));
        return;
    }
    m_clock.start(m_part.size());
    requestNextRange();
}

const Result<QString> &RangeDownload::waitForFinished()
{
    if (!isFinished()) {
        QEventLoop loop;
        connect(this, &RangeDownload::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return result();
}

void RangeDownload::requestNextRange()
{
    const qint64 offset = m_part.size();
    if (m_total >= 0 && offset >= m_total) {
        complete();
        return;
    }
    const QByteArray range = "bytes=" + QByteArray::number(offset) + '-'
                             + QByteArray::number(offset + RangeSize - 1);
    m_request = m_client->get(m_path, m_query, {{"Range", range}});
    connect(m_request, &ApiRequest::finished, this, &RangeDownload::handleRange);
}

// "bytes a-b/total" → total, or -1.
static qint64 totalFromContentRange(const QByteArray &contentRange)
{
    const int slash = contentRange.lastIndexOf('/');
    if (slash < 0)
        return -1;
    bool ok = false;
    const qint64 total = contentRange.mid(slash + 1).trimmed().toLongLong(&ok);
    return ok ? total : -1;
}

void RangeDownload::handleRange()
{
    ApiRequest *request = std::exchange(m_request, nullptr);
    request->deleteLater();
    if (!request->result()) {
        // 416: the part file already holds everything (or more): start it again.
        const QString code = request->result().error().code;
        if ((code == QLatin1String("range_not_satisfiable") || code == QLatin1String("http_416"))
            && m_part.size() > 0) {
            m_part.resize(0);
            requestNextRange();
            return;
        }
        fail(request->result().error());
        return;
    }
    const ApiResponse &response = *request->result();
    const qint64 offset = m_part.size();
    if (response.status == 206) {
        m_total = totalFromContentRange(response.header("Content-Range"));
        if (m_total < 0) {
            fail(Error::make(QStringLiteral("network"),
                             QStringLiteral("the server sent part of %1 without saying its size "
                                            "(no Content-Range); try again")
                                 .arg(m_path)));
            return;
        }
    } else {
        // A server that ignores Range sends the whole file: start from zero.
        m_part.resize(0);
        m_total = response.body.size();
    }
    m_part.seek(m_part.size());
    if (m_part.write(response.body) != response.body.size()) {
        fail(Error::make(QStringLiteral("io_error"),
                         QStringLiteral("cannot write %1: %2")
                             .arg(m_part.fileName(), m_part.errorString())));
        return;
    }
    m_part.flush();
    emit progress(m_clock.at(m_part.size(), m_total));
    if (response.body.isEmpty() && m_part.size() == offset && m_part.size() < m_total) {
        fail(Error::make(QStringLiteral("network"),
                         QStringLiteral("the server sent no bytes for %1; try again").arg(m_path)));
        return;
    }
    requestNextRange();
}

void RangeDownload::complete()
{
    m_part.close();
    if (!m_expectedSha256.isEmpty()) {
        const Result<QString> digest = sha256OfFile(m_part.fileName());
        if (!digest) {
            fail(digest.error());
            return;
        }
        if (*digest != m_expectedSha256) {
            QFile::remove(m_part.fileName());
            fail(Error::make(QStringLiteral("digest_mismatch"),
                             QStringLiteral("%1 arrived corrupted (sha256 %2, expected %3); it was "
                                            "removed, download it again")
                                 .arg(m_destination, *digest, m_expectedSha256)));
            return;
        }
    }
    QFile::remove(m_destination);
    if (!QFile::rename(m_part.fileName(), m_destination)) {
        fail(Error::make(QStringLiteral("io_error"),
                         QStringLiteral("cannot move the download into %1").arg(m_destination)));
        return;
    }
    m_result = m_destination;
    emit finished();
}

void RangeDownload::fail(const Error &error)
{
    m_result = error;
    emit finished();
}

} // namespace ddl
