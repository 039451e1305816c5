// Uploads that start before the file is hashed (docs/api.md "uploads"): BlobUpload sends a new
// large file while another thread hashes it, a chunk names the digest (DDL-Sha256), and the
// server refuses what breaks the rules. Against the real ddl-server process over TLS; chunks
// that a client library would not send go through a raw TLS socket.
#include "serverprocess.h"
#include "serveruser.h"

#include "api/apiclient.h"
#include "api/blobupload.h"
#include "api/datasetupload.h"
#include "api/filehashcache.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace ddl;
using namespace Qt::Literals::StringLiterals;

namespace {

QString sha256Hex(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

QByteArray randomBytes(qint64 size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(bytes.data()),
                                          size / qint64(sizeof(quint32)));
    return bytes;
}

struct RawAnswer
{
    int status = 0;
    bool sawContinue = false;
    QByteArray body;
    QString problem; // set when no answer came
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QJsonObject error() const { return json().value("error"_L1).toObject(); }
    QString describe() const
    {
        return problem.isEmpty()
                   ? u"HTTP %1 %2"_s.arg(status).arg(QString::fromUtf8(body.left(400)))
                   : problem;
    }
};

} // namespace

class tst_UploadWithoutDigest : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void newFileIsSentWhileItIsHashed();
    void storedFileFinishesWithTheExistingBlob();
    void wrongDigestOnTheLastChunkDiscardsTheUpload();
    void secondDigestThatDiffersIsAConflict();
    void lastChunkWithoutDigestIsRefusedBeforeItsBody();
    void anotherUserCannotSeeFillOrAbandonTheUpload();
    void killedClientResumesAfterTheDigestWasSent();
    void runStoppedBeforeTheDigestGoesOnUnderTheSameId();
    void datasetSendsNewLargeFilesBeforeTheyAreHashed();
    void sameFolderAgainSendsNothing();
    void uploadDeletedOnTheServerMidwayStartsAnew();
    void recordOfAnUploadThatIsGoneStartsAnew();
    void digestThatIsNotAStringIsRefused();
    void recordsOfTwoPathsAreKeptApart();
    void recordOfAnUploadWithAnotherDigestIsLeftBehind();
    void cancelStopsTheHashing();

private:
    // A new account on the test's server, logged in (tests/support/serveruser.h).
    std::unique_ptr<ApiClient> login(const QString &email, QString *token = nullptr)
    {
        return loggedInClient(m_server->url(), m_trust, email, token);
    }
    // A file of random bytes dated an hour back (a file written this second is not cached).
    QByteArray writeFile(const QString &path, qint64 size);
    // One request on a fresh TLS connection: head lines (no final empty line) and body.
    RawAnswer raw(const QByteArray &head,
                  const QByteArray &body,
                  bool expectContinue = false,
                  qint64 contentLength = -1);
    RawAnswer createUpload(const QString &token, qint64 size, const QString &sha256 = {});
    RawAnswer putChunk(const QString &token,
                       const QString &id,
                       qint64 offset,
                       const QByteArray &bytes,
                       const QString &sha256 = {});
    RawAnswer request(const QByteArray &verb, const QString &path, const QString &token);

    QTemporaryDir m_dir;
    std::unique_ptr<ServerProcess> m_server;
    ServerTrust m_trust;
    QString m_aliceToken;
    QString m_bobToken;
    std::unique_ptr<ApiClient> m_alice;
    int m_caches = 0;
};

void tst_UploadWithoutDigest::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_server = std::make_unique<ServerProcess>(m_dir.filePath(u"server"_s));
    const QString started = m_server->start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    Result<ServerTrust> trust = ServerTrust::fromCaFile(m_server->caFile());
    QVERIFY(trust);
    m_trust = *trust;
    m_alice = login(u"alice@example.org"_s, &m_aliceToken);
    QVERIFY(m_alice);
    QVERIFY(login(u"bob@example.org"_s, &m_bobToken));
}

void tst_UploadWithoutDigest::cleanupTestCase()
{
    m_alice.reset();
    if (m_server)
        m_server->stop();
}

