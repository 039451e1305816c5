// The service and its users: version, register, login (hashed off the event loop and throttled),
// refresh, and the one shape of every error.
// Against the in-process server of ServerApiTestCase (tests/support), over real TLS on loopback.
#include "polluntil.h"
#include "serverapitestcase.h"

#include "api/apiclient.h"
#include "auth/loginthrottle.h"

#include <QNetworkReply>
#include <QSslConfiguration>
#include <QUuid>

using namespace ddl;
using namespace ddl::server;

class tst_ApiAuth : public ServerApiTestCase
{
    Q_OBJECT

public:
    enum class Auth { None, Garbage, User, Worker };
    Q_ENUM(Auth)

private slots:
    void version();
    void loginHashesWhileOtherRequestsAreServed();
    void loginIsThrottledPerAccount();
    void registerLoginRefresh();
    void errorsHaveOneShape_data();
    void errorsHaveOneShape();
};

void tst_ApiAuth::version()
{
    const Answer answer = get(QStringLiteral("/v1/version"), {});
    VERIFY_STATUS(answer, 200);
    QVERIFY(answer.header("Content-Type").startsWith("application/json"));
    QCOMPARE(answer.json().value(QLatin1String("server")).toString(), QStringLiteral(DDL_VERSION));
    QCOMPARE(answer.json().value(QLatin1String("api")).toInt(), 1);
}

