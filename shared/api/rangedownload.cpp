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
        fail(Error::make(
            ErrorCode::IoError,
            QStringLiteral("cannot write %1: %2").arg(m_part.fileName(), m_part.errorString())));
        return;
    }
    m_partSize = m_part.size();
    if (Status hashed = hashExistingPart(); !hashed) {
        fail(hashed.error());
        return;
    }
    m_clock.start(m_partSize);
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

Status RangeDownload::hashExistingPart()
{
    m_hash.reset();
    if (m_expectedSha256.isEmpty())
        return Ok{};
    m_hash.emplace();
    QByteArray buffer(qMin<qint64>(m_partSize, 1 << 20), Qt::Uninitialized);
    m_part.seek(0);
    for (qint64 done = 0; done < m_partSize;) {
        const qint64 n = m_part.read(buffer.data(), qMin<qint64>(buffer.size(), m_partSize - done));
        if (n <= 0) {
            return Error::make(ErrorCode::IoError, QStringLiteral("cannot read %1: %2")
                                                       .arg(m_part.fileName(), m_part.errorString()));
        }
        m_hash->add(QByteArrayView(buffer.constData(), n));
        done += n;
    }
    return Ok{};
}

void RangeDownload::truncatePart()
{
    m_part.resize(0);
    m_partSize = 0;
    if (!m_expectedSha256.isEmpty())
        m_hash.emplace();
}

void RangeDownload::requestNextRange()
{
    const qint64 offset = m_partSize;
    if (m_total >= 0 && offset >= m_total) {
        complete();
        return;
    }
    const QByteArray range = "bytes=" + QByteArray::number(offset) + '-'
                             + QByteArray::number(offset + RangeSize - 1);
    m_request = m_client->get(m_path, m_query, {{"Range", range}});
    m_rangeChecked = false;
    m_rangeBytes = 0;
    m_request->setReadBufferSize(ReadBufferSize);
    m_request->streamBody();
    connect(m_request, &ApiRequest::bodyReceived, this, [this](const QByteArray &bytes) {
        if (Status written = writeBytes(bytes); !written) {
            ApiRequest *request = std::exchange(m_request, nullptr);
            request->disconnect(this);
            request->deleteLater();
            fail(written.error());
        }
    });
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
        const Error &error = request->result().error();
        if ((error.is(ErrorCode::RangeNotSatisfiable) || error.code == QLatin1String("http_416")) &&
            m_partSize > 0) {
            truncatePart();
            requestNextRange();
            return;
        }
        fail(request->result().error());
        return;
    }
    // Whatever was not streamed (a short answer) comes with the response.
    if (Status written = writeBytes(request->result()->body); !written) {
        fail(written.error());
        return;
    }
    if (request->result()->status != 206)
        m_total = m_partSize; // the whole file came
    else if (!m_rangeChecked)    // an empty answer: nothing was looked at yet
        m_total = totalFromContentRange(request->result()->header("Content-Range"));
    if (m_rangeBytes == 0 && m_partSize < m_total) {
        fail(Error::make(ErrorCode::Network,
                         QStringLiteral("the server sent no bytes for %1; try again").arg(m_path)));
        return;
    }
    requestNextRange();
}

Status RangeDownload::writeBytes(const QByteArray &bytes)
{
    if (!m_rangeChecked && m_request) {
        m_rangeChecked = true;
        if (m_request->streamingStatus() == 206) {
            m_total = totalFromContentRange(m_request->streamingHeader("Content-Range"));
            if (m_total < 0) {
                return Error::make(ErrorCode::Network,
                                   QStringLiteral("the server sent part of %1 without saying its "
                                                  "size (no Content-Range); try again")
                                       .arg(m_path));
            }
        } else {
            // A server that ignores Range sends the whole file: start from zero.
            truncatePart();
            m_total = m_request->streamingHeader("Content-Length").toLongLong();
        }
    }
    if (bytes.isEmpty())
        return Ok{};
    if (m_part.pos() != m_partSize)
        m_part.seek(m_partSize);
    if (m_part.write(bytes) != bytes.size()) {
        return Error::make(
            ErrorCode::IoError,
            QStringLiteral("cannot write %1: %2").arg(m_part.fileName(), m_part.errorString()));
    }
    if (m_hash)
        m_hash->add(bytes);
    m_partSize += bytes.size();
    m_rangeBytes += bytes.size();
    emit progress(m_clock.at(m_partSize, std::max(m_total, m_partSize)));
    return Ok{};
}

void RangeDownload::complete()
{
    if (!m_part.flush()) {
        fail(Error::make(ErrorCode::IoError, QStringLiteral("cannot write %1: %2")
                                                 .arg(m_part.fileName(), m_part.errorString())));
        return;
    }
    m_part.close();
    if (m_hash) {
        const QString digest = std::exchange(m_hash, std::nullopt)->finishHex();
        if (digest != m_expectedSha256) {
            QFile::remove(m_part.fileName());
            fail(Error::make(ErrorCode::DigestMismatch,
                             QStringLiteral("%1 arrived corrupted (sha256 %2, expected %3); it was "
                                            "removed, download it again")
                                 .arg(m_destination, digest, m_expectedSha256)));
            return;
        }
    }
    QFile::remove(m_destination);
    if (!QFile::rename(m_part.fileName(), m_destination)) {
        fail(Error::make(ErrorCode::IoError,
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
