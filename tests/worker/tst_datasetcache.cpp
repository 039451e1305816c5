// Manifest datasets in the worker's cache against the real ddl-server binary (a process over TLS
// on loopback): the test uploads datasets as a user, submits jobs on them, leases the tasks as
// an enrolled worker and fetches through a BlobCache with that worker's credentials, as the
// worker's task runner does. Counts of server fetches come from the cache's own log.
#include "api/apiclient.h"
#include "cache/blobcache.h"
#include "polluntil.h"
#include "serverprocess.h"
#include "serveruser.h"
#include "wire/tasklease.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace ddl::worker;
using ddl::TaskLease;

#define VERIFY_OK(result) QVERIFY2((result), (result) ? "" : qPrintable((result).error().message))

namespace {

QStringList s_cacheMessages;
QtMessageHandler s_nextHandler = nullptr;

void recordCacheMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (context.category && QByteArrayView(context.category) == "ddl.worker.cache")
        s_cacheMessages.append(message);
    s_nextHandler(type, context, message);
}

// Blobs the cache asked the server for since the last clear.
QStringList fetchedBlobs()
{
    QStringList blobs;
    for (const QString &message : std::as_const(s_cacheMessages)) {
        if (message.startsWith(u"fetching blob"))
            blobs << message.section(u' ', 2, 2).remove(u'"'); // QDebug quotes strings
    }
    return blobs;
}

struct stat statOf(const QString &path)
{
    struct stat info = {};
    ::stat(QFile::encodeName(path).constData(), &info);
    return info;
}

void writeFile(const QString &path, const QByteArray &content)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(content), content.size());
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString sha256Of(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

} // namespace

class tst_DatasetCache : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void laysOutHardLinksToTheCachedBlobs();
    void secondTaskReusesTheFolder();
    void changedDatasetFetchesOnlyTheChangedFile();
    void fetchesAFewBlobsAtOnce();
    void evictionKeepsWhatARunningTaskPinned();

private:
    // Uploads folder as a manifest dataset, submits a job on it and leases its task as the
    // worker; returns the lease's dataset_manifest.
    QString leaseTaskOn(const QString &folder);
    ddl::Result<QString> fetch(const QString &manifest);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ServerProcess> m_server;
    std::unique_ptr<ServerUser> m_user;
    std::unique_ptr<ddl::ApiClient> m_worker;
    std::unique_ptr<BlobCache> m_cache;
    QString m_package;
    int m_jobs = 0;
};

void tst_DatasetCache::initTestCase()
{
    s_nextHandler = qInstallMessageHandler(recordCacheMessage);
}

void tst_DatasetCache::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_server = std::make_unique<ServerProcess>(m_dir->filePath(u"server"_s));
    const QString started = m_server->start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    m_user = std::make_unique<ServerUser>(
        m_server->url(), m_server->caFile(), m_dir->filePath(u"uploads"_s));
    const ddl::Status registered = m_user->registerAndLogin(u"alice@example.org"_s);
    VERIFY_OK(registered);
    // Tasks are leased, never run: any blob serves as their code.
    const ddl::Result<QString> package = m_user->upload("not really a package");
    VERIFY_OK(package);
    m_package = *package;

    const ddl::Result<ddl::ServerTrust> trust = ddl::ServerTrust::fromCaFile(m_server->caFile());
    VERIFY_OK(trust);
    m_worker = std::make_unique<ddl::ApiClient>(m_server->url(), *trust);
    const ddl::Result<ddl::ApiResponse> enrolled = m_worker->postJsonSync(
        u"/v1/workers/enroll"_s,
        {{u"enroll_token"_s, ServerProcess::createEnrollToken(m_server->dataDir())},
         {u"name"_s, u"cache-worker"_s},
         {u"hostname"_s, QSysInfo::machineHostName()},
         {u"cpus"_s, 16},
         {u"memory_mb"_s, 65536},
         {u"gpus"_s, 0},
         {u"slots"_s, 16}});
    VERIFY_OK(enrolled);
    m_worker->setBearerToken(enrolled->json().value(u"worker_token"_s).toString());
    m_cache = std::make_unique<BlobCache>(m_worker.get(), m_dir->filePath(u"work/cache"_s));
    s_cacheMessages.clear();
}

void tst_DatasetCache::cleanup()
{
    m_cache.reset();
    m_worker.reset();
    m_user.reset();
    if (m_server && QTest::currentTestFailed())
        qWarning("ddl-server's log:\n%s", qUtf8Printable(m_server->log()));
    m_server.reset();
}

