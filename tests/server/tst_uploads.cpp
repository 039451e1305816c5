// The resumable, content-addressed upload protocol (UploadService over BlobStorage) with a real
// store and real part and blob files in a temporary data dir.
#include "blobs/blobstorage.h"
#include "blobs/uploadservice.h"
#include "store/database.h"
#include "store/sql.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace ddl;
using namespace ddl::server;

namespace {

const QString Connection = QStringLiteral("tst_uploads");
const QString Alice = QStringLiteral("user:1");
const QString Bob = QStringLiteral("user:2");
constexpr qint64 MaxBlobBytes = 1024 * 1024;

QString sha256Of(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// 0..n-1 as bytes, so that any misplaced chunk changes the digest.
QByteArray pattern(int size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (int i = 0; i < size; ++i)
        bytes[i] = char(i * 7 + 3);
    return bytes;
}

} // namespace

class tst_Uploads : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void createRefusesBadRequests_data();
    void createRefusesBadRequests();
    void createResumesTheSameUpload();
    void chunksAdvanceTheOffset_data();
    void chunksAdvanceTheOffset();
    void wrongOffsetChangesNothing_data();
    void wrongOffsetChangesNothing();
    void chunkPastDeclaredSizeIsRefused();
    void uploadOfAnotherOwnerIsNotFound();
    void digestMismatchDiscardsTheUpload();
    void completedBlobBelongsToItsUploader();
    void secondOwnerWithWrongBytesGetsNoReference();
    void zeroSizeBlobCompletesAtOnce();
    void bytesLeftByACrashAreCutBack();
    void partFileLostMidwayStartsTheUploadAgain_data();
    void partFileLostMidwayStartsTheUploadAgain();
    void abandonedUploadsExpire();
    void writesWaitForAnotherWriterOfTheStore();
    void packsNoBlobRefersToGoOnceAnHourOld();

private:
    // An upload of bytes whose first five bytes arrived; its id, empty when that failed.
    QString startedUpload(const QByteArray &bytes);
    // Dates an upload's last chunk past the expiry.
    bool makeStale(const QString &uploadId);
    qint64 storedOffset(const QString &uploadId);
    qint64 uploadRows();

    std::unique_ptr<QTemporaryDir> m_dir;
    QSqlDatabase m_db;
    std::unique_ptr<BlobStorage> m_storage;
    std::unique_ptr<UploadService> m_uploads;
};

void tst_Uploads::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    Result<QSqlDatabase> db = Database::open(m_dir->path(), Connection);
    QVERIFY2(db, db ? "" : qPrintable(db.error().message));
    m_db = *db;
    m_storage = std::make_unique<BlobStorage>(m_dir->path());
    QVERIFY(m_storage->prepare());
    m_uploads = std::make_unique<UploadService>(m_db, *m_storage, MaxBlobBytes);
}

void tst_Uploads::cleanup()
{
    m_uploads.reset();
    m_storage.reset();
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(Connection);
    m_dir.reset();
}

QString tst_Uploads::startedUpload(const QByteArray &bytes)
{
    Result<UploadState> upload = m_uploads->create(Alice, bytes.size(), sha256Of(bytes));
    if (!upload || !m_uploads->writeChunk(Alice, upload->id, 0, bytes.left(5)))
        return {};
    return upload->id;
}

bool tst_Uploads::makeStale(const QString &uploadId)
{
    return bool(runSql(m_db,
                       QStringLiteral("UPDATE uploads SET updated_at = ? WHERE id = ?"),
                       {nowMs() - UploadService::UploadExpiryMs - 1000, uploadId}));
}

qint64 tst_Uploads::storedOffset(const QString &uploadId)
{
    Result<QSqlQuery> query =
        runSql(m_db, QStringLiteral("SELECT offset FROM uploads WHERE id = ?"), {uploadId});
    return query && query->next() ? query->value(0).toLongLong() : -1;
}

