// The data plane through the real ddl-server process over TLS: streamed, resumable, verified
// uploads and ranged downloads, what a crash or a killed client leaves, what another user can
// learn, and the server's memory while gigabytes pass.
#include "serverprocess.h"
#include "serveruser.h"

#include "api/apiclient.h"
#include "api/blobupload.h"
#include "api/dataconnection.h"
#include "api/datasetupload.h"
#include "api/rangedownload.h"
#include "core/crc32c.h"
#include "core/sha256.h"
#include "packaging/datasetmanifest.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace ddl;
using namespace Qt::Literals::StringLiterals;

namespace {

QString peakRss(qint64 pid, qint64 *kib)
{
    QFile status(u"/proc/%1/status"_s.arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return u"cannot read /proc/%1/status"_s.arg(pid);
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmHWM:")) {
            *kib = line.mid(6).trimmed().split(' ').first().toLongLong();
            return {};
        }
    }
    return u"no VmHWM line"_s;
}

// Bytes that differ per offset, so a chunk written at the wrong place changes the digest.
QByteArray patterned(qint64 size, char seed)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (qint64 i = 0; i < size; ++i)
        bytes[i] = char((i * 131 + seed) ^ (i >> 12));
    return bytes;
}

} // namespace

class tst_DataPlane : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void uploadStreamsAndDownloadsByRange();
    void headReportsTheOffset();
    void wrongOffsetIsRefusedAndChangesNothing();
    void corruptedChunkAndWrongDigestAreRejected();
    void anotherUserLearnsNothing();
    void datasetSendsOnlyWhatChangedAndIsStoredOnce();
    void oversizedHeadersAndBodiesAreRefusedEarly();
    void refusalWhileTheBodyIsSentIsHeard();
    void killedClientResumesFromTheServersOffset();
    void serverKilledMidUploadResumesWithTheRightDigest();
    void serverMemoryStaysBoundedDuringTwoGiBUpload();

private:
    // A new account on the test's server, logged in (tests/support/serveruser.h).
    std::unique_ptr<ApiClient> login(const QString &email, QString *token = nullptr)
    {
        return loggedInClient(m_server->url(), m_trust, email, token);
    }
    QString writeFile(const QString &name, const QByteArray &bytes);
    Result<QJsonObject> createUpload(ApiClient &client, qint64 size, const QString &sha256);
    Result<ApiResponse> putChunk(ApiClient &client, const QString &id, qint64 offset,
                                 const QByteArray &bytes,
                                 QList<QPair<QByteArray, QByteArray>> headers = {});
    QByteArray rawExchange(const QByteArray &request);

    QTemporaryDir m_dir;
    std::unique_ptr<ServerProcess> m_server;
    ServerTrust m_trust;
    std::unique_ptr<ApiClient> m_alice;
};

void tst_DataPlane::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_server = std::make_unique<ServerProcess>(m_dir.filePath(u"server"_s));
    const QString started = m_server->start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    Result<ServerTrust> trust = ServerTrust::fromCaFile(m_server->caFile());
    QVERIFY(trust);
    m_trust = *trust;
    m_alice = login(u"alice@example.org"_s);
    QVERIFY(m_alice);
}

void tst_DataPlane::cleanupTestCase()
{
    m_alice.reset();
    if (m_server)
        m_server->stop();
}

QString tst_DataPlane::writeFile(const QString &name, const QByteArray &bytes)
{
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return path;
}

Result<QJsonObject> tst_DataPlane::createUpload(ApiClient &client, qint64 size,
                                                const QString &sha256)
{
    Result<ApiResponse> answer = client.postJsonSync(
        u"/v1/uploads"_s, QJsonObject{{"size"_L1, size}, {"sha256"_L1, sha256}});
    if (!answer)
        return answer.error();
    return answer->json();
}

Result<ApiResponse> tst_DataPlane::putChunk(ApiClient &client, const QString &id, qint64 offset,
                                            const QByteArray &bytes,
                                            QList<QPair<QByteArray, QByteArray>> headers)
{
    QUrlQuery query;
    query.addQueryItem(u"offset"_s, QString::number(offset));
    std::unique_ptr<ApiRequest> request(
        client.sendBytes("PUT", u"/v1/uploads/"_s + id, bytes, query, headers));
    return request->waitForFinished();
}

