// Users and sessions (AuthService) over a real store: who may register, who may log in, and what
// of their secrets the store keeps.
#include "auth/authservice.h"
#include "store/database.h"
#include "store/sql.h"

#include <QCryptographicHash>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QTest>

using namespace ddl;
using namespace ddl::server;

namespace {

const QString Connection = QStringLiteral("tst_auth");
const QString Email = QStringLiteral("ada@example.org");
const QString Password = QStringLiteral("correct horse battery");

// Every value of every row of a table, as text, to look for secrets in.
QStringList tableText(const QSqlDatabase &db, const QString &table)
{
    QStringList values;
    Result<QSqlQuery> query = runSql(db, QStringLiteral("SELECT * FROM ") + table);
    while (query && query->next()) {
        for (int i = 0; i < query->record().count(); ++i)
            values << query->value(i).toString();
    }
    return values;
}

bool anyContains(const QStringList &values, const QString &secret)
{
    for (const QString &value : values) {
        if (value.contains(secret))
            return true;
    }
    return false;
}

} // namespace

class tst_Auth : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void registerUser_data();
    void registerUser();
    void registerTakenEmailIsConflict_data();
    void registerTakenEmailIsConflict();
    void login_data();
    void login();
    void passwordIsStoredAsArgon2id();
    void tokensAreStoredHashed();
    void accessTokenResolvesUntilItExpires();
    void unknownAccessTokenIsUnauthorized();
    void refreshSpendsTheOldToken();
    void expiredRefreshTokenIsRefused();

private:
    qint64 userId(const QString &email);
    QVariant sessionValue(const QString &column, const QString &hashColumn, const QString &token);

    std::unique_ptr<QTemporaryDir> m_dir;
    QSqlDatabase m_db;
    std::unique_ptr<AuthService> m_auth;
};

void tst_Auth::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    Result<QSqlDatabase> db = Database::open(m_dir->path(), Connection);
    QVERIFY2(db, db ? "" : qPrintable(db.error().message));
    m_db = *db;
    m_auth = std::make_unique<AuthService>(m_db);
}

void tst_Auth::cleanup()
{
    m_auth.reset();
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(Connection);
    m_dir.reset();
}

qint64 tst_Auth::userId(const QString &email)
{
    Result<QSqlQuery> query =
        runSql(m_db, QStringLiteral("SELECT id FROM users WHERE email = ?"), {email});
    return query && query->next() ? query->value(0).toLongLong() : -1;
}

// A column of the session whose hashColumn holds the SHA-256 of token.
QVariant
tst_Auth::sessionValue(const QString &column, const QString &hashColumn, const QString &token)
{
    const QString hash = QString::fromLatin1(
        QCryptographicHash::hash(token.toUtf8(), QCryptographicHash::Sha256).toHex());
    Result<QSqlQuery> query =
        runSql(m_db,
               QStringLiteral("SELECT %1 FROM sessions WHERE %2 = ?").arg(column, hashColumn),
               {hash});
    return query && query->next() ? query->value(0) : QVariant();
}

void tst_Auth::registerUser_data()
{
    QTest::addColumn<QString>("email");
    QTest::addColumn<QString>("password");
    QTest::addColumn<QString>("code"); // empty: registered
    QTest::addColumn<QString>("field");

    QTest::newRow("ok") << Email << Password << QString() << QString();
    QTest::newRow("password of exactly 8")
        << Email << QStringLiteral("12345678") << QString() << QString();
    QTest::newRow("empty email") << QString() << Password << QStringLiteral("bad_request")
                                 << QStringLiteral("email");
    QTest::newRow("no at sign") << QStringLiteral("ada.example.org") << Password
                                << QStringLiteral("bad_request") << QStringLiteral("email");
    QTest::newRow("two at signs") << QStringLiteral("ada@@example.org") << Password
                                  << QStringLiteral("bad_request") << QStringLiteral("email");
    QTest::newRow("nothing before at") << QStringLiteral("@example.org") << Password
                                       << QStringLiteral("bad_request") << QStringLiteral("email");
    QTest::newRow("nothing after at") << QStringLiteral("ada@") << Password
                                      << QStringLiteral("bad_request") << QStringLiteral("email");
    QTest::newRow("space inside") << QStringLiteral("ada lovelace@example.org") << Password
                                  << QStringLiteral("bad_request") << QStringLiteral("email");
    QTest::newRow("longer than 254")
        << QString(250, u'a') + QStringLiteral("@example.org") << Password
        << QStringLiteral("bad_request") << QStringLiteral("email");
    QTest::newRow("password of 7") << Email << QStringLiteral("1234567")
                                   << QStringLiteral("bad_request") << QStringLiteral("password");
    QTest::newRow("empty password")
        << Email << QString() << QStringLiteral("bad_request") << QStringLiteral("password");
}