// A batch of the blobs ("<sha256> <size>\n" then the bytes, for each) stored as a batch thread
// stores it, in a new pack; its entries in *entries.
static Result<BlobBatch::Packed> storedBatch(const BlobStorage &storage,
                                             const QList<QByteArray> &blobs,
                                             QList<BlobBatch::Entry> *entries)
{
    QByteArray body;
    for (const QByteArray &blob : blobs)
        body += sha256Of(blob).toLatin1() + ' ' + QByteArray::number(blob.size()) + '\n' + blob;
    Result<QList<BlobBatch::Entry>> parsed = BlobBatch::parse(body);
    if (!parsed)
        return parsed.error();
    *entries = *parsed;
    return BlobBatch::store(storage, body, *parsed, {});
}

static bool setModified(const QString &path, qint64 secondsAgo)
{
    QFile file(path);
    return file.open(QIODevice::ReadWrite) &&
           file.setFileTime(QDateTime::currentDateTimeUtc().addSecs(-secondsAgo),
                            QFileDevice::FileModificationTime);
}

qint64 tst_Uploads::uploadRows()
{
    Result<QSqlQuery> query = runSql(m_db, QStringLiteral("SELECT COUNT(*) FROM uploads"));
    return query && query->next() ? query->value(0).toLongLong() : -1;
}

void tst_Uploads::createRefusesBadRequests_data()
{
    QTest::addColumn<qint64>("size");
    QTest::addColumn<QString>("sha256");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("field");

    const QString good = sha256Of("x");
    // A digest may come later (a chunk's DDL-Sha256), but no chunk of an empty blob can bring it.
    QTest::newRow("empty blob without digest")
        << qint64(0) << QString() << QStringLiteral("bad_request") << QStringLiteral("sha256");
    QTest::newRow("upper-case digest")
        << qint64(1) << good.toUpper() << QStringLiteral("bad_request") << QStringLiteral("sha256");
    QTest::newRow("short digest") << qint64(1) << good.left(63) << QStringLiteral("bad_request")
                                  << QStringLiteral("sha256");
    QTest::newRow("not hex") << qint64(1) << QString(64, u'g') << QStringLiteral("bad_request")
                             << QStringLiteral("sha256");
    QTest::newRow("negative size")
        << qint64(-1) << good << QStringLiteral("bad_request") << QStringLiteral("size");
    QTest::newRow("over the server's limit")
        << MaxBlobBytes + 1 << good << QStringLiteral("payload_too_large")
        << QStringLiteral("size");
}

void tst_Uploads::createRefusesBadRequests()
{
    QFETCH(qint64, size);
    QFETCH(QString, sha256);
    QFETCH(QString, code);
    QFETCH(QString, field);

    Result<UploadState> upload = m_uploads->create(Alice, size, sha256);
    QVERIFY(!upload);
    QCOMPARE(upload.error().code, code);
    QCOMPARE(upload.error().field, field);
    QCOMPARE(uploadRows(), 0);
}

void tst_Uploads::createResumesTheSameUpload()
{
    const QByteArray bytes = pattern(100);
    Result<UploadState> first = m_uploads->create(Alice, bytes.size(), sha256Of(bytes));
    QVERIFY(first);
    QVERIFY(!first->id.isEmpty());
    QCOMPARE(first->offset, 0);
    QVERIFY(!first->complete);
    QVERIFY(m_uploads->writeChunk(Alice, first->id, 0, bytes.left(40)));

    Result<UploadState> resumed = m_uploads->create(Alice, bytes.size(), sha256Of(bytes));
    QVERIFY(resumed);
    QCOMPARE(resumed->id, first->id);
    QCOMPARE(resumed->offset, 40);
    QVERIFY(!resumed->complete);
    Result<UploadState> state = m_uploads->state(Alice, first->id);
    QVERIFY(state);
    QCOMPARE(state->offset, 40);
    QCOMPARE(state->size, 100);
    QCOMPARE(state->sha256, sha256Of(bytes));

    // Another owner uploading the same bytes has an upload of its own.
    Result<UploadState> other = m_uploads->create(Bob, bytes.size(), sha256Of(bytes));
    QVERIFY(other);
    QVERIFY(other->id != first->id);
    QCOMPARE(other->offset, 0);
}

