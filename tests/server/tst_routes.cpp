// The server's one route table, seen from a client that keeps one connection: a real ServerApp
// in-process over real TLS on 127.0.0.1, and a raw HTTP/1.1 client that sends request after
// request on a single kept-alive connection, as browsers, curl and QNetworkAccessManager do.
// Every request behaves on that connection as it does on a fresh one: data-plane requests
// (chunks, blob downloads, log follow) after control requests, logins after anything, and the
// answers for unknown paths (404) and wrong methods (405 with Allow) leave the connection usable.
#include "app/serverapp.h"
#include "app/tokencommand.h"
#include "core/crc32c.h"

#include <QCryptographicHash>
#include <QDir>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>
#include <memory>

using namespace ddl;
using namespace ddl::server;
using namespace Qt::StringLiterals;

namespace {

const QByteArray Password = "correct horse battery";

// One answer as it came over the wire.
struct Answer
{
    int status = 0;
    QHash<QByteArray, QByteArray> headers; // names in lower case
    QByteArray body;
    QString problem; // why there is no answer

    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()); }
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QString errorCode() const
    {
        return json().value("error"_L1).toObject().value("code"_L1).toString();
    }
    QString describe() const
    {
        return problem.isEmpty()
                   ? u"HTTP %1 %2"_s.arg(status).arg(QString::fromUtf8(body.left(300)))
                   : problem;
    }
};

// One kept-alive TLS connection, opened once: a request is sent and its answer read whole (by
// Content-Length, or chunk by chunk), or its head first and the body later. The waits spin the
// event loop, so the in-process server runs meanwhile. It never reconnects: a connection the
// server closed fails the next request.
class Connection
{
public:
    Connection(quint16 port, const QList<QSslCertificate> &ca)
    {
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        ssl.setCaCertificates(ca);
        m_socket.setSslConfiguration(ssl);
        m_socket.connectToHostEncrypted(u"127.0.0.1"_s, port);
        waitFor([this] { return m_socket.isEncrypted(); });
    }

    bool isOpen() const
    {
        return m_socket.isEncrypted() && m_socket.state() == QAbstractSocket::ConnectedState;
    }

    void write(const QByteArray &method, const QByteArray &target, const QByteArray &token = {},
               const QByteArray &body = {}, const QList<QByteArray> &headers = {})
    {
        m_method = method;
        QByteArray request = method + ' ' + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        if (!token.isEmpty())
            request += "Authorization: Bearer " + token + "\r\n";
        for (const QByteArray &header : headers)
            request += header + "\r\n";
        if (!body.isEmpty() || method == "POST" || method == "PUT")
            request += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
        m_socket.write(request + "\r\n" + body);
    }

    Answer send(const QByteArray &method, const QByteArray &target, const QByteArray &token = {},
                const QByteArray &body = {}, const QList<QByteArray> &headers = {})
    {
        write(method, target, token, body, headers);
        Answer answer = readHead();
        if (answer.problem.isEmpty())
            readBody(&answer);
        return answer;
    }

    Answer postJson(const QByteArray &path, const QByteArray &token, const QJsonObject &body)
    {
        return send("POST", path, token, QJsonDocument(body).toJson(QJsonDocument::Compact),
                    {"Content-Type: application/json"});
    }