QString tst_DatasetCache::leaseTaskOn(const QString &folder)
{
    const ddl::Result<QString> manifest = m_user->uploadDataset(folder);
    if (!manifest) {
        qWarning("upload of %s: %s", qPrintable(folder), qPrintable(manifest.error().message));
        return {};
    }
    const ddl::Result<QString> uuid = m_user->submitWithDataset(
        jobSpec(u"ddl"_s, u"job-%1"_s.arg(++m_jobs)), m_package, {{u"manifest"_s, *manifest}});
    if (!uuid) {
        qWarning("submit: %s", qPrintable(uuid.error().message));
        return {};
    }
    // The scheduler places the task within moments; the lease hands it over once.
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 10000) {
        const ddl::Result<ddl::ApiResponse> answer =
            m_worker->postJsonSync(u"/v1/workers/lease"_s, {});
        if (!answer) {
            qWarning("lease: %s", qPrintable(answer.error().message));
            return {};
        }
        const QJsonArray tasks = answer->json().value(u"tasks"_s).toArray();
        if (!tasks.isEmpty()) {
            const ddl::Result<TaskLease> lease = TaskLease::fromJson(tasks.first().toObject());
            if (!lease || lease->jobUuid != *uuid) {
                qWarning("unexpected lease: %s",
                         qPrintable(lease ? lease->jobUuid : lease.error().message));
                return {};
            }
            if (lease->datasetManifest != *manifest)
                qWarning("the lease names manifest %s", qPrintable(lease->datasetManifest));
            return lease->datasetManifest;
        }
        QTest::qWait(50);
    }
    qWarning("job %s was never leased", qPrintable(*uuid));
    return {};
}

ddl::Result<QString> tst_DatasetCache::fetch(const QString &manifest)
{
    std::optional<ddl::Result<QString>> result;
    m_cache->fetchManifestDataset(
        manifest, this, [&](const ddl::Result<QString> &r) { result = r; });
    if (!pollUntil([&] { return result.has_value(); }, 30000, {}, 10))
        return ddl::Error::make(ddl::ErrorCode::Timeout, u"the dataset did not arrive in 30 s"_s);
    return *result;
}

void tst_DatasetCache::laysOutHardLinksToTheCachedBlobs()
{
    const QString source = m_dir->filePath(u"iris"_s);
    writeFile(source + u"/iris.csv"_s, "5.1,3.5,1.4,0.2,setosa\n");
    writeFile(source + u"/more/notes.txt"_s, "a note\n");
    writeFile(source + u"/same-as-notes.txt"_s, "a note\n");
    writeFile(source + u"/prepare.sh"_s, "#!/bin/sh\necho ready\n");
    QVERIFY(QFile::setPermissions(source + u"/prepare.sh"_s,
                                  QFile::permissions(source + u"/prepare.sh"_s) |
                                      QFileDevice::ExeOwner));
    const QString manifest = leaseTaskOn(source);
    QVERIFY(!manifest.isEmpty());

    const ddl::Result<QString> folder = fetch(manifest);
    VERIFY_OK(folder);
    QCOMPARE(*folder, m_cache->manifestDatasetPath(manifest));
    QCOMPARE(*folder, m_dir->filePath(u"work/cache/datasets/m-"_s + manifest));
    // The manifest and three distinct file blobs, each fetched once (the two notes are one).
    QCOMPARE(fetchedBlobs().size(), 4);
    QCOMPARE(fetchedBlobs().count(manifest), 1);

    for (const QString &path : {u"iris.csv"_s, u"more/notes.txt"_s, u"same-as-notes.txt"_s}) {
        const QString file = *folder + u'/' + path;
        const QString blob = m_cache->blobPath(sha256Of(readFile(source + u'/' + path)));
        QCOMPARE(readFile(file), readFile(source + u'/' + path));
        const struct stat linked = statOf(file);
        QCOMPARE(linked.st_ino, statOf(blob).st_ino); // the blob itself, not a copy
        QVERIFY(linked.st_nlink >= 2);
        QCOMPARE(linked.st_mode & 07777, mode_t(0444)); // nobody changes a cached blob in place
    }
    QCOMPARE(statOf(*folder + u"/more/notes.txt"_s).st_nlink, nlink_t(3));
    // An executable file is a copy: a link would make its blob executable for every dataset.
    const QString script = *folder + u"/prepare.sh"_s;
    QVERIFY(QFileInfo(script).isExecutable());
    QCOMPARE(statOf(script).st_nlink, nlink_t(1));
    QCOMPARE(readFile(script), QByteArray("#!/bin/sh\necho ready\n"));
    QCOMPARE(statOf(m_cache->blobPath(sha256Of(readFile(script)))).st_mode & 07777, mode_t(0444));
    // Nothing half-made is left beside it.
    QCOMPARE(QDir(m_dir->filePath(u"work/cache/datasets"_s))
                 .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{u"m-"_s + manifest});
}

