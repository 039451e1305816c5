#include "blobupload.h"

#include "dataconnection.h"
#include "datatransferpool.h"
#include "filehashcache.h"

#include "core/allocatortuning.h"
#include "core/sha256.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QPromise>
#include <QWaitCondition>
#include <QtConcurrent>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ddl {

// What the sending thread shares with the upload: it may outlive the upload (a cancel does not
// wait for it), so it holds everything it needs.
struct BlobUpload::Sending
{
    DataTransferControl control;
    std::atomic<qint64> acked{0};
    std::atomic<qint64> inChunk{0}; // bytes of the current chunk handed to TLS
    std::atomic<qint64> wire{0};    // bytes of earlier chunks handed to TLS
    qint64 handedOver() const { return wire.load() + inChunk.load(); }

    // The digest that chunks name (DDL-Sha256) of an upload created without one: empty until
    // the file is hashed and the blob is known to be new to the caller.
    void setDigest(const QByteArray &sha256)
    {
        QMutexLocker locker(&mutex);
        digest = sha256;
        digestSet.wakeAll();
    }
    // The digest for the next chunk; the last one waits for it (empty: aborted meanwhile).
    QByteArray digestFor(bool lastChunk)
    {
        QMutexLocker locker(&mutex);
        while (lastChunk && digest.isEmpty() && !control.isAborted())
            digestSet.wait(&mutex);
        return digest;
    }
    void abort()
    {
        control.abort();
        QMutexLocker locker(&mutex);
        digestSet.wakeAll();
    }

    QMutex mutex;
    QWaitCondition digestSet;
    QByteArray digest;
};

QThreadPool *dataTransferThreads()
{
    static QThreadPool *pool = [] {
        keepLargeBuffersOffTheHeap(); // blob batches are 8 MiB buffers on these threads
        auto *threads = new QThreadPool;
        threads->setMaxThreadCount(16);
        threads->setExpiryTimeout(5000);
        return threads;
    }();
    return pool;
}

// The records of uploads begun without a digest are written here, one at a time in the order
// asked: "begun" and "forget" of one file never swap, and a pool kept busy by hashing (a folder
// scan) does not hold a record back.
static QThreadPool *pendingRecordThread()
{
    static QThreadPool *thread = [] {
        auto *one = new QThreadPool;
        one->setMaxThreadCount(1);
        return one;
    }();
    return thread;
}

static const QString SendWhileHashing = QStringLiteral("send while hashing");

qint64 BlobUpload::chunkSizeFor(qint64 fileSize)
{
    const qint64 eighth = (fileSize / 8) / ChunkSize * ChunkSize;
    return std::clamp(eighth, ChunkSize, MaxChunkSize);
}

