// The blob and dataset cache, on files already in it (no server: its URL leads nowhere).
// tst_datasetcache fetches manifest datasets from a real server.
#include "api/apiclient.h"
#include "cache/blobcache.h"
#include "core/sha256.h"
#include "packaging/datasetmanifest.h"
#include "packaging/directoryarchiver.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace ddl::worker;

namespace {

void writeFile(const QString &path, const QByteArray &content)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Sets a file's last use, as the cache records it, to secondsAgo before now.
void setLastUse(const QString &path, int secondsAgo)
{
    const struct timespec now = {time(nullptr) - secondsAgo, 0};
    const struct timespec times[2] = {now, now};
    QCOMPARE(::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), times, 0), 0);
}

struct stat statOf(const QString &path)
{
    struct stat info = {};
    ::stat(QFile::encodeName(path).constData(), &info);
    return info;
}

} // namespace

class tst_BlobCache : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cachedBlobNeedsNoServer();
    void missingBlobAsksTheServer();
    void datasetExtractedOnceAndShared();
    void corruptDatasetIsAnError();
    void callbackDroppedWithItsContext();
    void manifestDatasetFromCachedBlobs();
    void halfMadeLayoutIsRemovedAndRedone();
    void evictsLeastRecentlyUsedUnpinnedBlobs();
    void extractedDatasetsAreEvictedToo();

private:
    // Puts the files of a small dataset and its manifest into the blob cache; returns the
    // manifest's digest.
    QString cacheManifestDataset();
    // Puts a blob of size bytes of fill into the cache; returns its path.
    QString cacheBlob(char fill, int size);
    // Puts an archive of a small dataset into the blob cache and returns its digest.
    QString cacheDatasetArchive();

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ddl::ApiClient> m_client;
    std::unique_ptr<BlobCache> m_cache;
};

void tst_BlobCache::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_client = std::make_unique<ddl::ApiClient>(QUrl(u"http://127.0.0.1:1"_s));
    m_client->setTimeoutMs(5000);
    m_cache = std::make_unique<BlobCache>(m_client.get(), m_dir->filePath(u"cache"_s));
    m_cache->setTransientRetries(0); // an unreachable server fails a fetch at once here
}

QString tst_BlobCache::cacheDatasetArchive()
{
    const QString source = m_dir->filePath(u"source"_s);
    writeFile(source + u"/iris.csv"_s, "5.1,3.5,1.4,0.2,setosa\n");
    writeFile(source + u"/more/notes.txt"_s, "a note\n");
    const ddl::Result<ddl::ArchiveInfo> archive =
        ddl::DirectoryArchiver().archive(source, m_dir->filePath(u"dataset.tar.zst"_s));
    if (!archive)
        return {};
    QFile::copy(archive->archivePath, m_cache->blobPath(archive->sha256));
    return archive->sha256;
}

void tst_BlobCache::cachedBlobNeedsNoServer()
{
    const QByteArray content = "package bytes";
    const QString path = m_dir->filePath(u"blob"_s);
    writeFile(path, content);
    const QString sha = *ddl::sha256OfFile(path);
    QVERIFY(QFile::copy(path, m_cache->blobPath(sha)));

    std::optional<ddl::Result<QString>> result;
    m_cache->fetchBlob(sha, this, [&](const ddl::Result<QString> &r) { result = r; });
    QVERIFY(!result); // never from inside the call
    QTRY_VERIFY(result.has_value());
    QVERIFY(result->ok());
    QCOMPARE(**result, m_cache->blobPath(sha));
    QCOMPARE(readFile(**result), content);
}

void tst_BlobCache::missingBlobAsksTheServer()
{
    const QString sha = QString(64, u'b');
    std::optional<ddl::Result<QString>> first, second;
    m_cache->fetchBlob(sha, this, [&](const ddl::Result<QString> &r) { first = r; });
    m_cache->fetchBlob(sha, this, [&](const ddl::Result<QString> &r) { second = r; });
    QTRY_VERIFY_WITH_TIMEOUT(first.has_value() && second.has_value(), 10000);
    QVERIFY(!first->ok());
    QCOMPARE(first->error().code, u"unreachable"_s);
    QCOMPARE(second->error().code, u"unreachable"_s);
    QVERIFY(!QFile::exists(m_cache->blobPath(sha)));

    std::optional<ddl::Result<QString>> bad;
    m_cache->fetchBlob(
        u"../../etc/passwd"_s, this, [&](const ddl::Result<QString> &r) { bad = r; });
    QTRY_VERIFY(bad.has_value());
    QVERIFY(!bad->ok());
}