void tst_Uploads::chunksAdvanceTheOffset_data()
{
    QTest::addColumn<int>("size");
    QTest::addColumn<QList<int>>("chunks");

    QTest::newRow("one chunk") << 64 << QList<int>{64};
    QTest::newRow("three chunks") << 100 << QList<int>{10, 50, 40};
    QTest::newRow("one byte at a time") << 5 << QList<int>{1, 1, 1, 1, 1};
    QTest::newRow("empty chunk on the way") << 20 << QList<int>{10, 0, 10};
}

void tst_Uploads::chunksAdvanceTheOffset()
{
    QFETCH(int, size);
    QFETCH(QList<int>, chunks);

    const QByteArray bytes = pattern(size);
    Result<UploadState> upload = m_uploads->create(Alice, size, sha256Of(bytes));
    QVERIFY(upload);
    qint64 offset = 0;
    for (int i = 0; i < chunks.size(); ++i) {
        Result<UploadState> written =
            m_uploads->writeChunk(Alice, upload->id, offset, bytes.mid(offset, chunks[i]));
        QVERIFY2(written, written ? "" : qPrintable(written.error().message));
        offset += chunks[i];
        QCOMPARE(written->offset, offset);
        QCOMPARE(written->complete, offset == size);
        if (!written->complete) {
            QCOMPARE(storedOffset(upload->id), offset);
            QCOMPARE(QFileInfo(m_storage->partPath(upload->id)).size(), offset);
        }
    }
    QCOMPARE(readFile(m_storage->blobPath(sha256Of(bytes))), bytes);
    QVERIFY(!QFile::exists(m_storage->partPath(upload->id)));
    QCOMPARE(uploadRows(), 0);
}

void tst_Uploads::wrongOffsetChangesNothing_data()
{
    QTest::addColumn<qint64>("offset");
    QTest::newRow("ahead") << qint64(15);
    QTest::newRow("behind") << qint64(0);
    QTest::newRow("one behind") << qint64(9);
    QTest::newRow("one ahead") << qint64(11);
}

void tst_Uploads::wrongOffsetChangesNothing()
{
    QFETCH(qint64, offset);

    const QByteArray bytes = pattern(30);
    Result<UploadState> upload = m_uploads->create(Alice, bytes.size(), sha256Of(bytes));
    QVERIFY(upload);
    QVERIFY(m_uploads->writeChunk(Alice, upload->id, 0, bytes.left(10)));
    const QString part = m_storage->partPath(upload->id);
    const QByteArray before = readFile(part);
    QCOMPARE(before.size(), 10);

    Result<UploadState> refused =
        m_uploads->writeChunk(Alice, upload->id, offset, QByteArray(5, 'z'));
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, QStringLiteral("offset_mismatch"));
    // The client learns where to resume, in the message and as a number.
    QCOMPARE(refused.error().details.value(QStringLiteral("offset")).toInteger(), 10);
    QVERIFY2(refused.error().message.contains(QStringLiteral("10")),
             qPrintable(refused.error().message));
    QCOMPARE(readFile(part), before);
    QCOMPARE(storedOffset(upload->id), 10);

    // And resuming from there completes the blob intact.
    Result<UploadState> rest = m_uploads->writeChunk(Alice, upload->id, 10, bytes.mid(10));
    QVERIFY(rest);
    QVERIFY(rest->complete);
    QCOMPARE(readFile(m_storage->blobPath(sha256Of(bytes))), bytes);
}

void tst_Uploads::chunkPastDeclaredSizeIsRefused()
{
    const QByteArray bytes = pattern(20);
    Result<UploadState> upload = m_uploads->create(Alice, bytes.size(), sha256Of(bytes));
    QVERIFY(upload);
    QVERIFY(m_uploads->writeChunk(Alice, upload->id, 0, bytes.left(15)));

    Result<UploadState> refused = m_uploads->writeChunk(Alice, upload->id, 15, pattern(6));
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, QStringLiteral("payload_too_large"));
    QCOMPARE(storedOffset(upload->id), 15);
    QCOMPARE(QFileInfo(m_storage->partPath(upload->id)).size(), 15);
    QVERIFY(!m_uploads->locator().has(sha256Of(bytes)));
}

