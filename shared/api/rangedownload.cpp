#include "rangedownload.h"

#include "dataconnection.h"
#include "datatransferpool.h"
#include "sha256pipeline.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtConcurrent>

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace ddl {

// Shared with the receiving thread, which may outlive the download (a cancel does not wait).
struct RangeDownload::Receiving
{
    DataTransferControl control;
    std::atomic<qint64> partSize{0};
    std::atomic<qint64> total{-1};
};

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
{
    m_progressTimer.setInterval(100);
    connect(&m_progressTimer, &QTimer::timeout, this, &RangeDownload::reportProgress);
    connect(&m_received,
            &QFutureWatcher<ReceiveResult>::finished,
            this,
            &RangeDownload::handleReceived);
}

RangeDownload::~RangeDownload()
{
    stopReceiving();
}

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
    // What a previous run left is hashed on the receiving thread, before it asks for the rest:
    // a resumed part of gigabytes is not read on the calling (GUI) thread.
    m_hash.reset();
    m_hashPart = !m_expectedSha256.isEmpty();
    m_clock.start(m_partSize);
    requestRest();
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

// The digest state of the part file's first size bytes, read through fd; stops when aborted.
static Result<Sha256Stream> hashPart(int fd, qint64 size, const QString &path,
                                     const DataTransferControl &control)
{
    Sha256Stream hash;
    QByteArray buffer(qBound(qint64(1), size, qint64(1) << 20), Qt::Uninitialized);
    for (qint64 done = 0; done < size;) {
        if (control.isAborted())
            return Error::make(ErrorCode::Aborted, QStringLiteral("cancelled"));
        const ssize_t n = ::pread(fd, buffer.data(), size_t(qMin<qint64>(buffer.size(), size - done)),
                                  done);
        if (n <= 0) {
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("cannot read %1: %2")
                                   .arg(path, QString::fromLocal8Bit(std::strerror(n < 0 ? errno
                                                                                       : EIO))));
        }
        hash.add(QByteArrayView(buffer.constData(), n));
        done += n;
    }
    return hash;
}

// "bytes a-b/total" → a and total, or -1.
static std::pair<qint64, qint64> parseContentRange(const QByteArray &contentRange)
{
    const qsizetype space = contentRange.indexOf(' ');
    const qsizetype dash = contentRange.indexOf('-');
    const qsizetype slash = contentRange.lastIndexOf('/');
    if (space < 0 || dash < space || slash < dash)
        return {-1, -1};
    bool okFirst = false;
    bool okTotal = false;
    const qint64 first =
        contentRange.mid(space + 1, dash - space - 1).trimmed().toLongLong(&okFirst);
    const qint64 total = contentRange.mid(slash + 1).trimmed().toLongLong(&okTotal);
    return {okFirst ? first : -1, okTotal ? total : -1};
}