// One request on a fresh TLS connection; returns what the server sent until it closed or went
// quiet for 3 s.
QByteArray tst_DataPlane::rawExchange(const QByteArray &request)
{
    QSslSocket socket;
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    ssl.setCaCertificates(m_trust.caCertificates);
    socket.setSslConfiguration(ssl);
    socket.setPeerVerifyName(u"127.0.0.1"_s);
    socket.connectToHostEncrypted(u"127.0.0.1"_s, m_server->port());
    if (!socket.waitForEncrypted(5000))
        return "no TLS: " + socket.errorString().toUtf8();
    socket.write(request);
    QByteArray answer;
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(3000))
        answer += socket.readAll();
    return answer + socket.readAll();
}

void tst_DataPlane::uploadStreamsAndDownloadsByRange()
{
    // Three chunks (16 MiB each), two of them in flight at once.
    const QByteArray bytes = patterned(40 * 1024 * 1024 + 17, 'a');
    const QString path = writeFile(u"forty.bin"_s, bytes);
    BlobUpload upload(m_alice.get(), path);
    upload.start();
    const Result<QString> &uploaded = upload.waitForFinished();
    QVERIFY2(uploaded, uploaded ? "" : qPrintable(uploaded.error().message));
    QCOMPARE(*uploaded, *sha256OfFile(path));

    const QString copy = m_dir.filePath(u"forty.copy"_s);
    RangeDownload download(m_alice.get(), u"/v1/blobs/"_s + *uploaded, {}, copy, *uploaded);
    download.start();
    const Result<QString> &downloaded = download.waitForFinished();
    QVERIFY2(downloaded, downloaded ? "" : qPrintable(downloaded.error().message));
    QCOMPARE(*sha256OfFile(copy), *uploaded);

    Result<ApiResponse> slice = std::unique_ptr<ApiRequest>(
                                    m_alice->get(u"/v1/blobs/"_s + *uploaded, {},
                                                 {{"Range", "bytes=1000-1999"}}))
                                    ->waitForFinished();
    QVERIFY(slice);
    QCOMPARE(slice->status, 206);
    QCOMPARE(slice->body, bytes.mid(1000, 1000));
    QCOMPARE(slice->header("Content-Range"), QByteArray("bytes 1000-1999/41943057"));
}

void tst_DataPlane::headReportsTheOffset()
{
    const QByteArray bytes = patterned(3000, 'h');
    Result<QJsonObject> created = createUpload(*m_alice, bytes.size(),
                                               *sha256OfFile(writeFile(u"h.bin"_s, bytes)));
    QVERIFY(created);
    const QString id = created->value("id"_L1).toString();
    QVERIFY(putChunk(*m_alice, id, 0, bytes.first(1000)));
    Result<ApiResponse> head =
        std::unique_ptr<ApiRequest>(m_alice->sendBytes("HEAD", u"/v1/uploads/"_s + id, {}))
            ->waitForFinished();
    QVERIFY(head);
    QCOMPARE(head->header("Upload-Offset"), QByteArray("1000"));
    QCOMPARE(head->header("Upload-Length"), QByteArray("3000"));
}

void tst_DataPlane::wrongOffsetIsRefusedAndChangesNothing()
{
    const QByteArray bytes = patterned(4096, 'o');
    Result<QJsonObject> created = createUpload(*m_alice, bytes.size(),
                                               *sha256OfFile(writeFile(u"o.bin"_s, bytes)));
    QVERIFY(created);
    const QString id = created->value("id"_L1).toString();
    QVERIFY(putChunk(*m_alice, id, 0, bytes.first(1024)));
    const QString part = m_server->dataDir() + u"/uploads/"_s + id + u".part"_s;
    QCOMPARE(QFileInfo(part).size(), 1024);

    Result<ApiResponse> early = putChunk(*m_alice, id, 0, bytes.first(2048));
    QVERIFY(!early);
    QCOMPARE(early.error().code, u"offset_mismatch"_s);
    Result<ApiResponse> late = putChunk(*m_alice, id, 2048, bytes.mid(2048));
    QVERIFY(!late);
    QCOMPARE(late.error().code, u"offset_mismatch"_s);
    QVERIFY(late.error().message.contains(u"send from 1024"_s));
    QCOMPARE(QFileInfo(part).size(), 1024);

    Result<ApiResponse> rest = putChunk(*m_alice, id, 1024, bytes.mid(1024));
    QVERIFY(rest);
    QCOMPARE(rest->json().value("complete"_L1).toBool(), true);
}