void tst_Uploads::uploadOfAnotherOwnerIsNotFound()
{
    const QByteArray bytes = pattern(20);
    Result<UploadState> upload = m_uploads->create(Alice, bytes.size(), sha256Of(bytes));
    QVERIFY(upload);

    Result<UploadState> state = m_uploads->state(Bob, upload->id);
    QVERIFY(!state);
    QCOMPARE(state.error().code, QStringLiteral("not_found"));
    Result<UploadState> chunk = m_uploads->writeChunk(Bob, upload->id, 0, bytes);
    QVERIFY(!chunk);
    QCOMPARE(chunk.error().code, QStringLiteral("not_found"));
    QCOMPARE(storedOffset(upload->id), 0);
    QVERIFY(!m_uploads->locator().has(sha256Of(bytes)));
}

void tst_Uploads::digestMismatchDiscardsTheUpload()
{
    const QByteArray declared = "hello, world";
    QByteArray sent = declared;
    sent[0] = 'j';
    Result<UploadState> upload = m_uploads->create(Alice, declared.size(), sha256Of(declared));
    QVERIFY(upload);
    QVERIFY(m_uploads->writeChunk(Alice, upload->id, 0, sent.left(5)));

    Result<UploadState> last = m_uploads->writeChunk(Alice, upload->id, 5, sent.mid(5));
    QVERIFY(!last);
    QCOMPARE(last.error().code, QStringLiteral("digest_mismatch"));
    // Neither digest names a blob, the part file is gone and so is the upload.
    QVERIFY(!QFile::exists(m_storage->blobPath(sha256Of(declared))));
    QVERIFY(!QFile::exists(m_storage->blobPath(sha256Of(sent))));
    QVERIFY(!QFile::exists(m_storage->partPath(upload->id)));
    QCOMPARE(m_uploads->state(Alice, upload->id).error().code, QStringLiteral("not_found"));
    QVERIFY(!m_uploads->ownsBlob(Alice, sha256Of(declared)));
    QVERIFY(!m_uploads->ownsBlob(Alice, sha256Of(sent)));

    // Starting again is a new upload from zero.
    Result<UploadState> again = m_uploads->create(Alice, declared.size(), sha256Of(declared));
    QVERIFY(again);
    QVERIFY(again->id != upload->id);
    QCOMPARE(again->offset, 0);
}

void tst_Uploads::completedBlobBelongsToItsUploader()
{
    const QByteArray bytes = pattern(333);
    const QString sha256 = sha256Of(bytes);
    Result<UploadState> upload = m_uploads->create(Alice, bytes.size(), sha256);
    QVERIFY(upload);
    Result<UploadState> done = m_uploads->writeChunk(Alice, upload->id, 0, bytes);
    QVERIFY(done);
    QVERIFY(done->complete);
    QCOMPARE(done->offset, bytes.size());

    QVERIFY(m_storage->blobPath(sha256).endsWith(QStringLiteral("blobs/") + sha256.left(2) + u'/' +
                                                 sha256));
    QCOMPARE(readFile(m_storage->blobPath(sha256)), bytes);
    QVERIFY(m_uploads->ownsBlob(Alice, sha256));
    QVERIFY(!m_uploads->ownsBlob(Bob, sha256));

    // The owner need not send it again.
    Result<UploadState> again = m_uploads->create(Alice, bytes.size(), sha256);
    QVERIFY(again);
    QVERIFY(again->complete);
    QCOMPARE(again->offset, bytes.size());

    // Another owner learns nothing: it gets an empty upload and must send every byte.
    Result<UploadState> other = m_uploads->create(Bob, bytes.size(), sha256);
    QVERIFY(other);
    QVERIFY(!other->complete);
    QVERIFY(!other->id.isEmpty());
    QCOMPARE(other->offset, 0);
    QVERIFY(!m_uploads->ownsBlob(Bob, sha256));
    Result<UploadState> sent = m_uploads->writeChunk(Bob, other->id, 0, bytes);
    QVERIFY2(sent, sent ? "" : qPrintable(sent.error().message));
    QVERIFY(sent->complete);
    QVERIFY(m_uploads->ownsBlob(Bob, sha256));
    QCOMPARE(readFile(m_storage->blobPath(sha256)), bytes);
    QVERIFY(!QFile::exists(m_storage->partPath(other->id)));
}