void tst_BlobCache::datasetExtractedOnceAndShared()
{
    const QString sha = cacheDatasetArchive();
    QVERIFY(!sha.isEmpty());

    std::optional<ddl::Result<QString>> first, second;
    m_cache->fetchDataset(sha, this, [&](const ddl::Result<QString> &r) { first = r; });
    m_cache->fetchDataset(sha, this, [&](const ddl::Result<QString> &r) { second = r; });
    QTRY_VERIFY_WITH_TIMEOUT(first.has_value() && second.has_value(), 10000);
    QVERIFY2(first->ok(), first->ok() ? "" : qPrintable(first->error().message));
    QVERIFY(second->ok());
    QCOMPARE(**first, m_cache->datasetPath(sha));
    QCOMPARE(**second, **first);
    QCOMPARE(readFile(**first + u"/iris.csv"_s), QByteArray("5.1,3.5,1.4,0.2,setosa\n"));
    QCOMPARE(readFile(**first + u"/more/notes.txt"_s), QByteArray("a note\n"));
    // Only the extracted folder is kept, and nothing half-made lies beside it.
    QVERIFY(!QFile::exists(m_cache->blobPath(sha)));
    QCOMPARE(QDir(m_dir->filePath(u"cache/datasets"_s))
                 .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{sha});

    // A later task reuses the folder as it is.
    writeFile(**first + u"/marker"_s, "still here");
    std::optional<ddl::Result<QString>> third;
    m_cache->fetchDataset(sha, this, [&](const ddl::Result<QString> &r) { third = r; });
    QTRY_VERIFY(third.has_value());
    QVERIFY(third->ok());
    QCOMPARE(readFile(**third + u"/marker"_s), QByteArray("still here"));
}

void tst_BlobCache::corruptDatasetIsAnError()
{
    const QByteArray garbage = "this is not an archive at all";
    const QString path = m_dir->filePath(u"garbage"_s);
    writeFile(path, garbage);
    const QString sha = *ddl::sha256OfFile(path);
    QVERIFY(QFile::copy(path, m_cache->blobPath(sha)));

    std::optional<ddl::Result<QString>> result;
    m_cache->fetchDataset(sha, this, [&](const ddl::Result<QString> &r) { result = r; });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
    QVERIFY(!result->ok());
    QVERIFY2(result->error().message.contains(u"cannot extract dataset"),
             qPrintable(result->error().message));
    QVERIFY(!QFileInfo::exists(m_cache->datasetPath(sha)));
}

void tst_BlobCache::callbackDroppedWithItsContext()
{
    const QString sha = cacheDatasetArchive();
    bool called = false;
    auto *context = new QObject;
    m_cache->fetchDataset(sha, context, [&](const ddl::Result<QString> &) { called = true; });
    delete context;
    // The extraction itself still completes for later tasks.
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(m_cache->datasetPath(sha)).isDir(), 10000);
    QTest::qWait(50);
    QVERIFY(!called);
}

QString tst_BlobCache::cacheManifestDataset()
{
    const QString source = m_dir->filePath(u"manifest-source"_s);
    writeFile(source + u"/iris.csv"_s, "5.1,3.5,1.4,0.2,setosa\n");
    writeFile(source + u"/more/notes.txt"_s, "a note\n");
    const ddl::Result<ddl::DatasetManifest> manifest = ddl::DatasetManifest::scan(source);
    if (!manifest)
        return {};
    for (const ddl::ManifestFile &file : manifest->files())
        QFile::copy(source + u'/' + file.path, m_cache->blobPath(file.sha256));
    const QString json = m_dir->filePath(u"manifest.json"_s);
    writeFile(json, manifest->toJson());
    const QString sha = *ddl::sha256OfFile(json);
    QFile::copy(json, m_cache->blobPath(sha));
    return sha;
}

QString tst_BlobCache::cacheBlob(char fill, int size)
{
    const QByteArray content(size, fill);
    const QString path = m_dir->filePath(u"blob-"_s + QLatin1Char(fill));
    writeFile(path, content);
    const QString blob = m_cache->blobPath(*ddl::sha256OfFile(path));
    QFile::copy(path, blob);
    return blob;
}

void tst_BlobCache::manifestDatasetFromCachedBlobs()
{
    const QString sha = cacheManifestDataset();
    QVERIFY(!sha.isEmpty());
    std::optional<ddl::Result<QString>> result;
    m_cache->fetchManifestDataset(sha, this, [&](const ddl::Result<QString> &r) { result = r; });
    QVERIFY(!result);
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
    QVERIFY2(result->ok(), result->ok() ? "" : qPrintable(result->error().message));
    QCOMPARE(**result, m_dir->filePath(u"cache/datasets/m-"_s + sha));
    const QString notes = **result + u"/more/notes.txt"_s;
    QCOMPARE(readFile(notes), QByteArray("a note\n"));
    QCOMPARE(statOf(notes).st_ino, statOf(m_cache->blobPath(*ddl::sha256OfFile(notes))).st_ino);
    QCOMPARE(statOf(notes).st_nlink, nlink_t(2));
    QCOMPARE(statOf(notes).st_mode & 07777, mode_t(0444));

    std::optional<ddl::Result<QString>> bad;
    m_cache->fetchManifestDataset(u"../x"_s, this, [&](const ddl::Result<QString> &r) { bad = r; });
    QTRY_VERIFY(bad.has_value());
    QVERIFY(!bad->ok());
}