    Answer readHead()
    {
        Answer answer;
        if (!waitFor([this] { return m_buffer.contains("\r\n\r\n"); })) {
            answer.problem = u"no answer within 15 s (connection %1)"_s.arg(
                isOpen() ? u"open"_s : u"closed"_s);
            return answer;
        }
        const qsizetype end = m_buffer.indexOf("\r\n\r\n");
        const QList<QByteArray> lines = m_buffer.left(end).split('\n');
        m_buffer.remove(0, end + 4);
        answer.status = lines.value(0).split(' ').value(1).toInt();
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            answer.headers.insert(lines[i].left(colon).trimmed().toLower(),
                                  lines[i].mid(colon + 1).trimmed());
        }
        return answer;
    }

    void readBody(Answer *answer)
    {
        if (m_method == "HEAD" || answer->status == 100)
            return;
        if (answer->header("Transfer-Encoding") != "chunked") {
            const qsizetype length = answer->header("Content-Length").toLongLong();
            if (!waitFor([&] { return m_buffer.size() >= length; }))
                answer->problem = u"the body did not arrive whole"_s;
            answer->body = m_buffer.left(length);
            m_buffer.remove(0, length);
            return;
        }
        forever {
            if (!waitFor([this] { return m_buffer.contains("\r\n"); })) {
                answer->problem = u"the chunked body did not end"_s;
                return;
            }
            const qsizetype lineEnd = m_buffer.indexOf("\r\n");
            const qsizetype size = m_buffer.left(lineEnd).toLongLong(nullptr, 16);
            if (!waitFor([&] { return m_buffer.size() >= lineEnd + 2 + size + 2; })) {
                answer->problem = u"a chunk did not arrive whole"_s;
                return;
            }
            answer->body += m_buffer.mid(lineEnd + 2, size);
            m_buffer.remove(0, lineEnd + 2 + size + 2);
            if (size == 0)
                return;
        }
    }

private:
    bool waitFor(const std::function<bool()> &done)
    {
        QTimer timeout;
        timeout.setSingleShot(true);
        timeout.start(15000);
        while (!done()) {
            if (!timeout.isActive() || (m_socket.state() == QAbstractSocket::UnconnectedState
                                        && m_socket.bytesAvailable() == 0)) {
                return false;
            }
            QEventLoop loop;
            QObject::connect(&m_socket, &QSslSocket::readyRead, &loop, &QEventLoop::quit);
            QObject::connect(&m_socket, &QSslSocket::encrypted, &loop, &QEventLoop::quit);
            QObject::connect(&m_socket, &QSslSocket::disconnected, &loop, &QEventLoop::quit);
            QObject::connect(&timeout, &QTimer::timeout, &loop, &QEventLoop::quit);
            if (m_socket.bytesAvailable() == 0)
                loop.exec();
            m_buffer += m_socket.readAll();
        }
        return true;
    }

    QSslSocket m_socket;
    QByteArray m_buffer;
    QByteArray m_method;
};

QByteArray crcHeader(const QByteArray &bytes, bool corrupt)
{
    Crc32c crc;
    crc.add(bytes);
    const uint32_t value = corrupt ? ~crc.value() : crc.value();
    return "DDL-Chunk-CRC32C: " + QByteArray::number(value, 16).rightJustified(8, '0');
}

QByteArray sha256Hex(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

} // namespace

#define VERIFY_ANSWER(answer, expected)                                                            \
    do {                                                                                           \
        const Answer &answer_ = (answer);                                                          \
        QVERIFY2(answer_.status == (expected), qPrintable(answer_.describe()));                    \
    } while (false)

class tst_Routes : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void chunkIsCheckedOnAnyConnection_data();
    void chunkIsCheckedOnAnyConnection();
    void blobIsServedAfterAControlRequest();
    void logFollowStreamsAfterAControlRequest();
    void loginAfterAControlRequest();
    void wrongMethodIsRefusedWithAllow_data();
    void wrongMethodIsRefusedWithAllow();

private:
    std::unique_ptr<Connection> open() const
    {
        return std::make_unique<Connection>(m_server->port(), m_ca);
    }
    // Registers and logs in a user on the connection; returns its access token.
    QByteArray newUser(Connection &connection, const QByteArray &email);
    // Creates an upload of bytes on the connection; returns its id, empty on failure.
    QByteArray createUpload(Connection &connection, const QByteArray &token,
                            const QByteArray &bytes);

    QTemporaryDir m_dir;
    std::unique_ptr<ServerApp> m_server;
    QList<QSslCertificate> m_ca;
    QByteArray m_alice;
    int m_users = 0;
};