void tst_DatasetCache::secondTaskReusesTheFolder()
{
    const QString source = m_dir->filePath(u"numbers"_s);
    writeFile(source + u"/numbers.txt"_s, "1 2 3\n");
    writeFile(source + u"/deep/er/more.txt"_s, "4 5\n");
    const QString manifest = leaseTaskOn(source);
    QVERIFY(!manifest.isEmpty());
    const ddl::Result<QString> first = fetch(manifest);
    VERIFY_OK(first);
    QCOMPARE(fetchedBlobs().size(), 3);
    const struct stat before = statOf(*first + u"/deep/er/more.txt"_s);

    // A second job on the same files: the same manifest, the folder as it is.
    s_cacheMessages.clear();
    QCOMPARE(leaseTaskOn(source), manifest);
    QTest::qWait(20); // so that a new use shows in the modification time
    const ddl::Result<QString> second = fetch(manifest);
    VERIFY_OK(second);
    QCOMPARE(*second, *first);
    QCOMPARE(fetchedBlobs(), QStringList());
    const struct stat after = statOf(*second + u"/deep/er/more.txt"_s);
    QCOMPARE(after.st_ino, before.st_ino);
    // The use was recorded on the blob (the same inode), for the janitor's LRU order.
    QVERIFY(after.st_mtim.tv_sec * 1000000000LL + after.st_mtim.tv_nsec >
            before.st_mtim.tv_sec * 1000000000LL + before.st_mtim.tv_nsec);

    // Two fetches at once of a dataset not yet laid out share one build.
    const QString other = m_dir->filePath(u"other"_s);
    writeFile(other + u"/x.txt"_s, "x\n");
    const QString otherManifest = leaseTaskOn(other);
    QVERIFY(!otherManifest.isEmpty());
    s_cacheMessages.clear();
    std::optional<ddl::Result<QString>> a, b;
    m_cache->fetchManifestDataset(otherManifest, this, [&](const auto &r) { a = r; });
    m_cache->fetchManifestDataset(otherManifest, this, [&](const auto &r) { b = r; });
    QTRY_VERIFY_WITH_TIMEOUT(a && b, 30000);
    VERIFY_OK(*a);
    VERIFY_OK(*b);
    QCOMPARE(**a, **b);
    QCOMPARE(fetchedBlobs().size(), 2);
}

void tst_DatasetCache::changedDatasetFetchesOnlyTheChangedFile()
{
    const QString source = m_dir->filePath(u"data"_s);
    writeFile(source + u"/a.bin"_s, QByteArray(300000, 'a'));
    writeFile(source + u"/b.bin"_s, QByteArray(200000, 'b'));
    writeFile(source + u"/c.txt"_s, "version 1\n");
    const QString v1 = leaseTaskOn(source);
    QVERIFY(!v1.isEmpty());
    VERIFY_OK(fetch(v1));

    writeFile(source + u"/c.txt"_s, "version 2\n");
    const QString v2 = leaseTaskOn(source);
    QVERIFY(!v2.isEmpty());
    QVERIFY(v2 != v1);
    s_cacheMessages.clear();
    const ddl::Result<QString> folder = fetch(v2);
    VERIFY_OK(folder);
    QCOMPARE(fetchedBlobs(), (QStringList{v2, sha256Of("version 2\n")}));
    QCOMPARE(readFile(*folder + u"/c.txt"_s), QByteArray("version 2\n"));
    QCOMPARE(readFile(m_cache->manifestDatasetPath(v1) + u"/c.txt"_s), QByteArray("version 1\n"));
    // Both versions hold the one cached copy of the unchanged files.
    QCOMPARE(statOf(*folder + u"/a.bin"_s).st_ino,
             statOf(m_cache->manifestDatasetPath(v1) + u"/a.bin"_s).st_ino);
    QCOMPARE(statOf(*folder + u"/a.bin"_s).st_nlink, nlink_t(3));
}

