// The client side of the data plane (shared/api) against the real ddl-server process over TLS:
// the local hash cache (an unchanged dataset is re-checked without reading a byte, a file
// changed in place is hashed again), and downloads verified as they arrive (a blob corrupted on
// the server is refused, and nothing is left under the file's name); batches of small files sent
// at once, and a resumed download that hashes its part without stalling the caller's event loop.
#include "serverprocess.h"
#include "serveruser.h"

#include "api/apiclient.h"
#include "api/blobbatchupload.h"
#include "api/datasetdownload.h"
#include "api/datasetupload.h"
#include "api/filehashcache.h"
#include "api/rangedownload.h"
#include "core/sha256.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <sys/resource.h>

using namespace ddl;
using namespace Qt::Literals::StringLiterals;

class tst_DatasetClient : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void unchangedDatasetIsCheckedWithoutReadingIt();
    void fileChangedInPlaceIsHashedAgain();
    void cacheFilesOfTwoRunsMerge();
    void cacheFileIsReadBackWhateverItsLines();
    void corruptedBlobOnTheServerIsRefused_data();
    void corruptedBlobOnTheServerIsRefused();
    void smallFilesTravelInBatches();
    void blobsLostOnTheServerAreStoredAgain();
    void filesAreSentWhileTheRestIsHashed();
    void batchesAtOnceWithAWrongDigestLoseNothing();
    void resumedDownloadKeepsTheEventLoopResponsive();
    void downloadThatCannotWriteStopsThenResumesWhereItsFileEnds();

private:
    // A new account on the test's server, logged in (tests/support/serveruser.h).
    std::unique_ptr<ApiClient> login(const QString &email, QString *token = nullptr)
    {
        return loggedInClient(m_server->url(), m_trust, email, token);
    }
    // Writes bytes and dates the file an hour back (a file written this second is not cached).
    bool writeFile(const QString &path, const QByteArray &bytes, int minutesAgo = 60);
    struct Uploaded
    {
        QString manifest;
        qint64 bytesHashed = -1;
        int filesSent = -1;
        int batchesSent = -1;
    };
    Uploaded upload(const QString &folder, const QString &name);
    // Which of digests the server says the client lacks.
    QStringList missing(const QStringList &digests);
    // Downloads dataset name into "<name>-copy": empty when it holds files, byte for byte, else
    // what differs.
    QString downloadDiffers(const QString &name, const QMap<QString, QByteArray> &files);

    QTemporaryDir m_dir;
    std::unique_ptr<ServerProcess> m_server;
    ServerTrust m_trust;
    std::unique_ptr<ApiClient> m_client;
    QString m_cache;
};

void tst_DatasetClient::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_server = std::make_unique<ServerProcess>(m_dir.filePath(u"server"_s));
    const QString started = m_server->start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    Result<ServerTrust> trust = ServerTrust::fromCaFile(m_server->caFile());
    QVERIFY(trust);
    m_trust = *trust;
    m_client = login(u"dora@example.org"_s);
    QVERIFY(m_client);
    m_cache = m_dir.filePath(u"cache/file-hashes"_s);
}

void tst_DatasetClient::cleanupTestCase()
{
    m_client.reset();
    if (m_server)
        m_server->stop();
}

bool tst_DatasetClient::writeFile(const QString &path, const QByteArray &bytes, int minutesAgo)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.flush())
        return false; // flushed first: a write at close would set the time to now
    return file.setFileTime(QDateTime::currentDateTime().addSecs(-60 * minutesAgo),
                            QFileDevice::FileModificationTime);
}

tst_DatasetClient::Uploaded tst_DatasetClient::upload(const QString &folder, const QString &name)
{
    DatasetUpload dataset(m_client.get(), folder);
    dataset.setName(name);
    dataset.setHashCachePath(m_cache);
    dataset.start();
    const Result<QString> &manifest = dataset.waitForFinished();
    if (!manifest) {
        qWarning("upload failed: %s", qPrintable(manifest.error().message));
        return {};
    }
    return {*manifest, dataset.bytesHashed(), dataset.filesToSend(), dataset.batchesSent()};
}