QByteArray tst_UploadWithoutDigest::writeFile(const QString &path, qint64 size)
{
    const QByteArray bytes = randomBytes(size);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.flush())
        return {};
    if (!file.setFileTime(QDateTime::currentDateTime().addSecs(-3600),
                          QFileDevice::FileModificationTime))
        return {};
    return bytes;
}

RawAnswer tst_UploadWithoutDigest::raw(const QByteArray &head,
                                       const QByteArray &body,
                                       bool expectContinue,
                                       qint64 contentLength)
{
    RawAnswer answer;
    QSslSocket socket;
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setCaCertificates(QSslCertificate::fromPath(m_server->caFile()));
    socket.setSslConfiguration(tls);
    socket.connectToHostEncrypted(m_server->url().host(), m_server->port());
    if (!socket.waitForEncrypted(10000)) {
        answer.problem = u"no TLS connection: "_s + socket.errorString();
        return answer;
    }
    QByteArray request = head + "\r\nHost: " + m_server->url().host().toLatin1() +
                         "\r\nContent-Length: " +
                         QByteArray::number(contentLength >= 0 ? contentLength : body.size());
    if (expectContinue)
        request += "\r\nExpect: 100-continue";
    socket.write(request + "\r\n\r\n" + body);
    QByteArray buffer;
    for (;;) {
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end >= 0) {
            const QByteArray answerHead = buffer.left(end);
            const int status = answerHead.mid(9, 3).toInt();
            if (status == 100) {
                answer.sawContinue = true;
                buffer.remove(0, end + 4);
                continue;
            }
            qint64 length = 0;
            for (const QByteArray &line : answerHead.split('\n')) {
                if (line.toLower().startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
            }
            if (buffer.size() >= end + 4 + length) {
                answer.status = status;
                answer.body = buffer.mid(end + 4, length);
                return answer;
            }
        }
        if (!socket.waitForReadyRead(30000)) {
            answer.problem = u"no answer: "_s + socket.errorString() + u" after "_s +
                             QString::fromUtf8(buffer.left(200));
            return answer;
        }
        buffer += socket.readAll();
    }
}

RawAnswer
tst_UploadWithoutDigest::createUpload(const QString &token, qint64 size, const QString &sha256)
{
    QJsonObject body{{"size"_L1, size}};
    if (!sha256.isEmpty())
        body.insert("sha256"_L1, sha256);
    return raw("POST /v1/uploads HTTP/1.1\r\nContent-Type: application/json\r\nAuthorization: "
               "Bearer " +
                   token.toLatin1(),
               QJsonDocument(body).toJson(QJsonDocument::Compact));
}

RawAnswer tst_UploadWithoutDigest::putChunk(const QString &token,
                                            const QString &id,
                                            qint64 offset,
                                            const QByteArray &bytes,
                                            const QString &sha256)
{
    QByteArray head = "PUT /v1/uploads/" + id.toLatin1() + "?offset=" + QByteArray::number(offset) +
                      " HTTP/1.1\r\nAuthorization: Bearer " + token.toLatin1();
    if (!sha256.isEmpty())
        head += "\r\nDDL-Sha256: " + sha256.toLatin1();
    return raw(head, bytes);
}

RawAnswer
tst_UploadWithoutDigest::request(const QByteArray &verb, const QString &path, const QString &token)
{
    return raw(verb + ' ' + path.toLatin1() + " HTTP/1.1\r\nAuthorization: Bearer " +
                   token.toLatin1(),
               {});
}

void tst_UploadWithoutDigest::newFileIsSentWhileItIsHashed()
{
    const QString path = m_dir.filePath(u"new.bin"_s);
    const QByteArray bytes = writeFile(path, 40 * 1024 * 1024);
    QVERIFY(!bytes.isEmpty());
    const QString cache = m_dir.filePath(u"cache-%1"_s.arg(++m_caches));

    BlobUpload upload(m_alice.get(), path);
    upload.setHashCachePath(cache);
    QSignalSpy checked(&upload, &BlobUpload::digestChecked);
    upload.start();
    const Result<QString> &result = upload.waitForFinished();
    QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
    QCOMPARE(*result, sha256Hex(bytes));
    // It went the new way: created without a digest, which was checked once known.
    QCOMPARE(checked.size(), 1);
    QCOMPARE(checked.at(0).at(0).toString(), sha256Hex(bytes));
    QCOMPARE(checked.at(0).at(1).toBool(), false);
    QVERIFY(!upload.deduplicated());

    Result<ApiResponse> blob = m_alice->getSync(u"/v1/blobs/"_s + *result);
    QVERIFY2(blob, qPrintable(blob ? QString() : blob.error().message));
    QVERIFY(blob->body == bytes);
    // The digest is remembered, as a hashed file's is.
    FileHashCache remembered(cache);
    QCOMPARE(remembered.cached(QFileInfo(path).absoluteFilePath()).value_or(QString()), *result);
}