void tst_ApiAuth::loginHashesWhileOtherRequestsAreServed()
{
    // Argon2id runs on a pool thread, not on the event loop that serves every connection. Proof:
    // with logins whose requests the server has whole, a request sent after them is answered
    // while some of them still hash. Were a hash to block the event loop, the server would read
    // the logins (their bytes are in) before the version request (a fresh TLS handshake away)
    // and answer them all first. Eight logins on a pool of two threads take four hashes' time:
    // a loaded machine may answer the first ones during the handshake, never all. Right
    // passwords, so that each login hashes: no throttle answers it early.
    const QString email = QStringLiteral("hasher@example.org");
    QVERIFY(!newUser(email).isEmpty());
    const QByteArray credentials =
        QJsonDocument(
            QJsonObject{{QStringLiteral("email"), email}, {QStringLiteral("password"), Password}})
            .toJson(QJsonDocument::Compact);
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    ssl.setCaCertificates(m_trust.caCertificates);
    const auto request = [&](const QString &path) {
        QUrl url = m_base;
        url.setPath(path);
        QNetworkRequest request(url);
        request.setSslConfiguration(ssl);
        request.setRawHeader("Content-Type", "application/json");
        return request;
    };

    // Fresh managers: no connection of theirs has carried a request before.
    QNetworkAccessManager loginNetwork;
    QNetworkAccessManager otherNetwork;
    constexpr int Logins = 8;
    std::vector<std::unique_ptr<QNetworkReply>> logins;
    int sent = 0;
    int answered = 0;
    for (int i = 0; i < Logins; ++i) {
        logins.emplace_back(
            loginNetwork.post(request(QStringLiteral("/v1/auth/login")), credentials));
        connect(logins.back().get(), &QNetworkReply::requestSent, this, [&sent] { ++sent; });
        connect(logins.back().get(), &QNetworkReply::finished, this, [&answered] { ++answered; });
    }
    const PollResult allSent = pollUntil(
        [&] { return sent == Logins; }, 15000, QStringLiteral("the logins to be sent"), 1);
    QVERIFY2(allSent, qPrintable(allSent.message));

    std::unique_ptr<QNetworkReply> version(
        otherNetwork.get(request(QStringLiteral("/v1/version"))));
    const PollResult versionAnswered = pollUntil(
        [&] { return version->isFinished(); }, 15000, QStringLiteral("the version answer"), 1);
    QVERIFY2(versionAnswered, qPrintable(versionAnswered.message));
    QCOMPARE(version->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QVERIFY2(answered < Logins,
             qPrintable(QStringLiteral("%1 of %2 logins were answered before a request sent after "
                                       "them: hashing holds up the server")
                            .arg(answered)
                            .arg(Logins)));

    // And the logins were real ones: each hashed and let the user in.
    const PollResult loggedIn =
        pollUntil([&] { return answered == Logins; }, 30000, QStringLiteral("the logins' answers"));
    QVERIFY2(loggedIn, qPrintable(loggedIn.message));
    for (const auto &login : logins)
        QCOMPARE(login->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
}

void tst_ApiAuth::loginIsThrottledPerAccount()
{
    ApiClient client(m_base, m_trust);
    const QJsonObject wrong{{QStringLiteral("email"), QStringLiteral("guessed@example.org")},
                            {QStringLiteral("password"), QStringLiteral("guess guess")}};
    for (int i = 0; i < LoginThrottle::MaxFailuresPerAccount; ++i) {
        Result<ApiResponse> refused = client.postJsonSync(QStringLiteral("/v1/auth/login"), wrong);
        QCOMPARE(refused.error().code, QStringLiteral("unauthorized"));
    }
    Result<ApiResponse> throttled = client.postJsonSync(QStringLiteral("/v1/auth/login"), wrong);
    QCOMPARE(throttled.error().code, QStringLiteral("rate_limited"));
}

void tst_ApiAuth::registerLoginRefresh()
{
    const QString email = QStringLiteral("Grace@Example.org");
    const QJsonObject credentials{{QStringLiteral("email"), email},
                                  {QStringLiteral("password"), Password}};
    Answer registered = post(QStringLiteral("/v1/auth/register"), {}, credentials);
    VERIFY_STATUS(registered, 201);
    QCOMPARE(registered.json().value(QLatin1String("email")).toString(), email);
    VERIFY_ERROR(
        post(QStringLiteral("/v1/auth/register"),
             {},
             {{QStringLiteral("email"), email.toLower()}, {QStringLiteral("password"), Password}}),
        409,
        "conflict");

    Answer login = post(QStringLiteral("/v1/auth/login"), {}, credentials);
    VERIFY_STATUS(login, 200);
    const QString access = login.json().value(QLatin1String("access_token")).toString();
    const QString refresh = login.json().value(QLatin1String("refresh_token")).toString();
    QVERIFY(!access.isEmpty());
    QVERIFY(!refresh.isEmpty());
    QCOMPARE(login.json().value(QLatin1String("expires_in")).toInt(), 600);
    VERIFY_STATUS(get(QStringLiteral("/v1/jobs"), access), 200);

    VERIFY_ERROR(post(QStringLiteral("/v1/auth/login"),
                      {},
                      {{QStringLiteral("email"), email},
                       {QStringLiteral("password"), QStringLiteral("wrong password")}}),
                 401,
                 "unauthorized");
    VERIFY_ERROR(post(QStringLiteral("/v1/auth/login"),
                      {},
                      {{QStringLiteral("email"), QStringLiteral("nobody@example.org")},
                       {QStringLiteral("password"), Password}}),
                 401,
                 "unauthorized");

    Answer refreshed =
        post(QStringLiteral("/v1/auth/refresh"), {}, {{QStringLiteral("refresh_token"), refresh}});
    VERIFY_STATUS(refreshed, 200);
    const QString newAccess = refreshed.json().value(QLatin1String("access_token")).toString();
    QVERIFY(!newAccess.isEmpty());
    QVERIFY(newAccess != access);
    QVERIFY(refreshed.json().value(QLatin1String("refresh_token")).toString() != refresh);
    VERIFY_STATUS(get(QStringLiteral("/v1/jobs"), newAccess), 200);
    // The spent refresh token and its session are gone.
    VERIFY_ERROR(
        post(QStringLiteral("/v1/auth/refresh"), {}, {{QStringLiteral("refresh_token"), refresh}}),
        401,
        "session_expired");
    VERIFY_ERROR(get(QStringLiteral("/v1/jobs"), access), 401, "unauthorized");
}

void tst_ApiAuth::errorsHaveOneShape_data()
{
    QTest::addColumn<QByteArray>("verb");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("query");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<Auth>("auth");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("code");

    const QString someUuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QTest::newRow("unknown route")
        << QByteArray("GET") << QStringLiteral("/v1/nothing-here") << QString() << QByteArray()
        << Auth::User << 404 << QStringLiteral("not_found");
    QTest::newRow("unknown route, no token")
        << QByteArray("POST") << QStringLiteral("/v2/jobs") << QString() << QByteArray("{}")
        << Auth::None << 404 << QStringLiteral("not_found");
    QTest::newRow("bad JSON") << QByteArray("POST") << QStringLiteral("/v1/auth/login") << QString()
                              << QByteArray("{\"email\": ") << Auth::None << 400
                              << QStringLiteral("bad_request");
    QTest::newRow("JSON array body")
        << QByteArray("POST") << QStringLiteral("/v1/auth/register") << QString()
        << QByteArray("[1, 2]") << Auth::None << 400 << QStringLiteral("bad_request");
    QTest::newRow("empty body") << QByteArray("POST") << QStringLiteral("/v1/jobs") << QString()
                                << QByteArray() << Auth::User << 400
                                << QStringLiteral("bad_request");
    QTest::newRow("short password")
        << QByteArray("POST") << QStringLiteral("/v1/auth/register") << QString()
        << QByteArray(R"({"email":"x@example.org","password":"short"})") << Auth::None << 400
        << QStringLiteral("bad_request");
    QTest::newRow("no token") << QByteArray("GET") << QStringLiteral("/v1/jobs") << QString()
                              << QByteArray() << Auth::None << 401
                              << QStringLiteral("unauthorized");
    QTest::newRow("garbage token")
        << QByteArray("GET") << QStringLiteral("/v1/jobs") << QString() << QByteArray()
        << Auth::Garbage << 401 << QStringLiteral("unauthorized");
    QTest::newRow("worker token on a user route")
        << QByteArray("GET") << QStringLiteral("/v1/jobs") << QString() << QByteArray()
        << Auth::Worker << 401 << QStringLiteral("unauthorized");
    QTest::newRow("user token on a worker route")
        << QByteArray("POST") << QStringLiteral("/v1/workers/heartbeat") << QString()
        << QByteArray(R"({"running":[]})") << Auth::User << 401 << QStringLiteral("unauthorized");
    QTest::newRow("no token on uploads")
        << QByteArray("POST") << QStringLiteral("/v1/uploads") << QString()
        << QByteArray(R"({"size":1})") << Auth::None << 401 << QStringLiteral("unauthorized");
    QTest::newRow("no token on a job")
        << QByteArray("GET") << QStringLiteral("/v1/jobs/") + someUuid << QString() << QByteArray()
        << Auth::None << 401 << QStringLiteral("unauthorized");
    QTest::newRow("unknown job") << QByteArray("GET") << QStringLiteral("/v1/jobs/") + someUuid
                                 << QString() << QByteArray() << Auth::User << 404
                                 << QStringLiteral("not_found");
    QTest::newRow("cancel unknown job")
        << QByteArray("POST") << QStringLiteral("/v1/jobs/%1/cancel").arg(someUuid) << QString()
        << QByteArray("{}") << Auth::User << 404 << QStringLiteral("not_found");
    QTest::newRow("unknown upload")
        << QByteArray("GET") << QStringLiteral("/v1/uploads/nope") << QString() << QByteArray()
        << Auth::User << 404 << QStringLiteral("not_found");
    QTest::newRow("chunk without offset")
        << QByteArray("PUT") << QStringLiteral("/v1/uploads/nope") << QString() << QByteArray("abc")
        << Auth::User << 400 << QStringLiteral("bad_request");
    QTest::newRow("bad limit") << QByteArray("GET") << QStringLiteral("/v1/jobs")
                               << QStringLiteral("limit=ten") << QByteArray() << Auth::User << 400
                               << QStringLiteral("bad_request");
    QTest::newRow("negative offset")
        << QByteArray("GET") << QStringLiteral("/v1/jobs") << QStringLiteral("offset=-1")
        << QByteArray() << Auth::User << 400 << QStringLiteral("bad_request");
    QTest::newRow("unknown submission field")
        << QByteArray("POST") << QStringLiteral("/v1/jobs") << QString()
        << QByteArray(R"({"spec":{},"urgency":1})") << Auth::User << 400
        << QStringLiteral("bad_request");
    QTest::newRow("upload with a bad digest")
        << QByteArray("POST") << QStringLiteral("/v1/uploads") << QString()
        << QByteArray(R"({"size":3,"sha256":"ABC"})") << Auth::User << 400
        << QStringLiteral("bad_request");
    QTest::newRow("task id that is no number")
        << QByteArray("POST") << QStringLiteral("/v1/workers/tasks/seven/state") << QString()
        << QByteArray(R"({"state":"RUNNING"})") << Auth::Worker << 400
        << QStringLiteral("bad_request");
}

void tst_ApiAuth::errorsHaveOneShape()
{
    QFETCH(QByteArray, verb);
    QFETCH(QString, path);
    QFETCH(QString, query);
    QFETCH(QByteArray, body);
    QFETCH(Auth, auth);
    QFETCH(int, status);
    QFETCH(QString, code);

    QString token;
    switch (auth) {
    case Auth::None:
        break;
    case Auth::Garbage:
        token = QStringLiteral("ddla_not-a-real-token");
        break;
    case Auth::User:
        token = m_alice;
        break;
    case Auth::Worker:
        token = m_someWorker.token;
        break;
    }
    const Answer answer = send(verb, path, token, body, QUrlQuery(query));
    const QString problem = errorProblem(answer, status, code);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

QTEST_GUILESS_MAIN(tst_ApiAuth)
#include "tst_api_auth.moc"