void tst_Auth::registerUser()
{
    QFETCH(QString, email);
    QFETCH(QString, password);
    QFETCH(QString, code);
    QFETCH(QString, field);

    Status registered = m_auth->registerUser(email, password);
    if (code.isEmpty()) {
        QVERIFY2(registered, registered ? "" : qPrintable(registered.error().message));
        QVERIFY(userId(email) > 0);
        QVERIFY(m_auth->login(email, password));
        return;
    }
    QVERIFY(!registered);
    QCOMPARE(registered.error().code, code);
    QCOMPARE(registered.error().field, field);
    QVERIFY(!registered.error().message.isEmpty());
    Result<QSqlQuery> count = runSql(m_db, QStringLiteral("SELECT COUNT(*) FROM users"));
    QVERIFY(count && count->next());
    QCOMPARE(count->value(0).toInt(), 0);
}

void tst_Auth::registerTakenEmailIsConflict_data()
{
    QTest::addColumn<QString>("second");
    QTest::newRow("same") << Email;
    QTest::newRow("other case") << QStringLiteral("ADA@Example.ORG");
}

void tst_Auth::registerTakenEmailIsConflict()
{
    QFETCH(QString, second);
    QVERIFY(m_auth->registerUser(Email, Password));
    Status again = m_auth->registerUser(second, QStringLiteral("another password"));
    QVERIFY(!again);
    QCOMPARE(again.error().code, QStringLiteral("conflict"));
    QCOMPARE(again.error().field, QStringLiteral("email"));
    // The first registration is untouched: its password still logs in, the new one does not.
    QVERIFY(m_auth->login(Email, Password));
    QVERIFY(!m_auth->login(Email, QStringLiteral("another password")));
}

void tst_Auth::login_data()
{
    QTest::addColumn<QString>("email");
    QTest::addColumn<QString>("password");
    QTest::addColumn<bool>("accepted");

    QTest::newRow("right password") << Email << Password << true;
    QTest::newRow("email in other case") << QStringLiteral("Ada@EXAMPLE.org") << Password << true;
    QTest::newRow("wrong password") << Email << QStringLiteral("wrong horse battery") << false;
    QTest::newRow("password differs in case") << Email << Password.toUpper() << false;
    QTest::newRow("empty password") << Email << QString() << false;
    QTest::newRow("unknown user") << QStringLiteral("bob@example.org") << Password << false;
}

void tst_Auth::login()
{
    QFETCH(QString, email);
    QFETCH(QString, password);
    QFETCH(bool, accepted);

    QVERIFY(m_auth->registerUser(Email, Password));
    Result<SessionTokens> tokens = m_auth->login(email, password);
    if (accepted) {
        QVERIFY2(tokens, tokens ? "" : qPrintable(tokens.error().message));
        QVERIFY(!tokens->accessToken.isEmpty());
        QVERIFY(!tokens->refreshToken.isEmpty());
        QVERIFY(tokens->accessToken != tokens->refreshToken);
        QCOMPARE(tokens->expiresInSeconds, 600);
        Result<qint64> user = m_auth->userForAccessToken(tokens->accessToken);
        QVERIFY(user);
        QCOMPARE(*user, userId(Email));
        return;
    }
    QVERIFY(!tokens);
    // Unknown user and wrong password answer alike: the answer does not tell who is registered.
    QCOMPARE(tokens.error().code, QStringLiteral("unauthorized"));
    QCOMPARE(tokens.error().message, QStringLiteral("wrong email or password"));
    QVERIFY(tokens.error().field.isEmpty());
    Result<QSqlQuery> count = runSql(m_db, QStringLiteral("SELECT COUNT(*) FROM sessions"));
    QVERIFY(count && count->next());
    QCOMPARE(count->value(0).toInt(), 0);
}

void tst_Auth::passwordIsStoredAsArgon2id()
{
    QVERIFY(m_auth->registerUser(Email, Password));
    Result<QSqlQuery> query = runSql(m_db, QStringLiteral("SELECT password_hash FROM users"));
    QVERIFY(query && query->next());
    const QString stored = query->value(0).toString();
    QVERIFY2(stored.startsWith(QLatin1String("$argon2id$")), qPrintable(stored));
    QVERIFY(!anyContains(tableText(m_db, QStringLiteral("users")), Password));

    // Salted: the same password of another user hashes differently.
    QVERIFY(m_auth->registerUser(QStringLiteral("bob@example.org"), Password));
    Result<QSqlQuery> hashes = runSql(m_db,
                                      QStringLiteral("SELECT COUNT(DISTINCT password_hash) "
                                                     "FROM users"));
    QVERIFY(hashes && hashes->next());
    QCOMPARE(hashes->value(0).toInt(), 2);
}