void tst_UploadWithoutDigest::storedFileFinishesWithTheExistingBlob()
{
    const QString path = m_dir.filePath(u"stored.bin"_s);
    const QByteArray bytes = writeFile(path, 40 * 1024 * 1024);
    QVERIFY(!bytes.isEmpty());
    BlobUpload first(m_alice.get(), path, sha256Hex(bytes));
    first.start();
    QVERIFY(first.waitForFinished());

    // Another machine, or an emptied hash cache: the bytes go before the digest is known.
    BlobUpload again(m_alice.get(), path);
    again.setHashCachePath(m_dir.filePath(u"cache-%1"_s.arg(++m_caches)));
    QSignalSpy checked(&again, &BlobUpload::digestChecked);
    again.start();
    const Result<QString> &result = again.waitForFinished();
    QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
    QCOMPARE(*result, sha256Hex(bytes));
    QCOMPARE(checked.size(), 1);
    QCOMPARE(checked.at(0).at(1).toBool(), true);
    QVERIFY(again.deduplicated());
    // The upload it had begun was abandoned: the server keeps nothing of it.
    QVERIFY(!again.uploadId().isEmpty());
    const RawAnswer state = request("GET", u"/v1/uploads/"_s + again.uploadId(), m_aliceToken);
    QVERIFY2(state.status == 404, qPrintable(state.describe()));
    for (QDirIterator it(m_server->dataDir(), QDir::Files, QDirIterator::Subdirectories);
         it.hasNext();)
        QVERIFY2(!it.next().contains(again.uploadId()), qPrintable(it.filePath()));
}

void tst_UploadWithoutDigest::wrongDigestOnTheLastChunkDiscardsTheUpload()
{
    const QByteArray bytes = randomBytes(96 * 1024);
    const RawAnswer created = createUpload(m_aliceToken, bytes.size());
    QVERIFY2(created.status == 201, qPrintable(created.describe()));
    const QString id = created.json().value("id"_L1).toString();
    QVERIFY(created.json().value("sha256"_L1).isNull());

    const RawAnswer first = putChunk(m_aliceToken, id, 0, bytes.left(64 * 1024));
    QVERIFY2(first.status == 200, qPrintable(first.describe()));
    QCOMPARE(first.json().value("offset"_L1).toInteger(), 64 * 1024);

    const QString wrong = sha256Hex("other bytes");
    const RawAnswer last = putChunk(m_aliceToken, id, 64 * 1024, bytes.mid(64 * 1024), wrong);
    QVERIFY2(last.status == 422, qPrintable(last.describe()));
    QCOMPARE(last.error().value("code"_L1).toString(), u"digest_mismatch"_s);
    QVERIFY(last.error().value("message"_L1).toString().contains(wrong));
    const RawAnswer state = request("GET", u"/v1/uploads/"_s + id, m_aliceToken);
    QVERIFY2(state.status == 404, qPrintable(state.describe()));
    QVERIFY(m_alice->getSync(u"/v1/blobs/"_s + sha256Hex(bytes)).error().is(ErrorCode::NotFound));
}

