// The blob and dataset cache, on files already in it (no server: its URL leads nowhere).
#include "api/apiclient.h"
#include "cache/blobcache.h"
#include "core/sha256.h"
#include "packaging/directoryarchiver.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

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

private:
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

QTEST_GUILESS_MAIN(tst_BlobCache)
#include "tst_blobcache.moc"