void RangeDownload::requestRest()
{
    stopReceiving();
    if (m_total >= 0 && m_partSize >= m_total) {
        complete();
        return;
    }
    auto receiving = std::make_shared<Receiving>();
    receiving->partSize = m_partSize;
    m_receiving = receiving;
    std::shared_ptr<DataConnectionPool> pool = m_client->dataConnections();
    const QByteArray head = m_client->dataRequestHead(
        "GET", m_path, m_query, {{"Range", "bytes=" + QByteArray::number(m_partSize) + '-'}});
    const int fd = m_part.handle();
    const QString name = m_path;
    const QString partName = m_part.fileName();
    const bool hashPartFirst = std::exchange(m_hashPart, false);
    ReceiveResult start{std::nullopt, m_partSize, m_total, std::exchange(m_hash, std::nullopt)};
    m_received.setFuture(QtConcurrent::run(dataTransferThreads(), [=]() mutable -> ReceiveResult {
        ReceiveResult result = std::move(start);
        if (hashPartFirst) {
            Result<Sha256Stream> hashed =
                hashPart(fd, result.partSize, partName, receiving->control);
            if (!hashed) {
                result.error = hashed.error();
                return result;
            }
            result.hash = *hashed;
        }
        // A large answer is hashed on a thread of its own while the next bytes arrive.
        std::optional<Sha256Pipeline> hashing;
        // The part file's descriptor stays open: the download waits for this thread before it
        // closes it, except when cancelled, and then writes are refused by the abort first.
        Result<DataAnswer> answer = pool->request(
            receiving->control,
            head,
            -1,
            0,
            -1,
            [&](const DataAnswer &a) -> Status {
                if (a.status == 206) {
                    const auto [first, total] = parseContentRange(a.header("Content-Range"));
                    if (total < 0 || first != result.partSize) {
                        return Error::make(ErrorCode::Network,
                                           QStringLiteral("the server sent part of %1 without "
                                                          "saying which (Content-Range); try "
                                                          "again")
                                               .arg(name));
                    }
                    result.total = total;
                } else {
                    // A server that ignores Range sends the whole file: start from zero.
                    if (::ftruncate(fd, 0) != 0) {
                        return Error::make(ErrorCode::IoError,
                                           QStringLiteral("cannot write the "
                                                          "download of %1")
                                               .arg(name));
                    }
                    result.partSize = 0;
                    if (result.hash)
                        result.hash.emplace();
                    result.total = a.header("Content-Length").toLongLong();
                }
                receiving->total = result.total;
                if (result.hash && result.total - result.partSize >= PipelinedBytes)
                    hashing.emplace(*std::exchange(result.hash, std::nullopt),
                                    DataConnection::PieceBytes);
                return Ok{};
            },
            [&](const char *data, qint64 size) -> Status {
                if (receiving->control.isAborted())
                    return Error::make(ErrorCode::Aborted, QStringLiteral("cancelled"));
                for (qint64 done = 0; done < size;) {
                    const ssize_t n =
                        ::pwrite(fd, data + done, size_t(size - done), result.partSize + done);
                    if (n <= 0) {
                        return Error::make(
                            ErrorCode::IoError,
                            QStringLiteral("cannot write the download of %1: %2")
                                .arg(name, QString::fromLocal8Bit(std::strerror(errno))));
                    }
                    done += n;
                }
                if (hashing)
                    hashing->add(const_cast<char *>(data), size);
                else if (result.hash)
                    result.hash->add(QByteArrayView(data, size));
                result.partSize += size;
                receiving->partSize = result.partSize;
                return Ok{};
            },
            {},
            [&]() -> char * { return hashing ? hashing->take() : nullptr; });
        if (hashing)
            result.hash = hashing->finish();
        if (!answer) {
            result.error = answer.error();
        } else if (answer->status < 200 || answer->status >= 300) {
            Error error = Error::fromJson(QJsonDocument::fromJson(answer->body).object());
            if (error.code.isEmpty()) {
                error = Error::httpStatus(answer->status,
                                          QStringLiteral("the server answered HTTP %1 for %2")
                                              .arg(answer->status)
                                              .arg(name));
            }
            result.error = error;
        }
        return result;
    }));
    m_progressTimer.start();
}

void RangeDownload::handleReceived()
{
    if (isFinished() || !m_receiving)
        return;
    m_progressTimer.stop();
    m_receiving.reset();
    ReceiveResult received = m_received.result();
    m_partSize = received.partSize;
    m_total = received.total;
    m_hash = std::move(received.hash);
    if (received.error) {
        const Error &error = *received.error;
        if (error.is(ErrorCode::Unauthorized) && m_client)
            m_client->reportRefusedToken();
        // 416: the part file already holds everything (or more): start it again, once.
        if ((error.is(ErrorCode::RangeNotSatisfiable) || error.code == QLatin1String("http_416")) &&
            m_partSize > 0 && !m_restarted) {
            m_restarted = true;
            m_part.resize(0);
            m_partSize = 0;
            if (!m_expectedSha256.isEmpty())
                m_hash.emplace();
            requestRest();
            return;
        }
        fail(error);
        return;
    }
    reportProgress();
    if (m_total < 0)
        m_total = m_partSize;
    if (m_partSize < m_total) {
        fail(Error::make(ErrorCode::Network,
                         QStringLiteral("the server sent %1 of %2 bytes of %3; try again")
                             .arg(m_partSize)
                             .arg(m_total)
                             .arg(m_path)));
        return;
    }
    complete();
}

void RangeDownload::reportProgress()
{
    qint64 done = m_partSize;
    qint64 total = m_total;
    if (m_receiving) {
        done = m_receiving->partSize;
        total = m_receiving->total;
    }
    emit progress(m_clock.at(done, std::max(total, done)));
}

void RangeDownload::stopReceiving()
{
    m_progressTimer.stop();
    if (m_receiving) {
        m_receiving->control.abort();
        m_receiving.reset();
        // The thread writes into the part file's descriptor: wait until it has let go.
        m_received.waitForFinished();
    }
}

void RangeDownload::complete()
{
    if (!m_part.flush()) {
        fail(Error::make(
            ErrorCode::IoError,
            QStringLiteral("cannot write %1: %2").arg(m_part.fileName(), m_part.errorString())));
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
    stopReceiving();
    m_result = error;
    emit finished();
}

} // namespace ddl