void tst_DatasetCache::fetchesAFewBlobsAtOnce()
{
    const QString source = m_dir->filePath(u"many"_s);
    for (int i = 0; i < 12; ++i)
        writeFile(source + u"/part-%1.bin"_s.arg(i), QByteArray(100000 + i, char('a' + i)));
    const QString manifest = leaseTaskOn(source);
    QVERIFY(!manifest.isEmpty());
    const ddl::Result<QString> folder = fetch(manifest);
    VERIFY_OK(folder);
    QCOMPARE(fetchedBlobs().size(), 13);

    // The cache's log tells when each download starts and ends: never more than four of the
    // dataset's files at once, and four while there are that many left.
    int downloading = 0;
    int most = 0;
    for (const QString &message : std::as_const(s_cacheMessages)) {
        if (message.startsWith(u"fetching blob") && !message.contains(manifest))
            most = std::max(most, ++downloading);
        else if (message.startsWith(u"blob") && message.endsWith(u"cached") &&
                 !message.contains(manifest))
            --downloading;
    }
    QCOMPARE(downloading, 0);
    QCOMPARE(most, 4);
    for (int i = 0; i < 12; ++i) {
        QCOMPARE(QFileInfo(*folder + u"/part-%1.bin"_s.arg(i)).size(), 100000 + i);
        QVERIFY(statOf(*folder + u"/part-%1.bin"_s.arg(i)).st_nlink >= 2);
    }
}

void tst_DatasetCache::evictionKeepsWhatARunningTaskPinned()
{
    const QString source = m_dir->filePath(u"data"_s);
    writeFile(source + u"/shared.bin"_s, QByteArray(400000, 's'));
    writeFile(source + u"/old.bin"_s, QByteArray(300000, 'o'));
    const QString v1 = leaseTaskOn(source);
    QVERIFY(!v1.isEmpty());
    VERIFY_OK(fetch(v1));
    QFile::remove(source + u"/old.bin"_s);
    writeFile(source + u"/new.bin"_s, QByteArray(300000, 'n'));
    const QString v2 = leaseTaskOn(source);
    QVERIFY(!v2.isEmpty());
    // v2 is in use by a task, as its TaskRunner pins it, while v1's task has ended.
    m_cache->pin(u"task:2"_s, {v2});
    VERIFY_OK(fetch(v2));
    const QString oldBlob = m_cache->blobPath(sha256Of(QByteArray(300000, 'o')));
    const QString newBlob = m_cache->blobPath(sha256Of(QByteArray(300000, 'n')));
    const QString sharedBlob = m_cache->blobPath(sha256Of(QByteArray(400000, 's')));
    QVERIFY(QFile::exists(oldBlob));
    QVERIFY(m_cache->usage() >= 1000000);

    // Room for v2 alone (and its manifest), as with --cache-size 800K: v1's folder and its
    // blob old.bin go; v2's folder and blobs stay though they are older than v1's manifest.
    m_cache->setSizeLimit(800 * 1024);
    const QList<CacheJanitor::Eviction> evicted = m_cache->trim();
    QStringList paths;
    for (const CacheJanitor::Eviction &eviction : evicted)
        paths << eviction.path;
    QVERIFY2(paths.contains(m_cache->manifestDatasetPath(v1)), qPrintable(paths.join(u", ")));
    QVERIFY2(paths.contains(oldBlob), qPrintable(paths.join(u", ")));
    QVERIFY(!QFile::exists(oldBlob));
    QVERIFY(QFileInfo(m_cache->manifestDatasetPath(v2)).isDir());
    QVERIFY(QFile::exists(newBlob));
    QVERIFY(QFile::exists(sharedBlob));
    QVERIFY(m_cache->usage() <= 800 * 1024);
    QVERIFY(std::any_of(s_cacheMessages.cbegin(), s_cacheMessages.cend(), [](const QString &m) {
        return m.startsWith(u"evicted blob"_s);
    }));

    // Even a limit nothing fits under leaves the running task's data alone.
    m_cache->setSizeLimit(1);
    m_cache->trim();
    QVERIFY(QFileInfo(m_cache->manifestDatasetPath(v2)).isDir());
    QVERIFY(QFile::exists(newBlob));
    QCOMPARE(readFile(m_cache->manifestDatasetPath(v2) + u"/new.bin"_s), QByteArray(300000, 'n'));

    // v1 again (its job's task still holds it on the server): only what was evicted comes
    // back over the wire.
    m_cache->setSizeLimit(0);
    s_cacheMessages.clear();
    const ddl::Result<QString> again = fetch(v1);
    VERIFY_OK(again);
    QVERIFY2(fetchedBlobs().contains(sha256Of(QByteArray(300000, 'o'))),
             qPrintable(fetchedBlobs().join(u", ")));
    QVERIFY(!fetchedBlobs().contains(sha256Of(QByteArray(400000, 's'))));
}

QTEST_GUILESS_MAIN(tst_DatasetCache)
#include "tst_datasetcache.moc"