void tst_Routes::initTestCase()
{
    QVERIFY(m_dir.isValid());
    ServerConfig config;
    config.dataDir = m_dir.filePath(u"data"_s);
    QVERIFY(config.setListen(u"127.0.0.1:0"_s));
    config.workerTimeoutSeconds = 600;
    m_server = std::make_unique<ServerApp>(config);
    const Status started = m_server->start();
    QVERIFY2(started, started ? "" : qPrintable(started.error().message));
    m_ca = QSslCertificate::fromPath(QDir(config.dataDir).filePath(u"tls/server.crt"_s));
    QVERIFY(!m_ca.isEmpty());
    auto connection = open();
    QVERIFY(connection->isOpen());
    m_alice = newUser(*connection, "alice@example.org");
    QVERIFY(!m_alice.isEmpty());
}

void tst_Routes::cleanupTestCase()
{
    m_server.reset();
}

QByteArray tst_Routes::newUser(Connection &connection, const QByteArray &email)
{
    const QJsonObject credentials{{u"email"_s, QString::fromLatin1(email)},
                                  {u"password"_s, QString::fromLatin1(Password)}};
    const Answer registered = connection.postJson("/v1/auth/register", {}, credentials);
    if (registered.status != 201) {
        qWarning("register: %s", qPrintable(registered.describe()));
        return {};
    }
    const Answer login = connection.postJson("/v1/auth/login", {}, credentials);
    if (login.status != 200) {
        qWarning("login: %s", qPrintable(login.describe()));
        return {};
    }
    return login.json().value("access_token"_L1).toString().toLatin1();
}

QByteArray tst_Routes::createUpload(Connection &connection, const QByteArray &token,
                                    const QByteArray &bytes)
{
    const Answer created = connection.postJson(
        "/v1/uploads", token,
        {{u"size"_s, bytes.size()}, {u"sha256"_s, QString::fromLatin1(sha256Hex(bytes))}});
    if (created.status != 201)
        qWarning("create upload: %s", qPrintable(created.describe()));
    return created.json().value("id"_L1).toString().toLatin1();
}

void tst_Routes::chunkIsCheckedOnAnyConnection_data()
{
    QTest::addColumn<bool>("sameConnection");
    QTest::newRow("fresh connection") << false;
    QTest::newRow("after control requests on the connection") << true;
}

void tst_Routes::chunkIsCheckedOnAnyConnection()
{
    QFETCH(bool, sameConnection);
    auto control = open();
    QVERIFY(control->isOpen());
    VERIFY_ANSWER(control->send("GET", "/v1/version"), 200);
    const QByteArray bytes = QByteArray("chunk of ") + QTest::currentDataTag();
    const QByteArray id = createUpload(*control, m_alice, bytes);
    QVERIFY(!id.isEmpty());

    std::unique_ptr<Connection> fresh = sameConnection ? nullptr : open();
    Connection &chunks = sameConnection ? *control : *fresh;
    const QByteArray target = "/v1/uploads/" + id + "?offset=0";
    const Answer corrupted = chunks.send("PUT", target, m_alice, bytes, {crcHeader(bytes, true)});
    VERIFY_ANSWER(corrupted, 422);
    QCOMPARE(corrupted.errorCode(), u"chunk_corrupted"_s);
    // Nothing of the corrupted chunk was kept, and the connection goes on.
    const Answer state = chunks.send("HEAD", "/v1/uploads/" + id, m_alice);
    VERIFY_ANSWER(state, 200);
    QCOMPARE(state.header("Upload-Offset"), "0");
    const Answer sent = chunks.send("PUT", target, m_alice, bytes, {crcHeader(bytes, false)});
    VERIFY_ANSWER(sent, 200);
    QCOMPARE(sent.json().value("complete"_L1).toBool(), true);
    QVERIFY(chunks.isOpen());
}