void tst_Uploads::secondOwnerWithWrongBytesGetsNoReference()
{
    const QByteArray bytes = pattern(50);
    const QString sha256 = sha256Of(bytes);
    Result<UploadState> upload = m_uploads->create(Alice, bytes.size(), sha256);
    QVERIFY(upload);
    QVERIFY(m_uploads->writeChunk(Alice, upload->id, 0, bytes));

    // Bob claims the digest without having the bytes.
    Result<UploadState> other = m_uploads->create(Bob, bytes.size(), sha256);
    QVERIFY(other);
    Result<UploadState> forged = m_uploads->writeChunk(Bob, other->id, 0, QByteArray(50, 'x'));
    QVERIFY(!forged);
    QCOMPARE(forged.error().code, QStringLiteral("digest_mismatch"));
    QVERIFY(!m_uploads->ownsBlob(Bob, sha256));
    QCOMPARE(readFile(m_storage->blobPath(sha256)), bytes);
    QVERIFY(!QFile::exists(m_storage->partPath(other->id)));
    QCOMPARE(uploadRows(), 0);
}

void tst_Uploads::zeroSizeBlobCompletesAtOnce()
{
    const QString empty = sha256Of(QByteArray());
    Result<UploadState> upload = m_uploads->create(Alice, 0, empty);
    QVERIFY2(upload, upload ? "" : qPrintable(upload.error().message));
    QVERIFY(upload->complete);
    QCOMPARE(upload->offset, 0);
    QVERIFY(QFile::exists(m_storage->blobPath(empty)));
    QCOMPARE(QFileInfo(m_storage->blobPath(empty)).size(), 0);
    QVERIFY(m_uploads->ownsBlob(Alice, empty));
    QCOMPARE(uploadRows(), 0);

    // Bob "uploads" it too (there are no bytes to prove) and owns it as well.
    Result<UploadState> other = m_uploads->create(Bob, 0, empty);
    QVERIFY(other);
    QVERIFY(other->complete);
    QVERIFY(m_uploads->ownsBlob(Bob, empty));

    // An empty upload declared with the digest of other bytes is refused.
    Result<UploadState> lying = m_uploads->create(Alice, 0, sha256Of("not empty"));
    QVERIFY(!lying);
    QCOMPARE(lying.error().code, QStringLiteral("digest_mismatch"));
    QVERIFY(!m_uploads->ownsBlob(Alice, sha256Of("not empty")));
}

void tst_Uploads::bytesLeftByACrashAreCutBack()
{
    const QByteArray bytes = pattern(40);
    Result<UploadState> upload = m_uploads->create(Alice, bytes.size(), sha256Of(bytes));
    QVERIFY(upload);
    QVERIFY(m_uploads->writeChunk(Alice, upload->id, 0, bytes.left(20)));

    // A crash after the next chunk reached the disk but before its offset was recorded: the part
    // file holds bytes past the stored offset (here ones the client will send differently).
    {
        QFile part(m_storage->partPath(upload->id));
        QVERIFY(part.open(QIODevice::Append));
        QCOMPARE(part.write(QByteArray(25, '#')), 25);
    }
    QCOMPARE(QFileInfo(m_storage->partPath(upload->id)).size(), 45);
    QCOMPARE(storedOffset(upload->id), 20);

    // The client resumes from the stored offset; the leftovers must not survive into the blob.
    Result<UploadState> resumed = m_uploads->create(Alice, bytes.size(), sha256Of(bytes));
    QVERIFY(resumed);
    QCOMPARE(resumed->offset, 20);
    Result<UploadState> done = m_uploads->writeChunk(Alice, upload->id, 20, bytes.mid(20, 10));
    QVERIFY(done);
    QCOMPARE(QFileInfo(m_storage->partPath(upload->id)).size(), 30);
    done = m_uploads->writeChunk(Alice, upload->id, 30, bytes.mid(30));
    QVERIFY2(done, done ? "" : qPrintable(done.error().message));
    QVERIFY(done->complete);
    QCOMPARE(readFile(m_storage->blobPath(sha256Of(bytes))), bytes);
}