BlobUpload::BlobUpload(ApiClient *client, const QString &filePath, const QString &sha256Hex,
                       QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_path(filePath)
    , m_sha256(sha256Hex)
    , m_file(filePath)
{
    m_progressTimer.setInterval(100);
    connect(&m_progressTimer, &QTimer::timeout, this, &BlobUpload::reportProgress);
    connect(&m_sent, &QFutureWatcher<SendResult>::finished, this, &BlobUpload::handleSent);
    // The hashing thread says "sending may start" (a large file the cache does not know) in a
    // progress text, and then hands over the digest. (Not a progress value: the watcher reports
    // the maximum when the future finishes.)
    connect(&m_hashing,
            &QFutureWatcher<Result<QString>>::progressTextChanged,
            this,
            [this](const QString &text) {
                if (text.startsWith(SendWhileHashing) && m_sha256.isEmpty() && !m_withoutDigest &&
                    !isFinished())
                    startWithoutDigest(text.mid(SendWhileHashing.size() + 1));
            });
    connect(&m_hashing, &QFutureWatcher<Result<QString>>::finished, this, [this] {
        if (m_hashing.future().resultCount() > 0)
            provideDigest(m_hashing.result());
    });
}

BlobUpload::~BlobUpload()
{
    m_hashAbort->store(true);
    stopSending();
    delete m_createRequest;
    delete m_checkRequest;
}

void BlobUpload::start()
{
    if (!m_file.open(QIODevice::ReadOnly)) {
        fail(Error::make(ErrorCode::IoError,
                         QStringLiteral("cannot read %1: %2").arg(m_path, m_file.errorString())));
        return;
    }
    m_size = m_file.size();
    if (!m_sha256.isEmpty())
        createUpload();
    else if (m_digestComesLater)
        startWithoutDigest(m_resumeId);
    else
        hashFile();
}

// On a pool thread: the digest from the hash cache, or the file is read (its digest recorded in
// the cache). A large file signals first that its bytes may go while it is hashed.
void BlobUpload::hashFile()
{
    const QString path = QFileInfo(m_path).absoluteFilePath();
    const QString cachePath = m_hashCachePath;
    const bool large = m_size >= ChunkSize;
    std::shared_ptr<std::atomic<bool>> abort = m_hashAbort;
    m_hashing.setFuture(
        QtConcurrent::run([path, cachePath, large, abort](QPromise<Result<QString>> &promise) {
            // A small file costs less to hash than the user's cache to load and rewrite.
            if (!large) {
                promise.addResult(sha256OfFile(path));
                return;
            }
            FileHashCache cache(cachePath);
            const std::optional<QString> known = cache.cached(path);
            // An upload an earlier run began for this file without a digest goes on, even when the
            // digest is known by now (that run may have been stopped before it could send it).
            const std::optional<QString> pending = cache.pendingUpload(path);
            if (known && !pending) {
                promise.addResult(Result<QString>(*known));
                return;
            }
            promise.setProgressRange(0, 2);
            promise.setProgressValueAndText(1,
                                            SendWhileHashing + u' ' + pending.value_or(QString()));
            if (known) {
                promise.addResult(Result<QString>(*known));
                return;
            }
            Result<QString> digest = cache.sha256(path, nullptr, abort.get());
            if (Status saved = cache.save(); !saved)
                qWarning("%s", qPrintable(saved.error().message)); // costs a re-hash next time only
            promise.addResult(digest);
        }));
}

void BlobUpload::startWithoutDigest(const QString &resumeId)
{
    m_withoutDigest = true;
    m_uploadId = resumeId; // createUpload() asks where it stands
    m_resuming = !resumeId.isEmpty();
    createUpload();
}

// Off this thread: the record of uploads begun without a digest, beside the hash cache.
void BlobUpload::recordPending(bool begun)
{
    if (!m_withoutDigest)
        return;
    pendingRecordThread()->start([cachePath = m_hashCachePath,
                                  path = QFileInfo(m_path).absoluteFilePath(),
                                  id = m_uploadId,
                                  begun] {
        const FileHashCache cache(cachePath);
        if (begun)
            cache.rememberPendingUpload(path, id);
        else
            cache.forgetPendingUpload(path);
    });
}

void BlobUpload::provideDigest(const Result<QString> &digest)
{
    if (isFinished())
        return;
    if (!digest) {
        fail(digest.error());
        return;
    }
    m_sha256 = *digest;
    if (m_completeBeforeDigest) {
        // An earlier run sent the digest and the bytes (this file is unchanged since): the
        // caller has the blob already.
        emit digestChecked(m_sha256, true);
        if (isFinished())
            return;
        m_deduplicated = true;
        succeed();
        return;
    }
    if (!m_withoutDigest) {
        createUpload();
        return;
    }
    // Sending already: the blob may be the caller's from an earlier upload (another machine, an
    // emptied hash cache). Then nothing more need travel.
    m_checkRequest = m_client->missingBlobs({m_sha256});
    ApiRequest *request = m_checkRequest;
    connect(request, &ApiRequest::finished, this, [this, request] { handleChecked(request); });
}

void BlobUpload::handleChecked(ApiRequest *request)
{
    m_checkRequest = nullptr;
    request->deleteLater();
    if (isFinished())
        return;
    // Without an answer the upload goes on: the check only saves sending.
    const bool stored =
        request->result() && !ApiClient::missingIn(request->result()->json()).contains(m_sha256);
    emit digestChecked(m_sha256, stored);
    if (isFinished() || m_alreadyStored) // abandoned by the caller meanwhile
        return;
    if (stored) {
        abandon();
        return;
    }
    m_digestChecked = true;
    if (m_sending)
        m_sending->setDigest(m_sha256.toLatin1());
}

void BlobUpload::abandon()
{
    if (isFinished() || m_alreadyStored)
        return;
    m_alreadyStored = true;
    if (m_sending)
        m_acked = std::max(m_acked, m_sending->acked.load());
    stopSending();
    if (!m_createRequest) // else once the upload is created
        abandonUpload();
}

void BlobUpload::abandonUpload()
{
    if (m_uploadId.isEmpty()) {
        finishDeduplicated();
        return;
    }
    m_checkRequest = m_client->abandonUpload(m_uploadId);
    ApiRequest *request = m_checkRequest;
    connect(request, &ApiRequest::finished, this, [this, request] {
        m_checkRequest = nullptr;
        request->deleteLater();
        // A refused abandon leaves an upload that expires on its own.
        if (!request->result())
            qWarning("could not abandon upload %s: %s",
                     qPrintable(m_uploadId),
                     qPrintable(request->result().error().message));
        if (!isFinished())
            finishDeduplicated();
    });
}

void BlobUpload::finishDeduplicated()
{
    m_deduplicated = true;
    m_skipped = m_size - m_acked;
    m_acked = m_size;
    reportProgress();
    succeed();
}

void BlobUpload::succeed()
{
    recordPending(false);
    m_result = m_sha256;
    emit finished();
}

void BlobUpload::cancel()
{
    if (!isFinished())
        fail(Error::make(ErrorCode::Aborted, QStringLiteral("the upload was cancelled")));
}

void BlobUpload::createUpload()
{
    stopSending();
    // An upload begun without a digest goes on under its id until the digest is known and
    // checked (the server may not know it yet); then, as the others, it is resumed or created by
    // digest: that also leaves behind an upload whose earlier digest differs (409 on a chunk:
    // the file changed keeping its size, mtime and inode).
    m_askedState = m_withoutDigest && !m_uploadId.isEmpty() && !m_digestChecked;
    const bool digestLess = m_withoutDigest && !m_digestChecked;
    m_createRequest = m_askedState
                          ? m_client->uploadState(m_uploadId)
                          : m_client->createUpload(m_size, digestLess ? QString() : m_sha256);
    ApiRequest *request = m_createRequest;
    connect(request, &ApiRequest::finished, this, [this, request] { handleCreated(request); });
}

const Result<QString> &BlobUpload::waitForFinished()
{
    if (!isFinished()) {
        QEventLoop loop;
        connect(this, &BlobUpload::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return result();
}

void BlobUpload::handleCreated(ApiRequest *request)
{
    m_createRequest = nullptr;
    request->deleteLater();
    if (std::exchange(m_askedState, false)) {
        // The upload an earlier run began for this file, or this run before a restart: gone
        // (finished, abandoned, expired) or not this file's size, a new one begins. (An earlier
        // run's record is only a hint: any failure to find it starts anew.)
        const bool resuming = std::exchange(m_resuming, false);
        const bool gone =
            !request->result()
                ? resuming || request->result().error().is(ErrorCode::NotFound)
                : request->result()->json().value(QStringLiteral("size")).toInteger() != m_size;
        if (gone) {
            m_uploadId.clear();
            createUpload();
            return;
        }
    } else if (m_withoutDigest && request->result()) {
        if (m_digestChecked) {
            recordPending(false); // resumed by digest from now on (the digest is in the cache)
        } else {
            m_uploadId = request->result()->json().value(QStringLiteral("id")).toString();
            recordPending(true);
        }
    }
    if (!request->result()) {
        fail(request->result().error());
        return;
    }
    const QJsonObject answer = request->result()->json();
    const bool complete = answer.value(QStringLiteral("complete")).toBool();
    m_uploadId = answer.value(QStringLiteral("id")).toString();
    if (m_alreadyStored) {
        abandonUpload();
        return;
    }
    m_acked = complete ? m_size : answer.value(QStringLiteral("offset")).toInteger();
    m_nextSend = m_acked;
    if (!m_clock.isStarted()) {
        m_skipped = m_acked;
        m_clock.start(m_acked);
    }
    if (complete && m_sha256.isEmpty()) {
        // An earlier run finished it under the digest it sent: done once this run knows it too.
        m_completeBeforeDigest = true;
        reportProgress();
        return;
    }
    if (complete) {
        reportProgress();
        succeed();
        return;
    }
    sendChunks();
}

void BlobUpload::sendChunks()
{
    stopSending();
    auto sending = std::make_shared<Sending>();
    sending->acked = m_acked;
    if (m_withoutDigest && m_digestChecked)
        sending->digest = m_sha256.toLatin1();
    m_sending = sending;
    std::shared_ptr<DataConnectionPool> pool = m_client->dataConnections();
    const QByteArray head =
        m_client->dataRequestHead("PUT", QStringLiteral("/v1/uploads/") + m_uploadId, {});
    const QString path = m_path;
    const qint64 size = m_size;
    const qint64 from = m_acked;
    const qint64 chunkSize = chunkSizeFor(m_size);
    const bool withoutDigest = m_withoutDigest;
    m_sent.setFuture(QtConcurrent::run(dataTransferThreads(), [=]() -> SendResult {
        // "PUT /v1/uploads/<id> HTTP/1.1\r\n...": the offset goes into the request line.
        const qsizetype space = head.indexOf(" HTTP/1.1");
        const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            return {Error::make(ErrorCode::IoError,
                                QStringLiteral("cannot read %1: %2")
                                    .arg(path, QString::fromLocal8Bit(std::strerror(errno)))),
                    from,
                    false};
        }
        struct stat st;
        if (::fstat(fd, &st) != 0 || st.st_size != size) {
            ::close(fd);
            return {Error::make(ErrorCode::IoError,
                                QStringLiteral("%1 changed while it was being uploaded; upload it "
                                               "again")
                                    .arg(path)),
                    from,
                    false};
        }
        SendResult result{std::nullopt, from, false};
        while (!result.complete && !sending->control.isAborted()) {
            const qint64 offset = result.acked;
            const qint64 length = std::min(chunkSize, size - offset);
            // No CRC-32C header: it would cost a second read of every chunk before sending, and
            // TLS already protects the bytes on the wire (each record is authenticated).
            // An upload created without a digest names it once known; its last chunk waits.
            QByteArray digest;
            if (withoutDigest) {
                digest = sending->digestFor(offset + length == size);
                if (sending->control.isAborted())
                    break;
            }
            const QByteArray chunkHead =
                head.left(space) + "?offset=" + QByteArray::number(offset) + head.mid(space) +
                (digest.isEmpty() ? QByteArray() : "\r\nDDL-Sha256: " + digest);
            sending->inChunk = 0;
            Result<DataAnswer> answer = pool->request(
                sending->control, chunkHead, fd, offset, length, {}, {}, [&sending](qint64 sent) {
                    sending->inChunk = sent;
                });
            sending->wire += sending->inChunk.load();
            sending->inChunk = 0;
            if (!answer) {
                result.error = answer.error();
                break;
            }
            const QJsonObject json = QJsonDocument::fromJson(answer->body).object();
            if (answer->status < 200 || answer->status >= 300) {
                Error error = Error::fromJson(json);
                if (error.code.isEmpty()) {
                    error = Error::httpStatus(answer->status,
                                              QStringLiteral("the server answered HTTP %1 for a "
                                                             "chunk of %2")
                                                  .arg(answer->status)
                                                  .arg(path));
                }
                result.error = error;
                break;
            }
            result.acked = std::max(result.acked, json.value(QStringLiteral("offset")).toInteger());
            result.complete = json.value(QStringLiteral("complete")).toBool();
            sending->acked = result.acked;
            if (!result.complete && result.acked <= offset) {
                result.error = Error::make(ErrorCode::Network,
                                           QStringLiteral("the server took none of a chunk of %1; "
                                                          "try again")
                                               .arg(path));
                break;
            }
        }
        ::close(fd);
        return result;
    }));
    m_progressTimer.start();
}

void BlobUpload::handleSent()
{
    if (isFinished() || !m_sending)
        return;
    m_progressTimer.stop();
    m_bytesSent += m_sending->handedOver();
    m_sending.reset();
    const SendResult sent = m_sent.result();
    m_acked = std::max(m_acked, sent.acked);
    if (sent.error) {
        // Another upload of the same bytes by the same owner moved the upload on or finished
        // it, a chunk was corrupted on the way, or the connection broke (a chunk the server
        // refuses before its body, the upload gone, ends in a closed connection): ask the server
        // where things stand (a server that is down fails that request).
        const Error &error = *sent.error;
        if (error.is(ErrorCode::Unauthorized) && m_client)
            m_client->reportRefusedToken();
        if ((error.is(ErrorCode::NotFound) || error.is(ErrorCode::OffsetMismatch) ||
             error.is(ErrorCode::Conflict) || error.is(ErrorCode::ChunkCorrupted) ||
             error.is(ErrorCode::Network) || error.is(ErrorCode::Unreachable)) &&
            m_restarts++ < MaxRestarts) {
            createUpload();
            return;
        }
        fail(error);
        return;
    }
    reportProgress();
    succeed();
}

void BlobUpload::reportProgress()
{
    qint64 done = m_acked;
    if (m_sending)
        done = std::max(done, m_sending->acked.load() + m_sending->inChunk.load());
    emit progress(m_clock.at(std::min(done, m_size), m_size));
}

void BlobUpload::stopSending()
{
    m_progressTimer.stop();
    if (m_sending) {
        // The thread stops at once (its socket is shut down, a wait for the digest ends) and
        // drops what it had.
        m_sending->abort();
        m_bytesSent += m_sending->handedOver();
        m_sending.reset();
    }
}

void BlobUpload::fail(const Error &error)
{
    m_hashAbort->store(true); // a cancelled upload of a large file stops hashing it too
    stopSending();
    m_result = error;
    emit finished();
}

} // namespace ddl