void tst_Routes::blobIsServedAfterAControlRequest()
{
    auto connection = open();
    const QByteArray bytes = QByteArray(100'000, 'b') + "end";
    const QByteArray id = createUpload(*connection, m_alice, bytes);
    QVERIFY(!id.isEmpty());
    VERIFY_ANSWER(connection->send("PUT", "/v1/uploads/" + id + "?offset=0", m_alice, bytes,
                                   {crcHeader(bytes, false)}),
                  200);
    VERIFY_ANSWER(connection->send("GET", "/v1/jobs", m_alice), 200);

    const QByteArray path = "/v1/blobs/" + sha256Hex(bytes);
    const Answer whole = connection->send("GET", path, m_alice);
    VERIFY_ANSWER(whole, 200);
    QCOMPARE(whole.body, bytes);
    const Answer tail = connection->send("GET", path, m_alice, {}, {"Range: bytes=99998-"});
    VERIFY_ANSWER(tail, 206);
    QCOMPARE(tail.body, "bbend");
    const Answer head = connection->send("HEAD", path, m_alice);
    VERIFY_ANSWER(head, 200);
    QCOMPARE(head.header("Content-Length"), QByteArray::number(bytes.size()));
    // Another user's token on the same path: as if the blob did not exist.
    const QByteArray bob = newUser(*connection, "bob@example.org");
    const Answer refused = connection->send("GET", path, bob);
    VERIFY_ANSWER(refused, 404);
    QCOMPARE(refused.errorCode(), u"not_found"_s);
    QVERIFY(connection->isOpen());
}

void tst_Routes::logFollowStreamsAfterAControlRequest()
{
    auto connection = open();
    const Result<QString> enrollToken = createEnrollToken(m_dir.filePath(u"data"_s));
    QVERIFY(enrollToken);
    const Answer enrolled = connection->postJson("/v1/workers/enroll", {},
                                                 {{u"enroll_token"_s, *enrollToken},
                                                  {u"name"_s, u"follow-worker"_s},
                                                  {u"hostname"_s, u"follow.local"_s},
                                                  {u"cpus"_s, 4},
                                                  {u"memory_mb"_s, 8192},
                                                  {u"gpus"_s, 0},
                                                  {u"slots"_s, 1}});
    VERIFY_ANSWER(enrolled, 201);
    const QByteArray worker = enrolled.json().value("worker_token"_L1).toString().toLatin1();

    const QByteArray package = "package of the follow test";
    const QByteArray id = createUpload(*connection, m_alice, package);
    VERIFY_ANSWER(connection->send("PUT", "/v1/uploads/" + id + "?offset=0", m_alice, package), 200);
    const QJsonObject role{{u"name"_s, u"worker"_s},
                           {u"taskNumber"_s, 1},
                           {u"cpuNumber"_s, 1},
                           {u"memoryMB"_s, 1024},
                           {u"gpuNumber"_s, 0}};
    const QJsonObject spec{{u"kind"_s, u"ddl"_s},
                           {u"jobName"_s, u"follow"_s},
                           {u"taskRoles"_s, QJsonArray{role}}};
    const Answer submitted = connection->postJson(
        "/v1/jobs", m_alice,
        {{u"spec"_s, spec},
         {u"package"_s,
          QJsonObject{{u"sha256"_s, QString::fromLatin1(sha256Hex(package))},
                      {u"commit"_s, u"0123abcd"_s}}},
         {u"dataset"_s, QJsonValue()}});
    VERIFY_ANSWER(submitted, 201);
    const QByteArray uuid = submitted.json().value("uuid"_L1).toString().toLatin1();
    const Answer leased = connection->postJson("/v1/workers/lease", worker, {});
    VERIFY_ANSWER(leased, 200);
    const QJsonArray tasks = leased.json().value("tasks"_L1).toArray();
    QCOMPARE(tasks.size(), 1);
    const QByteArray taskPath = "/v1/workers/tasks/"
                                + QByteArray::number(
                                    tasks.at(0).toObject().value("task_id"_L1).toInteger());
    VERIFY_ANSWER(connection->postJson(taskPath + "/state", worker, {{u"state"_s, u"RUNNING"_s}}),
                  200);
    VERIFY_ANSWER(connection->send("POST", taskPath + "/log?offset=0", worker, "line 1\n"), 200);

    // The follow starts (its head comes at once) before line 2 exists; line 2 arrives through
    // it, and it ends when the task has ended.
    const QByteArray follow = "/v1/jobs/" + uuid + "/logs?task="
                              + QByteArray::number(
                                  tasks.at(0).toObject().value("task_id"_L1).toInteger())
                              + "&offset=7&follow=1";
    connection->write("GET", follow, m_alice);
    Answer streamed = connection->readHead();
    VERIFY_ANSWER(streamed, 200);
    QCOMPARE(streamed.header("Transfer-Encoding"), "chunked");
    QCOMPARE(streamed.header("DDL-Log-Offset"), "7");
    auto workerConnection = open();
    VERIFY_ANSWER(workerConnection->send("POST", taskPath + "/log?offset=7", worker, "line 2\n"),
                  200);
    VERIFY_ANSWER(workerConnection->postJson(taskPath + "/state", worker,
                                             {{u"state"_s, u"SUCCEEDED"_s}, {u"exit_code"_s, 0}}),
                  200);
    connection->readBody(&streamed);
    QVERIFY2(streamed.problem.isEmpty(), qPrintable(streamed.problem));
    QCOMPARE(streamed.body, "line 2\n");
    // The connection goes on after the stream.
    VERIFY_ANSWER(connection->send("GET", "/v1/jobs/" + uuid, m_alice), 200);
}

void tst_Routes::loginAfterAControlRequest()
{
    auto connection = open();
    VERIFY_ANSWER(connection->send("GET", "/v1/version"), 200);
    const QByteArray token = newUser(*connection, "carol@example.org");
    QVERIFY(!token.isEmpty());
    VERIFY_ANSWER(connection->send("GET", "/v1/jobs", token), 200);
    const Answer wrong = connection->postJson(
        "/v1/auth/login", {}, {{u"email"_s, u"carol@example.org"_s}, {u"password"_s, u"nope"_s}});
    VERIFY_ANSWER(wrong, 401);
    QVERIFY(connection->isOpen());
}

void tst_Routes::wrongMethodIsRefusedWithAllow_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("allow");

    QTest::newRow("DELETE on the job list")
        << QByteArray("DELETE") << QByteArray("/v1/jobs") << 405 << QByteArray("POST, GET");
    QTest::newRow("PUT on the version")
        << QByteArray("PUT") << QByteArray("/v1/version") << 405 << QByteArray("GET");
    QTest::newRow("GET on login")
        << QByteArray("GET") << QByteArray("/v1/auth/login") << 405 << QByteArray("POST");
    QTest::newRow("POST on a blob") << QByteArray("POST") << QByteArray("/v1/blobs/" + sha256Hex("x"))
                                    << 405 << QByteArray("GET, HEAD");
    QTest::newRow("POST on an upload") << QByteArray("POST") << QByteArray("/v1/uploads/abc")
                                       << 405 << QByteArray("GET, HEAD, DELETE, PUT");
    QTest::newRow("unknown path") << QByteArray("GET") << QByteArray("/v1/nothing-here") << 404
                                  << QByteArray();
    QTest::newRow("path one segment too long")
        << QByteArray("GET") << QByteArray("/v1/jobs/a/b/c/d") << 404 << QByteArray();
}

void tst_Routes::wrongMethodIsRefusedWithAllow()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(int, status);
    QFETCH(QByteArray, allow);

    auto connection = open();
    // Refused before the caller is asked for: no token is needed to learn the methods.
    const Answer refused = connection->send(method, path, {}, "{}");
    VERIFY_ANSWER(refused, status);
    QCOMPARE(refused.header("Allow"), allow);
    QCOMPARE(refused.errorCode(), status == 405 ? u"method_not_allowed"_s : u"not_found"_s);
    QVERIFY(refused.json().value("error"_L1).toObject().value("message"_L1).toString().contains(
        QString::fromLatin1(path)));
    // The body was read, so the connection goes on.
    VERIFY_ANSWER(connection->send("GET", "/v1/version"), 200);
}

QTEST_MAIN(tst_Routes)
#include "tst_routes.moc"