void tst_UploadWithoutDigest::secondDigestThatDiffersIsAConflict()
{
    const QByteArray bytes = randomBytes(96 * 1024);
    const RawAnswer created = createUpload(m_aliceToken, bytes.size());
    const QString id = created.json().value("id"_L1).toString();
    const QString right = sha256Hex(bytes);
    const RawAnswer first = putChunk(m_aliceToken, id, 0, bytes.left(32 * 1024), right);
    QVERIFY2(first.status == 200, qPrintable(first.describe()));
    QCOMPARE(request("GET", u"/v1/uploads/"_s + id, m_aliceToken).json().value("sha256"_L1),
             QJsonValue(right));

    const QString other = sha256Hex("other bytes");
    const RawAnswer conflict = putChunk(m_aliceToken, id, 32 * 1024, bytes.mid(32 * 1024), other);
    QVERIFY2(conflict.status == 409, qPrintable(conflict.describe()));
    QCOMPARE(conflict.error().value("code"_L1).toString(), u"conflict"_s);
    const QString message = conflict.error().value("message"_L1).toString();
    QVERIFY2(message.contains(right) && message.contains(other), qPrintable(message));
    // Nothing was taken; the right digest (or none) goes on.
    const RawAnswer rest = putChunk(m_aliceToken, id, 32 * 1024, bytes.mid(32 * 1024));
    QVERIFY2(rest.status == 200, qPrintable(rest.describe()));
    QVERIFY(rest.json().value("complete"_L1).toBool());
}

void tst_UploadWithoutDigest::lastChunkWithoutDigestIsRefusedBeforeItsBody()
{
    const qint64 size = 16 * 1024 * 1024;
    const RawAnswer created = createUpload(m_aliceToken, size);
    const QString id = created.json().value("id"_L1).toString();
    QVERIFY(!id.isEmpty());
    // Only the head is sent: an answer can only come if the server refuses before the body.
    const RawAnswer refused =
        raw("PUT /v1/uploads/" + id.toLatin1() + "?offset=0 HTTP/1.1\r\nAuthorization: Bearer " +
                m_aliceToken.toLatin1(),
            {},
            true,
            size);
    QVERIFY2(refused.status == 400, qPrintable(refused.describe()));
    QVERIFY(!refused.sawContinue);
    QCOMPARE(refused.error().value("field"_L1).toString(), u"DDL-Sha256"_s);
    QVERIFY(refused.error().value("message"_L1).toString().contains("DDL-Sha256"_L1));
    const RawAnswer state = request("GET", u"/v1/uploads/"_s + id, m_aliceToken);
    QCOMPARE(state.json().value("offset"_L1).toInteger(), 0);
    QVERIFY(state.json().value("sha256"_L1).isNull());
}

void tst_UploadWithoutDigest::anotherUserCannotSeeFillOrAbandonTheUpload()
{
    const QByteArray bytes = randomBytes(64 * 1024);
    const RawAnswer created = createUpload(m_aliceToken, bytes.size());
    const QString id = created.json().value("id"_L1).toString();
    const QString path = u"/v1/uploads/"_s + id;
    QCOMPARE(request("GET", path, m_bobToken).status, 404);
    QCOMPARE(putChunk(m_bobToken, id, 0, bytes, sha256Hex(bytes)).status, 404);
    QCOMPARE(request("DELETE", path, m_bobToken).status, 404);
    // Alice's upload is as it was, and hers to give up.
    const RawAnswer state = request("GET", path, m_aliceToken);
    QVERIFY2(state.status == 200, qPrintable(state.describe()));
    QVERIFY(state.json().value("sha256"_L1).isNull());
    QCOMPARE(state.json().value("offset"_L1).toInteger(), 0);
    const RawAnswer abandoned = request("DELETE", path, m_aliceToken);
    QVERIFY2(abandoned.status == 200, qPrintable(abandoned.describe()));
    QCOMPARE(request("GET", path, m_aliceToken).status, 404);
}