void tst_DataPlane::corruptedChunkAndWrongDigestAreRejected()
{
    const QByteArray bytes = patterned(100000, 'c');
    const QString sha = *sha256OfFile(writeFile(u"c.bin"_s, bytes));
    Result<QJsonObject> created = createUpload(*m_alice, bytes.size(), sha);
    QVERIFY(created);
    const QString id = created->value("id"_L1).toString();
    Crc32c crc;
    crc.add(bytes.first(50000));
    QByteArray flipped = bytes.first(50000);
    flipped[777] = char(flipped[777] ^ 0x01); // one bit changed on the way
    const QByteArray header = QByteArray::number(crc.value(), 16).rightJustified(8, '0');
    Result<ApiResponse> corrupted = putChunk(*m_alice, id, 0, flipped, {{"DDL-Chunk-CRC32C", header}});
    QVERIFY(!corrupted);
    QCOMPARE(corrupted.error().code, u"chunk_corrupted"_s);
    Result<QJsonObject> state = createUpload(*m_alice, bytes.size(), sha);
    QVERIFY(state);
    QCOMPARE(state->value("offset"_L1).toInteger(), 0);
    QVERIFY(putChunk(*m_alice, id, 0, bytes.first(50000), {{"DDL-Chunk-CRC32C", header}}));

    // Bytes that do not hash to the declared digest: the upload is dropped, nothing appears.
    const QString declared = *sha256OfFile(writeFile(u"d.bin"_s, patterned(3000, 'x')));
    Result<QJsonObject> liar = createUpload(*m_alice, 3000, declared);
    QVERIFY(liar);
    const QString liarId = liar->value("id"_L1).toString();
    Result<ApiResponse> wrong = putChunk(*m_alice, liarId, 0, patterned(3000, 'y'));
    QVERIFY(!wrong);
    QCOMPARE(wrong.error().code, u"digest_mismatch"_s);
    QVERIFY(!QFile::exists(m_server->dataDir() + u"/uploads/"_s + liarId + u".part"_s));
    QVERIFY(!QFile::exists(m_server->dataDir() + u"/blobs/"_s + declared.left(2) + u'/' + declared));
    Result<ApiResponse> gone = putChunk(*m_alice, liarId, 0, patterned(3000, 'x'));
    QCOMPARE(gone.error().code, u"not_found"_s);
}

void tst_DataPlane::anotherUserLearnsNothing()
{
    // Alice's dataset: one file and its manifest.
    const QString folder = m_dir.filePath(u"secret-data"_s);
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(!writeFile(u"secret-data/labels.csv"_s, "id,label\n1,cat\n").isEmpty());
    Result<DatasetManifest> manifest = DatasetManifest::scan(folder);
    QVERIFY(manifest);
    const QString fileSha = manifest->files().first().sha256;
    BlobUpload file(m_alice.get(), folder + u"/labels.csv"_s);
    file.start();
    QVERIFY(file.waitForFinished());
    const QString manifestPath = writeFile(u"secret-manifest.json"_s, manifest->toJson());
    BlobUpload manifestUpload(m_alice.get(), manifestPath);
    manifestUpload.start();
    QVERIFY(manifestUpload.waitForFinished());
    QVERIFY(m_alice->postJsonSync(u"/v1/datasets"_s,
                                  {{"name"_L1, u"secret"_s}, {"manifest_sha256"_L1, manifest->sha256()}}));

    std::unique_ptr<ApiClient> bob = login(u"bob@example.org"_s);
    QVERIFY(bob);
    const auto get = [&](const QString &path) {
        return std::unique_ptr<ApiRequest>(bob->get(path))->waitForFinished();
    };
    QCOMPARE(get(u"/v1/blobs/"_s + fileSha).error().code, u"not_found"_s);
    QCOMPARE(get(u"/v1/datasets/secret"_s).error().code, u"not_found"_s);
    QCOMPARE(get(u"/v1/datasets"_s)->json().value("datasets"_L1).toArray().size(), 0);
    // Asking about a digest tells Bob only that he lacks it, as for any digest.
    Result<ApiResponse> missing = bob->postJsonSync(
        u"/v1/blobs/missing"_s, QJsonObject{{"sha256"_L1, QJsonArray{fileSha}}});
    QVERIFY(missing);
    QCOMPARE(missing->json().value("missing"_L1).toArray(), QJsonArray{fileSha});
    Result<QJsonObject> upload = createUpload(*bob, manifest->files().first().size, fileSha);
    QVERIFY(upload);
    QCOMPARE(upload->value("complete"_L1).toBool(), false);
    QCOMPARE(upload->value("offset"_L1).toInteger(), 0);
    Result<ApiResponse> steal = bob->postJsonSync(
        u"/v1/datasets"_s, {{"name"_L1, u"mine"_s}, {"manifest_sha256"_L1, manifest->sha256()}});
    QVERIFY(!steal);
    QCOMPARE(steal.error().code, u"bad_request"_s);
    Result<ApiResponse> removed =
        std::unique_ptr<ApiRequest>(bob->sendBytes("DELETE", u"/v1/datasets/secret"_s, {}))
            ->waitForFinished();
    QCOMPARE(removed.error().code, u"not_found"_s);
    QVERIFY(std::unique_ptr<ApiRequest>(m_alice->get(u"/v1/datasets/secret"_s))->waitForFinished());
}

