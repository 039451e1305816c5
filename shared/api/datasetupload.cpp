#include "datasetupload.h"

#include "blobbatchupload.h"
#include "blobupload.h"
#include "filehashcache.h"

#include "core/sha256stream.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QSet>
#include <QThread>
#include <QtConcurrent>

#include <algorithm>
#include <mutex>

namespace ddl {

DatasetUpload::DatasetUpload(ApiClient *client, const QString &folder, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_folder(folder)
    , m_batchBuffers(std::make_shared<BatchBufferPool>())
{
}

// A slot for a file sent before it is hashed, taken by one of the hashing threads at a time.
static bool reserveBlindSlot(std::atomic<int> &running)
{
    int now = running.load();
    while (now < DatasetUpload::FilesAtOnce) {
        if (running.compare_exchange_weak(now, now + 1))
            return true;
    }
    return false;
}

DatasetUpload::~DatasetUpload()
{
    qDeleteAll(m_running.keys());
    delete m_manifestUpload;
}

void DatasetUpload::start()
{
    connect(&m_scan,
            &QFutureWatcher<Result<DatasetManifest>>::finished,
            this,
            &DatasetUpload::handleScanned);
    const QString folder = m_folder;
    const QString cachePath = m_hashCachePath;
    QPointer<DatasetUpload> self(this);
    std::shared_ptr<std::atomic<qint64>> bytesHashed = m_bytesHashed;
    std::shared_ptr<std::atomic<int>> blindRunning = m_blindRunning;
    const bool early = !m_dryRun;
    m_scan.setFuture(QtConcurrent::run([folder, cachePath, self, bytesHashed, blindRunning, early] {
        // Files unchanged since they were last hashed (same path, size, mtime and inode) are
        // not read again.
        FileHashCache cache(cachePath);
        // Small files that had to be read go to the application's thread in groups of a
        // batch, to be sent while the next ones are hashed.
        // Paths are made relative on several threads at once: each from this string (a shared
        // QDir fills a cache of its own without a lock).
        const QString base = QFileInfo(folder).absoluteFilePath();
        const auto relativePath = [&base](const QString &path) {
            return QDir(base).relativeFilePath(path);
        };
        // Files are hashed on several threads at once; they are grouped under this lock.
        std::mutex groupMutex;
        QList<ManifestFile> group;
        qint64 groupBytes = 0;
        const auto post = [self](const QList<ManifestFile> &files) {
            QMetaObject::invokeMethod(QCoreApplication::instance(), [self, files] {
                if (self)
                    self->handleHashedEarly(files);
            });
        };
        const auto handOver = [&] {
            if (!group.isEmpty())
                post(std::exchange(group, {}));
            groupBytes = 0;
        };
        // Progress is posted to the application's thread, where self is checked: an upload
        // deleted meanwhile (cancelled) does not wait for the hashing to end. At most every
        // 50 ms, and the last: one a file woke that thread 10,000 times for 10,000 small files.
        // (scan calls this one file at a time.)
        QElapsedTimer sincePosted;
        Result<DatasetManifest> scanned = DatasetManifest::scan(
            folder,
            [self, &sincePosted](qint64 done, qint64 total) {
                if (done < total && sincePosted.isValid() && sincePosted.elapsed() < 50)
                    return;
                sincePosted.start();
                QMetaObject::invokeMethod(QCoreApplication::instance(), [self, done, total] {
                    if (self)
                        emit self->hashing(done, total);
                });
            },
            [&](const QString &path, qint64 size) -> Result<QString> {
                if (early && size >= BlobUpload::ChunkSize && reserveBlindSlot(*blindRunning)) {
                    const std::optional<QString> known = cache.cached(path);
                    const std::optional<QString> pending = cache.pendingUpload(path);
                    if (known && !pending) {
                        --*blindRunning; // the slot was not needed
                        return *known;
                    }
                    // A large file the cache does not know starts sending now, without its
                    // digest, which follows once it is hashed here (BlobUpload); so does one
                    // whose upload an earlier run began so (it goes on under that id).
                    const QString relative = relativePath(path);
                    const QString resumeId = pending.value_or(QString());
                    QMetaObject::invokeMethod(
                        QCoreApplication::instance(), [self, relative, size, resumeId] {
                            if (self)
                                self->startBeforeHashed(relative, size, resumeId);
                        });
                    Result<QString> digest = known ? Result<QString>(*known) : cache.sha256(path);
                    // Saved now, not at the scan's end: a run stopped meanwhile finds the digest
                    // next time (docs/api.md), and its upload goes on by digest.
                    if (!known) {
                        if (Status saved = cache.save(); !saved)
                            qWarning("%s", qPrintable(saved.error().message));
                    }
                    QMetaObject::invokeMethod(QCoreApplication::instance(),
                                              [self, relative, digest] {
                                                  if (self)
                                                      self->handleHashedLate(relative, digest);
                                              });
                    return digest;
                }
                qint64 read = 0;
                Result<QString> digest = cache.sha256(path, &read);
                if (!early || !digest || read == 0)
                    return digest;
                const std::lock_guard locker(groupMutex);
                if (read > BlobBatchUpload::SmallFileBytes) {
                    // A large file goes at once, on its own.
                    post({ManifestFile{relativePath(path), read, *digest, false}});
                } else {
                    // A full batch goes; the last, partial one waits for the plan.
                    if (groupBytes + read > BlobBatchUpload::BatchBytes ||
                        group.size() == BlobBatchUpload::BatchFiles)
                        handOver();
                    group.append(ManifestFile{relativePath(path), read, *digest, false});
                    groupBytes += read;
                }
                return digest;
            },
            std::clamp(QThread::idealThreadCount(), 1, MaxHashThreads));
        bytesHashed->store(cache.bytesHashed());
        if (Status saved = cache.save(); !saved)
            qWarning("%s", qPrintable(saved.error().message)); // costs a re-hash next time only
        return scanned;
    }));
}

void DatasetUpload::cancel()
{
    if (!isFinished())
        fail(Error::make(ErrorCode::Aborted, QStringLiteral("the upload was cancelled")));
}

const Result<QString> &DatasetUpload::waitForFinished()
{
    if (!isFinished()) {
        QEventLoop loop;
        connect(this, &DatasetUpload::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return result();
}

void DatasetUpload::handleHashedEarly(const QList<ManifestFile> &files)
{
    if (isFinished() || m_planned || !m_client)
        return;
    QStringList digests;
    for (const ManifestFile &file : files)
        digests.append(file.sha256);
    ApiRequest *request = m_client->missingBlobs(digests);
    connect(request, &ApiRequest::finished, this, [this, request, files] {
        request->deleteLater();
        // Once planned, the plan's own query covers these files.
        if (isFinished() || m_planned || !request->result())
            return;
        QSet<QString> missing = ApiClient::missingIn(request->result()->json());
        QList<ManifestFile> small;
        for (const ManifestFile &file : files) {
            if (missing.remove(file.sha256) && !m_sentEarly.contains(file.sha256)) {
                m_sentEarly.insert(file.sha256);
                m_sentEarlyPath.insert(file.sha256, file.path);
                (file.size <= BlobBatchUpload::SmallFileBytes ? small : m_toSend).append(file);
            }
        }
        m_batches.append(BlobBatchUpload::plan(small));
        if (!m_clock.isStarted())
            m_clock.start(0);
        sendFiles();
    });
}

void DatasetUpload::startBeforeHashed(const QString &path, qint64 size, const QString &resumeId)
{
    if (isFinished() || !m_client)
        return;
    if (!m_clock.isStarted())
        m_clock.start(0);
    BlobUpload *upload = startFile(ManifestFile{path, size, QString(), false}, true);
    upload->setDigestComesLater(resumeId);
    m_blind.insert(path, upload);
    connect(upload,
            &BlobUpload::digestChecked,
            this,
            [this, path, upload](const QString &sha256, bool alreadyStored) {
                m_blind.remove(path);
                // The same bytes under two paths are sent once: a second such file gives up.
                const bool twin = !alreadyStored && m_sentEarly.contains(sha256);
                (alreadyStored ? m_storedEarly : m_sentEarly).insert(sha256);
                if (!alreadyStored && !twin)
                    m_sentEarlyPath.insert(sha256, path);
                if (alreadyStored || twin) {
                    m_abandoning.insert(upload);
                    m_running[upload] = 0;
                }
                if (twin)
                    upload->abandon();
                if (m_scanned && m_blind.isEmpty())
                    askPlan();
            });
    upload->start();
}

void DatasetUpload::handleHashedLate(const QString &path, const Result<QString> &digest)
{
    if (BlobUpload *upload = m_blind.value(path))
        upload->provideDigest(digest);
}

void DatasetUpload::handleScanned()
{
    if (isFinished())
        return;
    Result<DatasetManifest> scanned = m_scan.result();
    if (!scanned || !m_client) {
        fail(scanned ? Error::make(ErrorCode::Aborted,
                                   QStringLiteral("the connection to the server was closed"))
                     : scanned.error());
        return;
    }
    m_manifest = *scanned;
    // Once: 10,000 files give a megabyte of JSON to write and hash.
    m_manifestJson = m_manifest.toJson();
    Sha256Stream digest;
    digest.add(m_manifestJson);
    m_manifestSha256 = digest.finishHex();
    m_scanned = true;
    // The plan waits until every file sent before it was hashed is known to be new or not.
    if (m_blind.isEmpty())
        askPlan();
}

void DatasetUpload::askPlan()
{
    if (isFinished() || !m_client)
        return;
    QStringList digests{m_manifestSha256};
    for (const ManifestFile &file : m_manifest.files()) {
        if (!m_sentEarly.contains(file.sha256) && !m_storedEarly.contains(file.sha256))
            digests.append(file.sha256);
    }
    ApiRequest *request = m_client->missingBlobs(digests);
    connect(request, &ApiRequest::finished, this, [this, request] { handleMissing(request); });
}

void DatasetUpload::handleMissing(ApiRequest *request)
{
    request->deleteLater();
    if (isFinished())
        return;
    if (!request->result()) {
        fail(request->result().error());
        return;
    }
    QSet<QString> missing = ApiClient::missingIn(request->result()->json());
    m_manifestMissing = missing.contains(m_manifestSha256);
    // Files whose batch started early are to send (their group's query said so) but are not
    // queued again.
    QSet<QString> early = m_sentEarly;
    // The same bytes under two paths are sent once.
    QStringList paths;
    QList<ManifestFile> small;
    for (const ManifestFile &file : m_manifest.files()) {
        if (m_storedEarly.contains(file.sha256))
            continue; // the caller had it: its upload, begun before the hash, was abandoned
        if (early.remove(file.sha256)) {
            // The path that is being sent, which a twin with the same bytes may precede.
            paths.append(m_sentEarlyPath.value(file.sha256, file.path));
            m_bytesToSend += file.size;
        } else if (missing.remove(file.sha256)) {
            (file.size <= BlobBatchUpload::SmallFileBytes ? small : m_toSend).append(file);
            paths.append(file.path);
            m_bytesToSend += file.size;
        }
    }
    m_batches.append(BlobBatchUpload::plan(small));
    m_filesToSend = int(paths.size());
    m_planned = true;
    emit planned(paths, m_bytesToSend);
    if (m_dryRun) {
        succeed();
        return;
    }
    if (!m_clock.isStarted())
        m_clock.start(0);
    // What early batches stored before the plan is told now, after planned().
    if (!m_doneEarly.isEmpty()) {
        for (const ManifestFile &file : std::exchange(m_doneEarly, {}))
            reportFileSent(file);
        reportProgress();
    }
    // The manifest is known: it travels beside the files, so that naming the dataset is all
    // that is left once the last batch is stored.
    sendManifest();
    sendFiles();
}

void DatasetUpload::sendFiles()
{
    sendBatches();
    while (!isFinished() && m_client && m_running.size() < FilesAtOnce &&
           m_nextFile < m_toSend.size()) {
        startFile(m_toSend.at(m_nextFile++), false)->start();
    }
    if (!isFinished() && m_planned && m_running.isEmpty() && m_nextFile >= m_toSend.size() &&
        m_runningBatches.isEmpty() && m_nextBatch >= m_batches.size() && m_manifestStored &&
        !m_naming) {
        m_naming = true;
        nameDataset();
    }
}

// blind: sent before it is hashed (file.sha256 empty; the digest follows, provideDigest).
BlobUpload *DatasetUpload::startFile(const ManifestFile &file, bool blind)
{
    auto *upload = new BlobUpload(m_client, QDir(m_folder).filePath(file.path), file.sha256);
    // A blind upload's digest comes later (startBeforeHashed); its id is recorded beside the
    // hash cache until it ends.
    if (blind)
        upload->setHashCachePath(m_hashCachePath);
    m_running.insert(upload, 0);
    connect(upload,
            &BlobUpload::progress,
            this,
            [this, upload, file, told = false](const TransferProgress &progress) mutable {
                if (m_abandoning.contains(upload))
                    return; // the server had the file: what was sent does not count
                m_running[upload] = progress.done;
                if (!m_planned)
                    return; // an early upload is told of once the plan is
                // The resume offset is known once the server has answered the create.
                if (!std::exchange(told, true) && upload->skippedBytes() > 0)
                    emit fileResumed(file.path, upload->skippedBytes());
                emit fileProgress(file.path, progress.done, file.size);
                reportProgress();
            });
    connect(upload, &BlobUpload::finished, this, [this, upload, file, blind] {
        m_running.remove(upload);
        m_abandoning.remove(upload);
        m_bytesOnWire += upload->bytesSent();
        upload->deleteLater();
        if (blind) {
            --*m_blindRunning;
            m_blind.remove(file.path);
        }
        if (isFinished())
            return;
        if (!upload->result()) {
            Error error = upload->result().error();
            error.message = QStringLiteral("%1: %2").arg(file.path, error.message);
            fail(error);
            return;
        }
        if (upload->deduplicated()) {
            // Not part of the plan: the server had it (counted as today's deduplication).
        } else if (m_planned) {
            reportFileSent(file);
            reportProgress();
        } else {
            m_doneEarly.append(file);
        }
        sendFiles();
    });
    return upload;
}

void DatasetUpload::sendBatches()
{
    while (!isFinished() && m_client && m_runningBatches.size() < BatchesAtOnce &&
           m_nextBatch < m_batches.size()) {
        auto *batch = new BlobBatchUpload(
            m_client, m_folder, m_batches.at(m_nextBatch++), m_batchBuffers, this);
        m_runningBatches.append(batch);
        connect(batch, &BlobBatchUpload::finished, this, [this, batch] { handleBatchSent(batch); });
        batch->start();
    }
}

void DatasetUpload::handleBatchSent(BlobBatchUpload *batch)
{
    m_runningBatches.removeOne(batch);
    batch->deleteLater();
    if (isFinished())
        return;
    if (!batch->result()) {
        fail(batch->result().error());
        return;
    }
    ++m_batchesSent;
    for (const ManifestFile &file : batch->files()) {
        m_bytesOnWire += file.size;
        if (m_planned)
            reportFileSent(file);
        else
            m_doneEarly.append(file);
    }
    if (m_planned)
        reportProgress();
    sendFiles();
}

void DatasetUpload::reportFileSent(const ManifestFile &file)
{
    m_bytesSent += file.size;
    m_uploaded.append(file.path);
    emit fileProgress(file.path, file.size, file.size);
    emit fileSent(file.path);
}

void DatasetUpload::sendManifest()
{
    if (!m_manifestMissing) {
        m_manifestStored = true;
        return;
    }
    const QString path = m_scratch.filePath(QStringLiteral("manifest.json"));
    QFile file(path);
    if (!m_scratch.isValid() || !file.open(QIODevice::WriteOnly) ||
        file.write(m_manifestJson) != m_manifestJson.size()) {
        fail(Error::make(ErrorCode::IoError,
                         QStringLiteral("cannot write the dataset manifest to %1").arg(path)));
        return;
    }
    file.close();
    m_manifestUpload = new BlobUpload(m_client, path, m_manifestSha256);
    connect(m_manifestUpload, &BlobUpload::finished, this, [this] {
        if (isFinished())
            return;
        if (!m_manifestUpload->result()) {
            fail(m_manifestUpload->result().error());
            return;
        }
        m_manifestStored = true;
        sendFiles();
    });
    m_manifestUpload->start();
}

void DatasetUpload::nameDataset()
{
    if (m_name.isEmpty()) {
        succeed();
        return;
    }
    if (!m_client) {
        fail(Error::make(ErrorCode::Aborted,
                         QStringLiteral("the connection to the server was closed")));
        return;
    }
    ApiRequest *request = m_collection == Collection::Images
                              ? m_client->createImage(m_name, m_manifestSha256)
                              : m_client->createDataset(m_name, m_manifestSha256);
    connect(request, &ApiRequest::finished, this, [this, request] {
        request->deleteLater();
        if (isFinished())
            return;
        if (!request->result()) {
            fail(request->result().error());
            return;
        }
        m_dataset = request->result()->json();
        succeed();
    });
}

void DatasetUpload::reportProgress()
{
    qint64 done = m_bytesSent;
    for (const qint64 sent : std::as_const(m_running))
        done += sent;
    emit progress(m_clock.at(std::min(done, m_bytesToSend), m_bytesToSend));
}

void DatasetUpload::fail(const Error &error)
{
    for (BlobUpload *upload : m_running.keys()) {
        upload->disconnect(this);
        upload->cancel();
        upload->deleteLater();
    }
    m_running.clear();
    for (BlobBatchUpload *batch : std::as_const(m_runningBatches)) {
        batch->disconnect(this);
        batch->deleteLater();
    }
    m_runningBatches.clear();
    if (m_manifestUpload) {
        m_manifestUpload->disconnect(this);
        m_manifestUpload->cancel();
    }
    m_result = error;
    emit finished();
}

void DatasetUpload::succeed()
{
    m_result = m_manifestSha256;
    emit finished();
}

} // namespace ddl