void tst_UploadWithoutDigest::killedClientResumesAfterTheDigestWasSent()
{
    const QString path = m_dir.filePath(u"killed.bin"_s);
    const QByteArray bytes = writeFile(path, 40 * 1024 * 1024);
    QVERIFY(!bytes.isEmpty());
    const QString digest = sha256Hex(bytes);
    // The killed client: it created the upload without a digest, hashed the file (and recorded
    // it in its cache), and its first chunk named the digest; then it was gone.
    const QString cache = m_dir.filePath(u"cache-%1"_s.arg(++m_caches));
    {
        FileHashCache hashes(cache);
        QCOMPARE(*hashes.sha256(QFileInfo(path).absoluteFilePath()), digest);
        QVERIFY(hashes.save());
    }
    QCOMPARE(FileHashCache(cache).cached(QFileInfo(path).absoluteFilePath()).value_or(QString()),
             digest);
    const RawAnswer created = createUpload(m_aliceToken, bytes.size());
    const QString id = created.json().value("id"_L1).toString();
    const qint64 sent = BlobUpload::ChunkSize;
    const RawAnswer first = putChunk(m_aliceToken, id, 0, bytes.left(sent), digest);
    QVERIFY2(first.status == 200, qPrintable(first.describe()));

    BlobUpload again(m_alice.get(), path);
    again.setHashCachePath(cache);
    QSignalSpy checked(&again, &BlobUpload::digestChecked);
    again.start();
    const Result<QString> &result = again.waitForFinished();
    QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
    QCOMPARE(*result, digest);
    QCOMPARE(again.uploadId(), id);
    QCOMPARE(again.skippedBytes(), sent); // only the rest travelled
    QCOMPARE(checked.size(), 0);          // the cache knew the digest: not sent blind
    Result<ApiResponse> blob = m_alice->getSync(u"/v1/blobs/"_s + digest);
    QVERIFY(blob && blob->body == bytes);
}

void tst_UploadWithoutDigest::runStoppedBeforeTheDigestGoesOnUnderTheSameId()
{
    const QString path = m_dir.filePath(u"stopped.bin"_s);
    const QByteArray bytes = writeFile(path, 40 * 1024 * 1024);
    QVERIFY(!bytes.isEmpty());
    const QString cache = m_dir.filePath(u"cache-%1"_s.arg(++m_caches));
    QString id;
    {
        BlobUpload first(m_alice.get(), path);
        first.setHashCachePath(cache);
        first.start();
        QTRY_VERIFY(!first.uploadId().isEmpty()); // created without a digest, then stopped
        id = first.uploadId();
        first.cancel();
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QTRY_COMPARE(FileHashCache(cache).pendingUpload(absolute).value_or(QString()), id);
    // The hash cache lost the digest too (the other run's cache, say): only the record helps.
    QFile::remove(cache);
    // The server lets go of the stopped run's chunk once it sees the connection closed: until
    // then another chunk is refused (409), an empty one included.
    qint64 offset = -1;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            offset = request("GET", u"/v1/uploads/"_s + id, m_aliceToken)
                         .json()
                         .value("offset"_L1)
                         .toInteger();
            return putChunk(m_aliceToken, id, offset, {}).status == 200;
        }(),
        10000);

    BlobUpload again(m_alice.get(), path);
    again.setHashCachePath(cache);
    again.start();
    const Result<QString> &result = again.waitForFinished();
    QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
    QCOMPARE(*result, sha256Hex(bytes));
    QCOMPARE(again.uploadId(), id);
    QCOMPARE(again.skippedBytes(), offset);
    // Finished: the record is gone, and the blob is whole.
    QTRY_VERIFY(!FileHashCache(cache).pendingUpload(absolute));
    Result<ApiResponse> blob = m_alice->getSync(u"/v1/blobs/"_s + *result);
    QVERIFY(blob && blob->body == bytes);
}