// Bytes in the files under folder.
static qint64 bytesUnder(const QString &folder)
{
    qint64 bytes = 0;
    QDirIterator it(folder, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        bytes += it.fileInfo().size();
    }
    return bytes;
}

void tst_DataPlane::datasetSendsOnlyWhatChangedAndIsStoredOnce()
{
    const QString folder = m_dir.filePath(u"images"_s);
    QVERIFY(QDir().mkpath(folder + u"/train"_s));
    for (int i = 0; i < 5; ++i)
        QVERIFY(!writeFile(u"images/train/%1.bin"_s.arg(i), patterned(200000 + i, char('0' + i))).isEmpty());
    qint64 manifestBytes = 0;
    const auto upload = [&](int *files, qint64 *bytes) -> QString {
        DatasetUpload dataset(m_alice.get(), folder);
        dataset.start();
        const Result<QString> &manifest = dataset.waitForFinished();
        if (!manifest)
            return {};
        *files = dataset.filesToSend();
        *bytes = dataset.bytesToSend();
        manifestBytes = dataset.manifest().toJson().size();
        return *manifest;
    };
    int files = 0;
    qint64 bytes = 0;
    const QString first = upload(&files, &bytes);
    QVERIFY(!first.isEmpty());
    QCOMPARE(files, 5);
    // Blobs lie in files of their own (large ones) or in packs (those sent in batches).
    const auto storedBytes = [&] {
        return bytesUnder(m_server->dataDir() + u"/blobs"_s)
               + bytesUnder(m_server->dataDir() + u"/packs"_s);
    };
    const qint64 stored = storedBytes();

    // The same folder ten times (ten jobs' worth): nothing sent, nothing stored again.
    for (int i = 0; i < 10; ++i) {
        QCOMPARE(upload(&files, &bytes), first);
        QCOMPARE(files, 0);
        QCOMPARE(bytes, 0);
    }
    QCOMPARE(storedBytes(), stored);

    // One file changed: that file alone goes, plus the new manifest.
    QVERIFY(!writeFile(u"images/train/3.bin"_s, patterned(123456, 'z')).isEmpty());
    const QString second = upload(&files, &bytes);
    QVERIFY(!second.isEmpty() && second != first);
    QCOMPARE(files, 1);
    QCOMPARE(bytes, 123456);
    QCOMPARE(storedBytes(), stored + 123456 + manifestBytes);
}

void tst_DataPlane::oversizedHeadersAndBodiesAreRefusedEarly()
{
    const QByteArray hugeHeader = "GET /v1/version HTTP/1.1\r\nHost: x\r\nX-Filler: "
                                  + QByteArray(40 * 1024, 'a') + "\r\n\r\n";
    QVERIFY(rawExchange(hugeHeader).startsWith("HTTP/1.1 431 "));
    // Only the head is sent: the answer must come without the 100 MB body.
    const QByteArray bigBody = "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: "
                               "application/json\r\nContent-Length: 100000000\r\n\r\n";
    const QByteArray answer = rawExchange(bigBody);
    QVERIFY2(answer.startsWith("HTTP/1.1 413 "), answer.left(200).constData());
    QVERIFY(answer.contains("payload_too_large"));
    // A chunk longer than its upload: refused from the head as well.
    Result<QJsonObject> created = createUpload(*m_alice, 10, *sha256OfFile(writeFile(u"ten"_s, "0123456789")));
    QVERIFY(created);
    const QByteArray chunk = "PUT /v1/uploads/" + created->value("id"_L1).toString().toLatin1()
                             + "?offset=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                             + m_alice->bearerToken().toLatin1()
                             + "\r\nContent-Length: 5000000000\r\n\r\n";
    QVERIFY(rawExchange(chunk).startsWith("HTTP/1.1 413 "));
}