void tst_BlobCache::halfMadeLayoutIsRemovedAndRedone()
{
    const QString sha = cacheManifestDataset();
    QVERIFY(!sha.isEmpty());
    // A worker killed while it laid the dataset out left this behind.
    const QString partial = m_dir->filePath(u"cache/datasets/.partial-m-"_s + sha + u"-dead"_s);
    writeFile(partial + u"/iris.csv"_s, "5.1,3.5");
    QVERIFY(!QFileInfo::exists(m_cache->manifestDatasetPath(sha)));

    // The next worker over the same folder cleans it up and lays the dataset out whole.
    m_cache.reset();
    m_cache = std::make_unique<BlobCache>(m_client.get(), m_dir->filePath(u"cache"_s));
    m_cache->setTransientRetries(0);
    QVERIFY(!QFileInfo::exists(partial));
    std::optional<ddl::Result<QString>> result;
    m_cache->fetchManifestDataset(sha, this, [&](const ddl::Result<QString> &r) { result = r; });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
    QVERIFY2(result->ok(), result->ok() ? "" : qPrintable(result->error().message));
    QCOMPARE(readFile(**result + u"/iris.csv"_s), QByteArray("5.1,3.5,1.4,0.2,setosa\n"));
    QCOMPARE(readFile(**result + u"/more/notes.txt"_s), QByteArray("a note\n"));
    QCOMPARE(QDir(m_dir->filePath(u"cache/datasets"_s))
                 .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{u"m-"_s + sha});
}

void tst_BlobCache::evictsLeastRecentlyUsedUnpinnedBlobs()
{
    const QString a = cacheBlob('a', 1000);
    const QString b = cacheBlob('b', 1000);
    const QString c = cacheBlob('c', 1000);
    const QString d = cacheBlob('d', 1000);
    setLastUse(a, 400);
    setLastUse(b, 300);
    setLastUse(c, 200);
    setLastUse(d, 100);
    QCOMPARE(m_cache->usage(), qint64(4000));
    // No limit (the default): nothing goes.
    QVERIFY(m_cache->trim().isEmpty());

    // A task uses a (a cache hit counts as a use) and holds b.
    std::optional<ddl::Result<QString>> used;
    m_cache->fetchBlob(QFileInfo(a).fileName(), this, [&](const auto &r) { used = r; });
    QTRY_VERIFY(used.has_value());
    m_cache->pin(u"task:1"_s, {QFileInfo(b).fileName()});

    m_cache->setSizeLimit(2500);
    const QList<CacheJanitor::Eviction> evicted = m_cache->trim();
    QCOMPARE(evicted.size(), 2);
    QCOMPARE(evicted.at(0).path, c); // least recently used, and not pinned
    QCOMPARE(evicted.at(1).path, d);
    QVERIFY(QFile::exists(a));
    QVERIFY(QFile::exists(b)); // older than c and d, but pinned
    QCOMPARE(m_cache->usage(), qint64(2000));

    // Making room for more before a fetch: b stays pinned whatever the need.
    QCOMPARE(m_cache->trim(2000).size(), 1);
    QVERIFY(!QFile::exists(a));
    QVERIFY(QFile::exists(b));
    m_cache->unpin(u"task:1"_s);
    QCOMPARE(m_cache->trim(2000).size(), 1);
    QVERIFY(!QFile::exists(b));
}

void tst_BlobCache::extractedDatasetsAreEvictedToo()
{
    const QString sha = cacheDatasetArchive();
    std::optional<ddl::Result<QString>> result;
    m_cache->fetchDataset(sha, this, [&](const ddl::Result<QString> &r) { result = r; });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 10000);
    QVERIFY(result->ok());
    setLastUse(**result, 500);
    const QString blob = cacheBlob('x', 100);
    // The blob, iris.csv and more/notes.txt.
    QCOMPARE(m_cache->usage(), qint64(100 + strlen("5.1,3.5,1.4,0.2,setosa\n") + 7));

    m_cache->setSizeLimit(100);
    m_cache->pin(u"task:1"_s, {sha, QFileInfo(blob).fileName()});
    QVERIFY(m_cache->trim().isEmpty());
    m_cache->unpin(u"task:1"_s);
    const QList<CacheJanitor::Eviction> evicted = m_cache->trim();
    QCOMPARE(evicted.size(), 1);
    QCOMPARE(evicted.first().path, m_cache->datasetPath(sha));
    QVERIFY(!QFileInfo::exists(m_cache->datasetPath(sha)));
    QVERIFY(QFile::exists(blob));
}

QTEST_GUILESS_MAIN(tst_BlobCache)
#include "tst_blobcache.moc"