void tst_UploadWithoutDigest::datasetSendsNewLargeFilesBeforeTheyAreHashed()
{
    // One large file new to the server, one the user stored before, and small ones.
    const QString folder = m_dir.filePath(u"dataset"_s);
    const QByteArray fresh = writeFile(folder + u"/fresh.bin"_s, 24 * 1024 * 1024);
    const QByteArray known = writeFile(folder + u"/known.bin"_s, 20 * 1024 * 1024);
    const QByteArray small = writeFile(folder + u"/small.txt"_s, 4096);
    QVERIFY(!fresh.isEmpty() && !known.isEmpty() && !small.isEmpty());
    // The same new bytes under a second path are sent once.
    QVERIFY(QFile::copy(folder + u"/fresh.bin"_s, folder + u"/fresh-copy.bin"_s));
    BlobUpload stored(m_alice.get(), folder + u"/known.bin"_s, sha256Hex(known));
    stored.start();
    QVERIFY(stored.waitForFinished());

    DatasetUpload dataset(m_alice.get(), folder);
    dataset.setName(u"overlap"_s);
    dataset.setHashCachePath(m_dir.filePath(u"cache-%1"_s.arg(++m_caches)));
    QList<qint64> planned;
    QStringList plannedPaths;
    connect(&dataset,
            &DatasetUpload::planned,
            this,
            [&planned, &plannedPaths](const QStringList &paths, qint64 bytes) {
                planned.append(bytes);
                plannedPaths = paths;
            });
    qint64 lastDone = -1;
    qint64 lastTotal = -1;
    connect(&dataset, &DatasetUpload::progress, this, [&](const TransferProgress &progress) {
        lastDone = progress.done;
        lastTotal = progress.total;
    });
    dataset.start();
    const Result<QString> &manifest = dataset.waitForFinished();
    QVERIFY2(manifest, qPrintable(manifest ? QString() : manifest.error().message));
    // What the user already had is not part of the plan, as before.
    QCOMPARE(planned, QList<qint64>{fresh.size() + small.size()});
    QCOMPARE(dataset.filesToSend(), 2);
    QCOMPARE(lastTotal, fresh.size() + small.size());
    QCOMPARE(lastDone, lastTotal);
    QStringList uploaded = dataset.uploadedFiles();
    uploaded.sort();
    QCOMPARE(uploaded.size(), 2);
    QVERIFY(uploaded.at(0).startsWith(u"fresh"_s)); // either of the twins
    plannedPaths.sort();
    QCOMPARE(plannedPaths, uploaded); // the plan names the twin that is sent
    QCOMPARE(uploaded.at(1), u"small.txt"_s);
    QCOMPARE(dataset.manifest().files().size(), 4);
    for (const ManifestFile &file : dataset.manifest().files()) {
        if (file.path.startsWith(u"fresh"_s))
            QCOMPARE(file.sha256, sha256Hex(fresh));
    }
    Result<ApiResponse> blob = m_alice->getSync(u"/v1/blobs/"_s + sha256Hex(fresh));
    QVERIFY(blob && blob->body == fresh);
}

void tst_UploadWithoutDigest::sameFolderAgainSendsNothing()
{
    // A large new file is sent while it is hashed; its record must be gone once it is stored,
    // whatever order the record's writes ran in, and its digest in the hash cache.
    const QString folder = m_dir.filePath(u"again"_s);
    const QByteArray large = writeFile(folder + u"/large.bin"_s, 24 * 1024 * 1024);
    QVERIFY(!large.isEmpty());
    // Enough small files that the scan goes on after the large file is stored.
    for (int i = 0; i < 2000; ++i)
        QVERIFY(!writeFile(folder + u"/small-%1.txt"_s.arg(i), 1024).isEmpty());
    const QString cache = m_dir.filePath(u"cache-%1"_s.arg(++m_caches));
    const QString largePath = QFileInfo(folder + u"/large.bin"_s).absoluteFilePath();
    {
        DatasetUpload first(m_alice.get(), folder);
        first.setHashCachePath(cache);
        qint64 hashed = 0;
        qint64 total = -1;
        connect(&first, &DatasetUpload::hashing, this, [&](qint64 done, qint64 of) {
            hashed = done;
            total = of;
        });
        first.start();
        // The large file's digest is in the hash cache once it is hashed, while the folder is
        // still being scanned: a run killed now resumes by digest next time.
        while (!first.isFinished() && !FileHashCache(cache).cached(largePath))
            QTest::qWait(2);
        QVERIFY2(hashed < total, qPrintable(u"%1 of %2"_s.arg(hashed).arg(total)));
        const Result<QString> &manifest = first.waitForFinished();
        QVERIFY2(manifest, qPrintable(manifest ? QString() : manifest.error().message));
        QVERIFY(first.bytesOnWire() >= large.size());
    }
    for (int run = 0; run < 3; ++run) {
        DatasetUpload again(m_alice.get(), folder);
        again.setHashCachePath(cache);
        again.start();
        const Result<QString> &manifest = again.waitForFinished();
        QVERIFY2(manifest, qPrintable(manifest ? QString() : manifest.error().message));
        QCOMPARE(again.filesToSend(), 0);
        QCOMPARE(again.bytesHashed(), 0);
        QCOMPARE(again.bytesOnWire(), 0);
    }
    QVERIFY(!FileHashCache(cache).pendingUpload(
        QFileInfo(folder + u"/large.bin"_s).absoluteFilePath()));
}