// The server refuses a chunk from its head (an upload gone: 404; a token refused: 401), answers
// and closes while the client is still sending the body. The client reads that answer, which
// says what to do (BlobUpload starts a gone upload again; a refused token asks for a login),
// instead of failing to send — and is not ended by SIGPIPE on the way, as ddlcli, which leaves
// SIGPIPE to end the program, would be.
void tst_DataPlane::refusalWhileTheBodyIsSentIsHeard()
{
    const auto before = std::signal(SIGPIPE, SIG_DFL); // Qt's QProcess may have set it aside
    const QString path = writeFile(u"refused.bin"_s, patterned(64LL << 20, 'r'));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto put = [&](ApiClient &client) {
        DataTransferControl control;
        return client.dataConnections()->request(
            control,
            client.dataRequestHead(
                "PUT", u"/v1/uploads/0123456789abcdef0123456789abcdef"_s, QUrlQuery(u"offset=0"_s)),
            file.handle(),
            0,
            file.size(),
            {},
            {});
    };
    const Result<DataAnswer> gone = put(*m_alice);
    ApiClient stranger(m_server->url(), m_trust);
    stranger.setBearerToken(u"not-a-token"_s);
    const Result<DataAnswer> refused = put(stranger);
    const Result<DataAnswer> again = put(*m_alice); // the closed connection is not used again
    std::signal(SIGPIPE, before);
    QVERIFY2(gone, gone ? "" : qPrintable(gone.error().message));
    QCOMPARE(gone->status, 404);
    QVERIFY2(gone->body.contains("create it again"), gone->body.constData());
    QVERIFY2(refused, refused ? "" : qPrintable(refused.error().message));
    QCOMPARE(refused->status, 401);
    QVERIFY2(again, again ? "" : qPrintable(again.error().message));
    QCOMPARE(again->status, 404);
}

void tst_DataPlane::killedClientResumesFromTheServersOffset()
{
    const QString folder = m_dir.filePath(u"big-data"_s);
    QVERIFY(QDir().mkpath(folder));
    const QString path = writeFile(u"big-data/weights.bin"_s, patterned(160LL << 20, 'k'));
    QVERIFY(!path.isEmpty());
    const QString sha = *sha256OfFile(path);
    const qint64 size = QFileInfo(path).size();

    // The real client, as a user runs it, killed once the server holds three chunks.
    QProcess ddlcli;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"XDG_CONFIG_HOME"_s, m_dir.filePath(u"cli-config"_s));
    env.insert(u"DDL_SERVER"_s, m_server->url().toString());
    env.insert(u"DDL_CA_CERT"_s, m_server->caFile());
    ddlcli.setProcessEnvironment(env);
    ddlcli.setProcessChannelMode(QProcess::MergedChannels);
    const QString program = ServerProcess::binary(u"ddlcli"_s);
    ddlcli.start(program, {u"register"_s});
    ddlcli.write("carol@example.org\ncorrect horse 42\ncorrect horse 42\n");
    ddlcli.closeWriteChannel();
    QVERIFY(ddlcli.waitForFinished(20000));
    ddlcli.start(program, {u"login"_s});
    ddlcli.write("carol@example.org\ncorrect horse 42\n");
    ddlcli.closeWriteChannel();
    QVERIFY(ddlcli.waitForFinished(20000));
    QCOMPARE(ddlcli.exitCode(), 0);
    std::unique_ptr<ApiClient> carol = std::make_unique<ApiClient>(m_server->url(), m_trust);
    Result<ApiResponse> session = carol->postJsonSync(
        u"/v1/auth/login"_s,
        QJsonObject{{"email"_L1, u"carol@example.org"_s}, {"password"_L1, u"correct horse 42"_s}});
    QVERIFY(session);
    carol->setBearerToken(session->json().value("access_token"_L1).toString());

    ddlcli.start(program, {u"dataset"_s, u"upload"_s, folder, u"--name"_s, u"big"_s});
    qint64 seen = 0;
    QElapsedTimer clock;
    clock.start();
    while (seen < 3 * BlobUpload::ChunkSize && clock.elapsed() < 60000) {
        QTest::qWait(20);
        Result<QJsonObject> state = createUpload(*carol, size, sha);
        QVERIFY(state);
        seen = state->value("offset"_L1).toInteger();
    }
    QVERIFY2(seen < size, "the upload finished before the client could be killed");
    ::kill(pid_t(ddlcli.processId()), SIGKILL);
    QVERIFY(ddlcli.waitForFinished(5000));
    QTest::qWait(300);
    Result<QJsonObject> after = createUpload(*carol, size, sha);
    QVERIFY(after);
    const qint64 kept = after->value("offset"_L1).toInteger();
    QVERIFY(kept >= seen);
    QCOMPARE(kept % BlobUpload::ChunkSize, 0);

    // The next run sends only what the server did not acknowledge.
    BlobUpload resumed(carol.get(), path, sha);
    resumed.start();
    QVERIFY(resumed.waitForFinished());
    QCOMPARE(resumed.skippedBytes(), kept);
    ddlcli.start(program, {u"dataset"_s, u"upload"_s, folder, u"--name"_s, u"big"_s});
    QVERIFY(ddlcli.waitForFinished(60000));
    QVERIFY2(ddlcli.exitCode() == 0, ddlcli.readAll().constData());
    ddlcli.start(program, {u"dataset"_s, u"download"_s, u"big"_s, u"--dest"_s,
                           m_dir.filePath(u"big-copy"_s)});
    QVERIFY(ddlcli.waitForFinished(60000));
    QVERIFY2(ddlcli.exitCode() == 0, ddlcli.readAll().constData());
    QCOMPARE(*sha256OfFile(m_dir.filePath(u"big-copy/weights.bin"_s)), sha);
}