void tst_Auth::tokensAreStoredHashed()
{
    QVERIFY(m_auth->registerUser(Email, Password));
    Result<SessionTokens> tokens = m_auth->login(Email, Password);
    QVERIFY(tokens);

    const QStringList stored = tableText(m_db, QStringLiteral("sessions"));
    QVERIFY(!stored.isEmpty());
    QVERIFY(!anyContains(stored, tokens->accessToken));
    QVERIFY(!anyContains(stored, tokens->refreshToken));
    // What is kept is the SHA-256 of each (docs/api.md), found by it.
    QVERIFY(sessionValue(QStringLiteral("id"), QStringLiteral("access_hash"), tokens->accessToken)
                .isValid());
    QVERIFY(sessionValue(QStringLiteral("id"), QStringLiteral("refresh_hash"), tokens->refreshToken)
                .isValid());

    // Two logins are two sessions with unrelated tokens.
    Result<SessionTokens> second = m_auth->login(Email, Password);
    QVERIFY(second);
    QVERIFY(second->accessToken != tokens->accessToken);
    QVERIFY(second->refreshToken != tokens->refreshToken);
}

void tst_Auth::accessTokenResolvesUntilItExpires()
{
    QVERIFY(m_auth->registerUser(Email, Password));
    Result<SessionTokens> tokens = m_auth->login(Email, Password);
    QVERIFY(tokens);

    // It lives 10 minutes from now.
    const qint64 expires = sessionValue(QStringLiteral("access_expires"),
                                        QStringLiteral("access_hash"),
                                        tokens->accessToken)
                               .toLongLong();
    QVERIFY(qAbs(expires - (nowMs() + 600 * 1000)) < 60 * 1000);
    Result<qint64> user = m_auth->userForAccessToken(tokens->accessToken);
    QVERIFY(user);
    QCOMPARE(*user, userId(Email));

    QVERIFY(
        runSql(m_db, QStringLiteral("UPDATE sessions SET access_expires = ?"), {nowMs() - 1000}));
    Result<qint64> expired = m_auth->userForAccessToken(tokens->accessToken);
    QVERIFY(!expired);
    QCOMPARE(expired.error().code, QStringLiteral("session_expired"));

    // The refresh token of the same session still works and gives a live access token.
    Result<SessionTokens> renewed = m_auth->refresh(tokens->refreshToken);
    QVERIFY(renewed);
    QVERIFY(m_auth->userForAccessToken(renewed->accessToken));
}

void tst_Auth::unknownAccessTokenIsUnauthorized()
{
    QVERIFY(m_auth->registerUser(Email, Password));
    Result<SessionTokens> tokens = m_auth->login(Email, Password);
    QVERIFY(tokens);
    const QStringList wrongTokens{QString(),
                                  QStringLiteral("ddla_nonsense"),
                                  tokens->refreshToken,
                                  tokens->accessToken + u'x'};
    for (const QString &token : wrongTokens) {
        Result<qint64> user = m_auth->userForAccessToken(token);
        QVERIFY2(!user, qPrintable(token));
        QCOMPARE(user.error().code, QStringLiteral("unauthorized"));
    }
}

void tst_Auth::refreshSpendsTheOldToken()
{
    QVERIFY(m_auth->registerUser(Email, Password));
    Result<SessionTokens> first = m_auth->login(Email, Password);
    QVERIFY(first);

    Result<SessionTokens> second = m_auth->refresh(first->refreshToken);
    QVERIFY2(second, second ? "" : qPrintable(second.error().message));
    QVERIFY(second->accessToken != first->accessToken);
    QVERIFY(second->refreshToken != first->refreshToken);
    QCOMPARE(second->expiresInSeconds, 600);
    Result<qint64> user = m_auth->userForAccessToken(second->accessToken);
    QVERIFY(user);
    QCOMPARE(*user, userId(Email));

    // The old refresh token is spent, and the old session with it.
    Result<SessionTokens> replay = m_auth->refresh(first->refreshToken);
    QVERIFY(!replay);
    QCOMPARE(replay.error().code, QStringLiteral("session_expired"));
    QVERIFY(!m_auth->userForAccessToken(first->accessToken));
    Result<QSqlQuery> count = runSql(m_db, QStringLiteral("SELECT COUNT(*) FROM sessions"));
    QVERIFY(count && count->next());
    QCOMPARE(count->value(0).toInt(), 1);

    // The new refresh token works in its turn.
    QVERIFY(m_auth->refresh(second->refreshToken));
}

void tst_Auth::expiredRefreshTokenIsRefused()
{
    QVERIFY(m_auth->registerUser(Email, Password));
    Result<SessionTokens> tokens = m_auth->login(Email, Password);
    QVERIFY(tokens);
    QVERIFY(
        runSql(m_db, QStringLiteral("UPDATE sessions SET refresh_expires = ?"), {nowMs() - 1000}));

    Result<SessionTokens> refused = m_auth->refresh(tokens->refreshToken);
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, QStringLiteral("session_expired"));
    Result<SessionTokens> unknown = m_auth->refresh(QStringLiteral("ddlr_not-a-token"));
    QVERIFY(!unknown);
    QCOMPARE(unknown.error().code, QStringLiteral("session_expired"));
    // An access token is not a refresh token.
    Result<SessionTokens> wrongKind = m_auth->refresh(tokens->accessToken);
    QVERIFY(!wrongKind);
    QCOMPARE(wrongKind.error().code, QStringLiteral("session_expired"));
}

QTEST_GUILESS_MAIN(tst_Auth)
#include "tst_auth.moc"