void tst_UploadWithoutDigest::uploadDeletedOnTheServerMidwayStartsAnew()
{
    const QString path = m_dir.filePath(u"deleted.bin"_s);
    const QByteArray bytes = writeFile(path, 40 * 1024 * 1024);
    QVERIFY(!bytes.isEmpty());
    // The digest is handed over by the test (as a folder scan does): the DELETE lands while
    // the upload has none.
    BlobUpload upload(m_alice.get(), path);
    upload.setHashCachePath(m_dir.filePath(u"cache-%1"_s.arg(++m_caches)));
    upload.setDigestComesLater();
    upload.start();
    QTRY_VERIFY(!upload.uploadId().isEmpty());
    const QString id = upload.uploadId();
    QCOMPARE(request("DELETE", u"/v1/uploads/"_s + id, m_aliceToken).status, 200);
    upload.provideDigest(sha256Hex(bytes));
    const Result<QString> &result = upload.waitForFinished();
    QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
    QCOMPARE(*result, sha256Hex(bytes));
    QVERIFY(upload.uploadId() != id);
    Result<ApiResponse> blob = m_alice->getSync(u"/v1/blobs/"_s + *result);
    QVERIFY(blob && blob->body == bytes);
}

void tst_UploadWithoutDigest::recordOfAnUploadThatIsGoneStartsAnew()
{
    const QString path = m_dir.filePath(u"gone.bin"_s);
    const QByteArray bytes = writeFile(path, 20 * 1024 * 1024);
    QVERIFY(!bytes.isEmpty());
    const QString cache = m_dir.filePath(u"cache-%1"_s.arg(++m_caches));
    const QString absolute = QFileInfo(path).absoluteFilePath();
    // An earlier run's record names an upload the server no longer has (expired, abandoned).
    const RawAnswer created = createUpload(m_aliceToken, bytes.size());
    QCOMPARE(created.status, 201);
    const QString goneId = created.json().value("id"_L1).toString();
    QCOMPARE(request("DELETE", u"/v1/uploads/"_s + goneId, m_aliceToken).status, 200);
    FileHashCache(cache).rememberPendingUpload(absolute, goneId);
    QCOMPARE(FileHashCache(cache).pendingUpload(absolute).value_or(QString()), goneId);

    BlobUpload upload(m_alice.get(), path);
    upload.setHashCachePath(cache);
    upload.start();
    const Result<QString> &result = upload.waitForFinished();
    QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
    QCOMPARE(*result, sha256Hex(bytes));
    QVERIFY(upload.uploadId() != goneId);
    QTRY_VERIFY(!FileHashCache(cache).pendingUpload(absolute));
    Result<ApiResponse> blob = m_alice->getSync(u"/v1/blobs/"_s + *result);
    QVERIFY(blob && blob->body == bytes);
}

void tst_UploadWithoutDigest::digestThatIsNotAStringIsRefused()
{
    for (const QByteArray &body :
         {QByteArray(R"({"size":10,"sha256":123})"), QByteArray(R"({"size":10,"sha256":null})")}) {
        const RawAnswer answer = raw("POST /v1/uploads HTTP/1.1\r\nContent-Type: "
                                     "application/json\r\nAuthorization: Bearer " +
                                         m_aliceToken.toLatin1(),
                                     body);
        QVERIFY2(answer.status == 400, qPrintable(answer.describe()));
        QCOMPARE(answer.error().value("field"_L1).toString(), u"sha256"_s);
    }
}

