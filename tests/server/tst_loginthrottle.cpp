// Login throttling: the limits per account and per address, and the window moving on.
#include "auth/loginthrottle.h"

#include <QTest>

using ddl::server::LoginThrottle;

class TestLoginThrottle : public QObject
{
    Q_OBJECT

private slots:
    void accountLocksAfterItsLimit();
    void accountUnlocksWhenTheWindowMovesOn();
    void successClearsTheAccountsFailures();
    void addressLocksAcrossAccounts();
    void accountsAreCaseInsensitive();
};

void TestLoginThrottle::accountLocksAfterItsLimit()
{
    LoginThrottle throttle;
    for (int i = 0; i < LoginThrottle::MaxFailuresPerAccount; ++i) {
        QVERIFY(throttle.check(QStringLiteral("a@b.c"), QStringLiteral("10.0.0.1"), 1000 + i).ok());
        throttle.recordFailure(QStringLiteral("a@b.c"), QStringLiteral("10.0.0.1"), 1000 + i);
    }
    const ddl::Status refused = throttle.check(QStringLiteral("a@b.c"), QStringLiteral("10.0.0.2"),
                                               2000);
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().code, QStringLiteral("rate_limited"));
    QVERIFY2(refused.error().message.contains(QLatin1String("try again in 899 s")),
             qPrintable(refused.error().message));
    // Another account from the same address is not affected by this account's lock.
    QVERIFY(throttle.check(QStringLiteral("x@y.z"), QStringLiteral("10.0.0.1"), 2000).ok());
}

void TestLoginThrottle::accountUnlocksWhenTheWindowMovesOn()
{
    LoginThrottle throttle;
    for (int i = 0; i < LoginThrottle::MaxFailuresPerAccount; ++i)
        throttle.recordFailure(QStringLiteral("a@b.c"), QStringLiteral("10.0.0.1"), 1000);
    QVERIFY(!throttle.check(QStringLiteral("a@b.c"), QStringLiteral("10.0.0.1"),
                            1000 + LoginThrottle::WindowMs - 1)
                 .ok());
    QVERIFY(throttle.check(QStringLiteral("a@b.c"), QStringLiteral("10.0.0.1"),
                           1000 + LoginThrottle::WindowMs)
                .ok());
}

void TestLoginThrottle::successClearsTheAccountsFailures()
{
    LoginThrottle throttle;
    for (int i = 0; i < LoginThrottle::MaxFailuresPerAccount - 1; ++i)
        throttle.recordFailure(QStringLiteral("a@b.c"), QStringLiteral("10.0.0.1"), 1000);
    throttle.recordSuccess(QStringLiteral("a@b.c"));
    throttle.recordFailure(QStringLiteral("a@b.c"), QStringLiteral("10.0.0.1"), 1001);
    QVERIFY(throttle.check(QStringLiteral("a@b.c"), QStringLiteral("10.0.0.1"), 1002).ok());
}

void TestLoginThrottle::addressLocksAcrossAccounts()
{
    LoginThrottle throttle;
    for (int i = 0; i < LoginThrottle::MaxFailuresPerAddress; ++i) {
        throttle.recordFailure(QStringLiteral("user%1@b.c").arg(i), QStringLiteral("10.0.0.9"),
                               1000);
    }
    const ddl::Status refused = throttle.check(QStringLiteral("fresh@b.c"),
                                               QStringLiteral("10.0.0.9"), 1001);
    QVERIFY(!refused.ok());
    QVERIFY(refused.error().message.contains(QLatin1String("from this address")));
    QVERIFY(throttle.check(QStringLiteral("fresh@b.c"), QStringLiteral("10.0.0.8"), 1001).ok());
}

void TestLoginThrottle::accountsAreCaseInsensitive()
{
    LoginThrottle throttle;
    for (int i = 0; i < LoginThrottle::MaxFailuresPerAccount; ++i)
        throttle.recordFailure(QStringLiteral("A@B.c"), QStringLiteral("10.0.0.%1").arg(i), 1000);
    QVERIFY(!throttle.check(QStringLiteral("a@b.C"), QStringLiteral("10.0.1.1"), 1001).ok());
}

QTEST_GUILESS_MAIN(TestLoginThrottle)
#include "tst_loginthrottle.moc"