void tst_Uploads::partFileLostMidwayStartsTheUploadAgain_data()
{
    QTest::addColumn<qint64>("keep"); // bytes of the part file left, -1: the file removed
    QTest::newRow("removed") << qint64(-1);
    QTest::newRow("cut short") << qint64(7);
}

// The store says 20 bytes arrived, the part file no longer holds them: the next chunk must not
// store zeros in their place (the saved hash state would still give the declared digest).
void tst_Uploads::partFileLostMidwayStartsTheUploadAgain()
{
    QFETCH(qint64, keep);
    const QByteArray bytes = pattern(40);
    Result<UploadState> upload = m_uploads->create(Alice, bytes.size(), sha256Of(bytes));
    QVERIFY(upload);
    QVERIFY(m_uploads->writeChunk(Alice, upload->id, 0, bytes.left(20)));
    const QString part = m_storage->partPath(upload->id);
    if (keep < 0)
        QVERIFY(QFile::remove(part));
    else
        QVERIFY(QFile::resize(part, keep));

    Result<UploadState> next = m_uploads->writeChunk(Alice, upload->id, 20, bytes.mid(20));
    QVERIFY(!next);
    QCOMPARE(next.error().code, u"not_found"_qs);
    QVERIFY2(next.error().message.contains(u"start the upload again"_qs),
             qPrintable(next.error().message));
    QVERIFY(!QFileInfo::exists(m_storage->blobPath(sha256Of(bytes))));

    // Asked again, the upload starts from nothing and completes with the right bytes.
    Result<UploadState> again = m_uploads->create(Alice, bytes.size(), sha256Of(bytes));
    QVERIFY(again);
    QCOMPARE(again->offset, 0);
    Result<UploadState> done = m_uploads->writeChunk(Alice, again->id, 0, bytes);
    QVERIFY2(done, done ? "" : qPrintable(done.error().message));
    QVERIFY(done->complete);
    QCOMPARE(readFile(m_storage->blobPath(sha256Of(bytes))), bytes);
}

void tst_Uploads::abandonedUploadsExpire()
{
    const QString stale = startedUpload(pattern(20));
    QVERIFY(!stale.isEmpty());
    const QString live = startedUpload(pattern(21));
    QVERIFY(!live.isEmpty());
    QVERIFY(makeStale(stale));

    m_uploads->expireAbandoned();
    QVERIFY(!QFile::exists(m_storage->partPath(stale)));
    QCOMPARE(m_uploads->state(Alice, stale).error().code, QStringLiteral("not_found"));
    QVERIFY(QFile::exists(m_storage->partPath(live)));
    QVERIFY(m_uploads->state(Alice, live));
}

// `ddl-server token create` writes the store while the server runs. A look-up followed by a
// write must wait for that writer as any write does (the busy timeout), not fail at once because
// its look-up's read was still open when it wrote (SQLite calls no busy handler then).
void tst_Uploads::writesWaitForAnotherWriterOfTheStore()
{
    const QString abandoned = startedUpload(pattern(20));
    QVERIFY(!abandoned.isEmpty());
    const QString stale = startedUpload(pattern(21));
    QVERIFY(!stale.isEmpty());
    QVERIFY(makeStale(stale));

    // Another process takes the write lock and holds it a while, as `ddl-server token create`
    // would.
    QProcess writer;
    writer.start(QStringLiteral("python3"),
                 {QStringLiteral("-c"),
                  QStringLiteral("import sqlite3, sys, time\n"
                                 "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                                 "db.execute('BEGIN IMMEDIATE')\n"
                                 "db.execute('UPDATE users SET email = email')\n"
                                 "print('locked', flush=True)\n"
                                 "time.sleep(0.3)\n"
                                 "db.execute('COMMIT')\n"),
                  QDir(m_dir->path()).filePath(QStringLiteral("ddl.sqlite"))});
    QVERIFY2(writer.waitForReadyRead(10000),
             qPrintable(QString::fromUtf8(writer.readAllStandardError())));
    QCOMPARE(writer.readAllStandardOutput().trimmed(), QByteArray("locked"));
    const Status gone = m_uploads->abandon(Alice, abandoned);
    m_uploads->expireAbandoned();
    QVERIFY(writer.waitForFinished(10000));
    QCOMPARE(writer.exitCode(), 0);
    QVERIFY2(gone, gone ? "" : qPrintable(gone.error().message));
    QCOMPARE(m_uploads->state(Alice, abandoned).error().code, QStringLiteral("not_found"));
    QCOMPARE(m_uploads->state(Alice, stale).error().code, QStringLiteral("not_found"));
    QCOMPARE(uploadRows(), qint64(0));
}