void tst_UploadWithoutDigest::recordsOfTwoPathsAreKeptApart()
{
    // One path ends with a space and the other whole path: neither record is the other's.
    const QString base = QFileInfo(m_dir.filePath(u"records"_s)).absoluteFilePath();
    const QString shortPath = base + u"/x.bin"_s;
    const QString longPath = base + u"/dir "_s + shortPath;
    QVERIFY(!writeFile(shortPath, 1024).isEmpty());
    QVERIFY(!writeFile(longPath, 1024).isEmpty());
    const FileHashCache cache(m_dir.filePath(u"cache-%1"_s.arg(++m_caches)));
    cache.rememberPendingUpload(longPath, u"long-id"_s);
    cache.rememberPendingUpload(shortPath, u"short-id"_s);
    QCOMPARE(cache.pendingUpload(longPath).value_or(QString()), u"long-id"_s);
    QCOMPARE(cache.pendingUpload(shortPath).value_or(QString()), u"short-id"_s);
    cache.forgetPendingUpload(shortPath);
    QVERIFY(!cache.pendingUpload(shortPath));
    QCOMPARE(cache.pendingUpload(longPath).value_or(QString()), u"long-id"_s);
}

void tst_UploadWithoutDigest::recordOfAnUploadWithAnotherDigestIsLeftBehind()
{
    // An earlier run began an upload for this file and named a digest other than the file's
    // (the file was rewritten keeping its size, mtime and inode): its chunks are refused (409),
    // so the upload goes on as a new one, by digest, and the record is forgotten.
    const QString path = m_dir.filePath(u"rewritten.bin"_s);
    const QByteArray bytes = writeFile(path, 20 * 1024 * 1024);
    QVERIFY(!bytes.isEmpty());
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const RawAnswer created = createUpload(m_aliceToken, bytes.size());
    QCOMPARE(created.status, 201);
    const QString oldId = created.json().value("id"_L1).toString();
    const QString otherDigest = sha256Hex("other bytes");
    const RawAnswer chunk = putChunk(m_aliceToken, oldId, 0, bytes.left(1024 * 1024), otherDigest);
    QVERIFY2(chunk.status == 200, qPrintable(chunk.describe()));
    const QString cache = m_dir.filePath(u"cache-%1"_s.arg(++m_caches));
    FileHashCache(cache).rememberPendingUpload(absolute, oldId);

    BlobUpload upload(m_alice.get(), path);
    upload.setHashCachePath(cache);
    upload.start();
    const Result<QString> &result = upload.waitForFinished();
    QVERIFY2(result, qPrintable(result ? QString() : result.error().message));
    QCOMPARE(*result, sha256Hex(bytes));
    QVERIFY(upload.uploadId() != oldId);
    QTRY_VERIFY(!FileHashCache(cache).pendingUpload(absolute));
    Result<ApiResponse> blob = m_alice->getSync(u"/v1/blobs/"_s + *result);
    QVERIFY(blob && blob->body == bytes);
    // A later run of the same file finds the blob stored and sends nothing.
    BlobUpload again(m_alice.get(), path);
    again.setHashCachePath(cache);
    again.start();
    QVERIFY(again.waitForFinished());
    QCOMPARE(again.bytesSent(), 0);
}

void tst_UploadWithoutDigest::cancelStopsTheHashing()
{
    const QString path = m_dir.filePath(u"cancelled.bin"_s);
    const qint64 size = 128 * 1024 * 1024;
    QVERIFY(!writeFile(path, size).isEmpty());
    const QString cache = m_dir.filePath(u"cache-%1"_s.arg(++m_caches));
    const qint64 before = FileHashCache::totalBytesHashed();
    {
        BlobUpload upload(m_alice.get(), path);
        upload.setHashCachePath(cache);
        upload.start();
        upload.cancel();
        QVERIFY(!upload.result());
    }
    // The hashing thread stops within a block of the cancel: the file is not read to its end,
    // and no digest is remembered.
    QTest::qWait(2000);
    QVERIFY2(FileHashCache::totalBytesHashed() - before < size,
             qPrintable(u"%1 bytes hashed"_s.arg(FileHashCache::totalBytesHashed() - before)));
    QVERIFY(!FileHashCache(cache).cached(QFileInfo(path).absoluteFilePath()));
    QFile::remove(path);
}

QTEST_GUILESS_MAIN(tst_UploadWithoutDigest)
#include "tst_uploadwithoutdigest.moc"