QString tst_DatasetClient::downloadDiffers(const QString &name,
                                           const QMap<QString, QByteArray> &files)
{
    const QString destination = m_dir.filePath(name + u"-copy"_s);
    DatasetDownload download(m_client.get(), name, destination);
    download.start();
    const Result<QString> &result = download.waitForFinished();
    if (!result)
        return u"download failed: "_s + result.error().message;
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        QFile copy(destination + u'/' + it.key());
        if (!copy.open(QIODevice::ReadOnly))
            return u"cannot read "_s + copy.fileName();
        if (copy.readAll() != it.value())
            return copy.fileName() + u" differs from what was uploaded"_s;
    }
    return {};
}

QStringList tst_DatasetClient::missing(const QStringList &digests)
{
    std::unique_ptr<ApiRequest> request(m_client->missingBlobs(digests));
    const Result<ApiResponse> &answer = request->waitForFinished();
    if (!answer)
        return {u"(the query failed)"_s};
    QStringList result;
    for (const QJsonValue &digest : answer->json().value("missing"_L1).toArray())
        result.append(digest.toString());
    return result;
}

void tst_DatasetClient::unchangedDatasetIsCheckedWithoutReadingIt()
{
    const QString folder = m_dir.filePath(u"same"_s);
    qint64 total = 0;
    for (int i = 0; i < 4; ++i) {
        const QByteArray bytes((i + 1) * 300'000, char('a' + i));
        QVERIFY(writeFile(u"%1/part-%2.bin"_s.arg(folder).arg(i), bytes));
        total += bytes.size();
    }
    const Uploaded first = upload(folder, u"same"_s);
    QVERIFY(!first.manifest.isEmpty());
    QCOMPARE(first.bytesHashed, total);
    QCOMPARE(first.filesSent, 4);

    const qint64 readBefore = FileHashCache::totalBytesHashed();
    const Uploaded again = upload(folder, u"same"_s);
    QCOMPARE(again.manifest, first.manifest);
    QCOMPARE(again.bytesHashed, 0);
    QCOMPARE(again.filesSent, 0);
    QCOMPARE(FileHashCache::totalBytesHashed(), readBefore);
}

void tst_DatasetClient::fileChangedInPlaceIsHashedAgain()
{
    const QString folder = m_dir.filePath(u"changing"_s);
    QVERIFY(writeFile(folder + u"/a.bin"_s, QByteArray(500'000, 'a')));
    QVERIFY(writeFile(folder + u"/b.bin"_s, QByteArray(700'000, 'b')));
    const Uploaded first = upload(folder, u"changing"_s);
    QVERIFY(!first.manifest.isEmpty());

    // Same size, other bytes, a newer time stamp (still in the past): only b.bin is read.
    QVERIFY(writeFile(folder + u"/b.bin"_s, QByteArray(700'000, 'c'), 30));
    const Uploaded changed = upload(folder, u"changing"_s);
    QVERIFY(!changed.manifest.isEmpty());
    QVERIFY(changed.manifest != first.manifest);
    QCOMPARE(changed.bytesHashed, 700'000);
    QCOMPARE(changed.filesSent, 1);

    // A file written this second is read every time: its entry could go stale unseen.
    QVERIFY(writeFile(folder + u"/a.bin"_s, QByteArray(500'000, 'd'), 0));
    QCOMPARE(upload(folder, u"changing"_s).bytesHashed, 500'000);
    QCOMPARE(upload(folder, u"changing"_s).bytesHashed, 500'000);
}

void tst_DatasetClient::cacheFilesOfTwoRunsMerge()
{
    const QString path = m_dir.filePath(u"merge/file-hashes"_s);
    QVERIFY(writeFile(m_dir.filePath(u"merge/x"_s), "x"));
    QVERIFY(writeFile(m_dir.filePath(u"merge/y"_s), "y"));
    // Two runs that loaded the cache when it was empty each learn one file, then save.
    FileHashCache one(path);
    FileHashCache two(path);
    QVERIFY(one.sha256(m_dir.filePath(u"merge/x"_s)));
    QVERIFY(two.sha256(m_dir.filePath(u"merge/y"_s)));
    QVERIFY(one.save());
    QVERIFY(two.save());
    FileHashCache later(path);
    QVERIFY(later.sha256(m_dir.filePath(u"merge/x"_s)));
    QVERIFY(later.sha256(m_dir.filePath(u"merge/y"_s)));
    QCOMPARE(later.bytesHashed(), 0);
    QCOMPARE(later.hits(), 2);
}

// The cache file is read whole and cut into lines by hand: paths with spaces, a damaged line
// and a last line without its line break must read back as they did through readLine.
void tst_DatasetClient::cacheFileIsReadBackWhateverItsLines()
{
    const QString path = m_dir.filePath(u"lines/file-hashes"_s);
    const QStringList files{m_dir.filePath(u"lines/with space/a b.txt"_s),
                            m_dir.filePath(u"lines/plain"_s),
                            m_dir.filePath(u"lines/été"_s)};
    for (const QString &file : files)
        QVERIFY(writeFile(file, file.toUtf8()));
    {
        FileHashCache first(path);
        for (const QString &file : files)
            QVERIFY(first.sha256(file));
        QVERIFY(first.save());
    }
    QFile cache(path);
    QVERIFY(cache.open(QIODevice::ReadOnly));
    QByteArray lines = cache.readAll();
    cache.close();
    QCOMPARE(lines.count('\n'), files.size());
    lines.chop(1); // the last line without its line break
    lines.prepend("damaged line\n" + QByteArray(64, 'a') + " 1 2\n");
    QVERIFY(cache.open(QIODevice::WriteOnly | QIODevice::Truncate));
    cache.write(lines);
    cache.close();

    FileHashCache later(path);
    for (const QString &file : files)
        QVERIFY(later.sha256(file));
    QCOMPARE(later.bytesHashed(), 0);
    QCOMPARE(later.hits(), int(files.size()));
}

void tst_DatasetClient::corruptedBlobOnTheServerIsRefused_data()
{
    QTest::addColumn<qint64>("size");
    QTest::addColumn<qint64>("corruptAt");
    QTest::newRow("3 MiB, hashed as it arrives") << qint64(3 << 20) << qint64(2 << 20);
    // Over RangeDownload's 4 MiB: hashed on a second thread while the rest arrives; the last
    // byte is the one changed, so the check must wait for every piece.
    QTest::newRow("40 MiB, hashed on its own thread") << qint64(40 << 20) << qint64((40 << 20) - 1);
}

void tst_DatasetClient::corruptedBlobOnTheServerIsRefused()
{
    QFETCH(qint64, size);
    QFETCH(qint64, corruptAt);
    const QString name = u"tocorrupt%1"_s.arg(size);
    const QString folder = m_dir.filePath(name);
    QByteArray bytes(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < bytes.size(); ++i)
        bytes[i] = char(i * 7 + (i >> 10));
    QVERIFY(writeFile(folder + u"/weights.bin"_s, bytes));
    QVERIFY(!upload(folder, name).manifest.isEmpty());

    // Intact, it comes back identical.
    const QString destination = m_dir.filePath(name + u"-copy"_s);
    {
        DatasetDownload intact(m_client.get(), name, destination);
        intact.start();
        const Result<QString> &result = intact.waitForFinished();
        QVERIFY2(result, result ? "" : qPrintable(result.error().message));
        QFile copy(destination + u"/weights.bin"_s);
        QVERIFY(copy.open(QIODevice::ReadOnly));
        QVERIFY(copy.readAll() == bytes);
    }
    QVERIFY(QDir(destination).removeRecursively());

    // The blob's bytes change on the server's disk (same size): the download must notice.
    const QString sha =
        QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    QFile blob(m_server->dataDir() + u"/blobs/"_s + sha.left(2) + u'/' + sha);
    QVERIFY2(blob.open(QIODevice::ReadWrite), qPrintable(blob.fileName()));
    QVERIFY(blob.seek(corruptAt));
    QCOMPARE(blob.write(bytes.at(corruptAt) == 'X' ? "Y" : "X"), 1);
    blob.close();

    DatasetDownload download(m_client.get(), name, destination);
    download.start();
    const Result<QString> &result = download.waitForFinished();
    QVERIFY(!result);
    QVERIFY2(result.error().is(ErrorCode::DigestMismatch), qPrintable(result.error().message));
    QVERIFY2(result.error().message.contains(u"weights.bin"_s) &&
                 result.error().message.contains(u"corrupted"_s),
             qPrintable(result.error().message));
    QVERIFY(!QFile::exists(destination + u"/weights.bin"_s));
    QVERIFY(!QFile::exists(destination + u"/weights.bin.part"_s));
}

// 600 small files and one large: the small ones go in one request (POST /v1/blobs/batch), the
// large one as a resumable upload, and the dataset comes back whole and identical.
void tst_DatasetClient::smallFilesTravelInBatches()
{
    const QString folder = m_dir.filePath(u"many"_s);
    QMap<QString, QByteArray> files;
    for (int i = 0; i < 600; ++i)
        files.insert(u"part-%1/f%2.txt"_s.arg(i % 7).arg(i), QByteArray::number(i * 7919) + '\n');
    files.insert(u"big.bin"_s, QByteArray(300'000, 'z')); // over BlobBatchUpload::SmallFileBytes
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        QVERIFY(writeFile(folder + u'/' + it.key(), it.value()));
    const Uploaded first = upload(folder, u"many"_s);
    QVERIFY(!first.manifest.isEmpty());
    QCOMPARE(first.filesSent, 601);
    QCOMPARE(first.batchesSent, 1);
    QCOMPARE(upload(folder, u"many"_s).batchesSent, 0); // nothing is missing any more

    const QString differs = downloadDiffers(u"many"_s, files);
    QVERIFY2(differs.isEmpty(), qPrintable(differs));
}

// A restore brought back a database newer than its data folder: a pack and a blob file it
// records are gone. Uploading the same files again stores them again (the server reports them
// missing and a batch writes them instead of taking them as held), and they download identical.
void tst_DatasetClient::blobsLostOnTheServerAreStoredAgain()
{
    const QString folder = m_dir.filePath(u"lost"_s);
    QMap<QString, QByteArray> files;
    for (int i = 0; i < 20; ++i)
        files.insert(u"f%1.txt"_s.arg(i), "lost and found " + QByteArray::number(i * 104729));
    files.insert(u"big.bin"_s, QByteArray(300'000, 'L')); // a file of its own on the server
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        QVERIFY(writeFile(folder + u'/' + it.key(), it.value()));
    const QString packs = m_server->dataDir() + u"/packs"_s;
    const QStringList packsBefore = QDir(packs).entryList(QDir::Files);
    const Uploaded first = upload(folder, u"lost"_s);
    QVERIFY(!first.manifest.isEmpty());
    QCOMPARE(first.batchesSent, 1);

    QStringList newPacks = QDir(packs).entryList(QDir::Files);
    for (const QString &old : packsBefore)
        newPacks.removeOne(old);
    QCOMPARE(newPacks.size(), 1);
    QVERIFY(QFile::remove(packs + u'/' + newPacks.first()));
    const QString bigSha = QString::fromLatin1(
        QCryptographicHash::hash(files.value(u"big.bin"_s), QCryptographicHash::Sha256).toHex());
    QVERIFY(QFile::remove(m_server->dataDir() + u"/blobs/"_s + bigSha.left(2) + u'/' + bigSha));
    QCOMPARE(missing({bigSha}), QStringList{bigSha});

    const Uploaded again = upload(folder, u"lost"_s);
    QVERIFY(!again.manifest.isEmpty());
    QCOMPARE(again.filesSent, 21);
    QVERIFY(missing({bigSha}).isEmpty());

    const QString differs = downloadDiffers(u"lost"_s, files);
    QVERIFY2(differs.isEmpty(), qPrintable(differs));
}

// More small files than one batch holds, and large ones: full batches and the large files may go
// while the rest is still being hashed, yet the plan lists every file, each file is told sent
// once and only after the plan, the counts add up, and the dataset comes back identical.
void tst_DatasetClient::filesAreSentWhileTheRestIsHashed()
{
    const QString folder = m_dir.filePath(u"meanwhile"_s);
    QMap<QString, QByteArray> files;
    for (int i = 0; i < 120; ++i) {
        QByteArray bytes(200'000, Qt::Uninitialized); // 24 MB in all: three batches or more
        for (qsizetype j = 0; j < bytes.size(); ++j)
            bytes[j] = char(i * 31 + j * 7 + (j >> 9));
        files.insert(u"shard-%1/s%2.bin"_s.arg(i % 3).arg(i), bytes);
    }
    // Over BlobBatchUpload::SmallFileBytes: resumable uploads, each started once it is hashed.
    for (int i = 0; i < 3; ++i)
        files.insert(u"large-%1.bin"_s.arg(i), QByteArray(1'500'000, char('a' + i)));
    const qint64 total = 120 * 200'000 + 3 * 1'500'000;
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        QVERIFY(writeFile(folder + u'/' + it.key(), it.value()));

    DatasetUpload dataset(m_client.get(), folder);
    dataset.setName(u"meanwhile"_s);
    dataset.setHashCachePath(m_dir.filePath(u"cache/meanwhile-hashes"_s));
    QStringList planned;
    bool wasPlanned = false;
    QStringList sent;
    QStringList sentBeforePlan;
    connect(&dataset, &DatasetUpload::planned, this, [&](const QStringList &paths, qint64 bytes) {
        wasPlanned = true;
        planned = paths;
        QCOMPARE(bytes, total);
    });
    connect(&dataset, &DatasetUpload::fileSent, this, [&](const QString &path) {
        (wasPlanned ? sent : sentBeforePlan).append(path);
    });
    dataset.start();
    const Result<QString> &manifest = dataset.waitForFinished();
    QVERIFY2(manifest, manifest ? "" : qPrintable(manifest.error().message));
    QVERIFY(sentBeforePlan.isEmpty());
    QCOMPARE(planned.size(), 123);
    QCOMPARE(dataset.filesToSend(), 123);
    QCOMPARE(dataset.bytesToSend(), total);
    sent.sort();
    planned.sort();
    QCOMPARE(sent, planned);
    QCOMPARE(dataset.uploadedFiles().size(), 123);
    QVERIFY2(dataset.batchesSent() >= 3, qPrintable(QString::number(dataset.batchesSent())));

    // Hashed again (another cache), the early groups' queries find everything on the server.
    const Uploaded again = upload(folder, u"meanwhile"_s);
    QCOMPARE(again.manifest, *manifest);
    QCOMPARE(again.filesSent, 0);
    QCOMPARE(again.batchesSent, 0);

    const QString differs = downloadDiffers(u"meanwhile"_s, files);
    QVERIFY2(differs.isEmpty(), qPrintable(differs));
}

// Batches sent at once are stored side by side on the server: one of 300 files (a duplicate
// among them, more rows than one statement records) is stored whole while another, sent at the
// same time with one file whose digest is wrong, stores none of its files; the folder uploaded
// afterwards sends just those, and comes back identical.
void tst_DatasetClient::batchesAtOnceWithAWrongDigestLoseNothing()
{
    const QString folder = m_dir.filePath(u"atonce"_s);
    QList<ManifestFile> good;
    QList<ManifestFile> bad;
    QMap<QString, QByteArray> files;
    for (int i = 0; i < 340; ++i) {
        const QByteArray bytes = i == 7 ? QByteArray("same bytes\n")
                                        : QByteArray::number(i * 104729) + QByteArray(i % 50, 'q');
        const QString path = u"f%1.txt"_s.arg(i, 3, 10, QChar(u'0'));
        QVERIFY(writeFile(folder + u'/' + path, bytes));
        files.insert(path, bytes);
        ManifestFile file{path, bytes.size(), *sha256OfFile(folder + u'/' + path), false};
        (i < 300 ? good : bad).append(file);
    }
    QVERIFY(writeFile(folder + u"/copy-of-7.txt"_s, "same bytes\n"));
    good.append(ManifestFile{u"copy-of-7.txt"_s, 11, good.at(7).sha256, false});
    bad[20].sha256 = good.at(0).sha256; // declared as another file's bytes
    QStringList goodDigests;
    for (const ManifestFile &file : std::as_const(good))
        goodDigests.append(file.sha256);
    QStringList badDigests;
    for (const ManifestFile &file : std::as_const(bad)) {
        if (file.path != bad.at(20).path)
            badDigests.append(file.sha256);
    }

    BlobBatchUpload first(m_client.get(), folder, good);
    BlobBatchUpload second(m_client.get(), folder, bad);
    first.start();
    second.start();
    QTRY_VERIFY_WITH_TIMEOUT(first.isFinished() && second.isFinished(), 60'000);
    QVERIFY2(first.result(), first.result() ? "" : qPrintable(first.result().error().message));
    QVERIFY(!second.result());
    QVERIFY2(second.result().error().is(ErrorCode::DigestMismatch),
             qPrintable(second.result().error().message));
    QCOMPARE(missing(goodDigests), QStringList());
    QCOMPARE(missing(badDigests).size(), badDigests.size());

    const Uploaded again = upload(folder, u"atonce"_s);
    QVERIFY(!again.manifest.isEmpty());
    QCOMPARE(again.filesSent, int(badDigests.size()) + 1); // the one declared wrongly included
    QCOMPARE(again.batchesSent, 1);
    const QString differs = downloadDiffers(u"atonce"_s, files);
    QVERIFY2(differs.isEmpty(), qPrintable(differs));
}

// A download resumed over a large part file hashes that part away from the calling thread (a
// GUI's): a 5 ms timer there keeps firing. Two parts: a true prefix of the blob (resumed, the
// result verified against the whole digest) and a larger one that the server refuses (416) after
// it was hashed, so that the download starts again from zero.
void tst_DatasetClient::resumedDownloadKeepsTheEventLoopResponsive()
{
    const QString folder = m_dir.filePath(u"resumed"_s);
    QByteArray bytes(3 << 20, Qt::Uninitialized);
    for (qsizetype i = 0; i < bytes.size(); ++i)
        bytes[i] = char(i * 13 + (i >> 11));
    QVERIFY(writeFile(folder + u"/blob.bin"_s, bytes));
    QVERIFY(!upload(folder, u"resumed"_s).manifest.isEmpty());
    const QString sha =
        QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    const QString destination = m_dir.filePath(u"resumed-copy.bin"_s);
    const QString part = destination + u".part"_s;

    const auto download = [&](qint64 *longestStallMs) -> Result<QString> {
        RangeDownload range(m_client.get(), u"/v1/blobs/"_s + sha, {}, destination, sha);
        QElapsedTimer sinceTick;
        qint64 longest = 0;
        QTimer tick;
        tick.setInterval(5);
        connect(&tick, &QTimer::timeout, this, [&] {
            longest = std::max(longest, sinceTick.restart());
        });
        tick.start();
        sinceTick.start();
        range.start(); // a stall in here counts as much as one in the event loop
        longest = std::max(longest, sinceTick.restart());
        Result<QString> result = range.waitForFinished();
        *longestStallMs = longest;
        return result;
    };

    // A true prefix: only the rest travels, and the whole is verified.
    {
        QFile prefix(part);
        QVERIFY(prefix.open(QIODevice::WriteOnly));
        QCOMPARE(prefix.write(bytes.left(1 << 20)), qint64(1 << 20));
    }
    qint64 stall = 0;
    Result<QString> resumed = download(&stall);
    QVERIFY2(resumed, resumed ? "" : qPrintable(resumed.error().message));
    QCOMPARE(*sha256OfFile(destination), sha);
    QVERIFY(QFile::remove(destination));

    // A part of 512 MiB (sparse: nothing on the disk): hashing it on the calling thread would
    // stall that thread for as long as hashing it takes here, measured first.
    {
        QFile large(part);
        QVERIFY(large.open(QIODevice::WriteOnly));
        QVERIFY(large.resize(qint64(512) << 20));
    }
    QVERIFY(sha256OfFile(part)); // read once, so that the part is hashed from the page cache
    QElapsedTimer hashing;        // both here and in the download
    hashing.start();
    QVERIFY(sha256OfFile(part));
    const qint64 hashMs = hashing.elapsed();
    Result<QString> restarted = download(&stall);
    QVERIFY2(restarted, restarted ? "" : qPrintable(restarted.error().message));
    QCOMPARE(*sha256OfFile(destination), sha);
    QVERIFY2(stall < hashMs / 2,
             qPrintable(u"the calling thread stalled %1 ms; hashing the part takes %2 ms"_s
                            .arg(stall)
                            .arg(hashMs)));
}

// A disk that fills mid-way (a file-size limit here) while a large download is written and
// hashed on a second thread: the download stops with the system's reason, its part file holds
// exactly the bytes that arrived before, and the next run resumes from there (an odd offset) to
// a verified copy.
void tst_DatasetClient::downloadThatCannotWriteStopsThenResumesWhereItsFileEnds()
{
    QByteArray bytes((9 << 20) + 4321, Qt::Uninitialized);
    for (qsizetype i = 0; i < bytes.size(); ++i)
        bytes[i] = char(i * 7 + (i >> 13));
    QVERIFY(writeFile(m_dir.filePath(u"full-disk/blob.bin"_s), bytes));
    QVERIFY(!upload(m_dir.filePath(u"full-disk"_s), u"full-disk"_s).manifest.isEmpty());
    const QString sha =
        QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    const QString destination = m_dir.filePath(u"full-disk-copy.bin"_s);

    const qint64 limit = (5 << 20) + 12345;
    rlimit before{};
    QCOMPARE(::getrlimit(RLIMIT_FSIZE, &before), 0);
    std::signal(SIGXFSZ, SIG_IGN); // a write past the limit fails (EFBIG) instead of killing us
    rlimit limited = before;
    limited.rlim_cur = rlim_t(limit);
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &limited), 0);
    Result<QString> stopped = Error::make(ErrorCode::Internal, u"not run"_s);
    {
        RangeDownload range(m_client.get(), u"/v1/blobs/"_s + sha, {}, destination, sha);
        range.start();
        stopped = range.waitForFinished();
    }
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &before), 0);
    std::signal(SIGXFSZ, SIG_DFL);
    QVERIFY(!stopped);
    QVERIFY2(stopped.error().message.startsWith(u"cannot write the download of"_s) &&
                 stopped.error().message.contains(QString::fromLocal8Bit(std::strerror(EFBIG))),
             qPrintable(stopped.error().message));
    QVERIFY(!QFile::exists(destination));
    QFile part(destination + u".part"_s);
    QVERIFY(part.open(QIODevice::ReadOnly));
    QCOMPARE(part.size(), limit);
    QVERIFY(part.readAll() == bytes.left(limit));
    part.close();

    RangeDownload again(m_client.get(), u"/v1/blobs/"_s + sha, {}, destination, sha);
    again.start();
    const Result<QString> &resumed = again.waitForFinished();
    QVERIFY2(resumed, resumed ? "" : qPrintable(resumed.error().message));
    QCOMPARE(*sha256OfFile(destination), sha);
    QVERIFY(!QFile::exists(part.fileName()));
}

QTEST_GUILESS_MAIN(tst_DatasetClient)
#include "tst_datasetclient.moc"