void tst_Uploads::packsNoBlobRefersToGoOnceAnHourOld()
{
    const QList<QByteArray> blobs{pattern(3000), pattern(5000)};
    QList<BlobBatch::Entry> entries;
    // The first batch of these files is recorded; a second one, sent at the same time by another
    // client, stored them too before the first's rows were there, and lost the race.
    const Result<BlobBatch::Packed> first = storedBatch(*m_storage, blobs, &entries);
    QVERIFY(first && !first->pack.isEmpty());
    const Result<BlobBatch::Packed> second = storedBatch(*m_storage, blobs, &entries);
    QVERIFY(second && !second->pack.isEmpty());
    QVERIFY(UploadService::recordBatch(m_db, Alice, entries, *first));
    QVERIFY(UploadService::recordBatch(m_db, Bob, entries, *second));
    // A batch stored just before a crash, never recorded; one of five hours ago; one of now.
    QList<BlobBatch::Entry> unrecorded;
    QStringList orphans;
    for (int size : {700, 900, 1100}) {
        const Result<BlobBatch::Packed> orphan =
            storedBatch(*m_storage, {pattern(size)}, &unrecorded);
        QVERIFY(orphan && !orphan->pack.isEmpty());
        orphans << orphan->pack;
    }
    const QString kept = first->pack;
    const QString lost = second->pack;
    const QString crashed = orphans.at(0);
    const QString older = orphans.at(1);
    const QString fresh = orphans.at(2);
    for (const QString &pack : {kept, lost, crashed})
        QVERIFY(setModified(m_storage->packPath(pack), 2 * 3600));
    QVERIFY(setModified(m_storage->packPath(older), 5 * 3600));

    // The hourly look: the packs of the last three hours that nothing refers to.
    QCOMPARE(m_uploads->sweepUnreferencedPacks(QDateTime::currentDateTimeUtc().addSecs(-3 * 3600)),
             2);
    QVERIFY(!QFile::exists(m_storage->packPath(lost)));
    QVERIFY(!QFile::exists(m_storage->packPath(crashed)));
    QVERIFY(QFile::exists(m_storage->packPath(kept)));
    QVERIFY(QFile::exists(m_storage->packPath(older)));
    // Under an hour old: maybe another server's batch, recording now.
    QVERIFY(QFile::exists(m_storage->packPath(fresh)));
    // Both owners keep the blobs, whose bytes are in the pack that was kept.
    for (const QString &owner : {Alice, Bob}) {
        for (const QByteArray &blob : blobs)
            QVERIFY(m_uploads->ownsBlob(owner, sha256Of(blob)));
    }
    QCOMPARE(readFile(m_storage->packPath(kept)), blobs.at(0) + blobs.at(1));

    // At start every pack is looked at.
    QCOMPARE(m_uploads->sweepUnreferencedPacks(), 1);
    QVERIFY(!QFile::exists(m_storage->packPath(older)));
    QVERIFY(QFile::exists(m_storage->packPath(kept)));
    QVERIFY(QFile::exists(m_storage->packPath(fresh)));
}

QTEST_GUILESS_MAIN(tst_Uploads)
#include "tst_uploads.moc"