void tst_DataPlane::serverKilledMidUploadResumesWithTheRightDigest()
{
    const QString path = writeFile(u"crash.bin"_s, patterned(120LL << 20, 's'));
    const QString sha = *sha256OfFile(path);
    const qint64 size = QFileInfo(path).size();
    {
        BlobUpload upload(m_alice.get(), path, sha);
        connect(&upload, &BlobUpload::progress, this, [&](const TransferProgress &progress) {
            if (progress.done >= 40LL << 20 && m_server->processId() > 0)
                ::kill(pid_t(m_server->processId()), SIGKILL);
        });
        upload.start();
        QVERIFY(!upload.waitForFinished()); // the server died under it
    }
    const quint16 port = m_server->port();
    const QString restarted = m_server->start(port);
    QVERIFY2(restarted.isEmpty(), qPrintable(restarted));
    Result<QJsonObject> state = createUpload(*m_alice, size, sha);
    QVERIFY(state);
    const qint64 kept = state->value("offset"_L1).toInteger();
    QVERIFY(kept > 0);
    // No partial blob is visible under its digest.
    QVERIFY(!QFile::exists(m_server->dataDir() + u"/blobs/"_s + sha.left(2) + u'/' + sha));

    BlobUpload resumed(m_alice.get(), path, sha);
    resumed.start();
    const Result<QString> &done = resumed.waitForFinished();
    QVERIFY2(done, done ? "" : qPrintable(done.error().message));
    QCOMPARE(resumed.skippedBytes(), kept);
    QCOMPARE(*sha256OfFile(m_server->dataDir() + u"/blobs/"_s + sha.left(2) + u'/' + sha), sha);
}

void tst_DataPlane::serverMemoryStaysBoundedDuringTwoGiBUpload()
{
    // A sparse file: 2 GiB of zeros without 2 GiB of disk for the source.
    const QString path = m_dir.filePath(u"two-gib.bin"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QVERIFY(file.resize(2LL << 30));
    file.close();
    BlobUpload upload(m_alice.get(), path);
    upload.start();
    const Result<QString> &done = upload.waitForFinished();
    QVERIFY2(done, done ? "" : qPrintable(done.error().message));
    qint64 kib = 0;
    const QString problem = peakRss(m_server->processId(), &kib);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    qInfo("ddl-server peak RSS after a 2 GiB upload: %lld MiB", kib / 1024);
    QVERIFY2(kib < 150 * 1024, qPrintable(u"peak RSS %1 MiB"_s.arg(kib / 1024)));
}

QTEST_MAIN(tst_DataPlane)
#include "tst_dataplane.moc"
