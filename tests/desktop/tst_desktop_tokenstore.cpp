// TokenStore: tokens survive a write and a read through the OS keychain where one answers, or
// through the 0600 file where none does (CI, headless boxes: the fallback path), and removal
// clears both.
#include "core/tokenstore.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

class TestDesktopTokenStore : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip_data();
    void roundTrip();
};

void TestDesktopTokenStore::roundTrip_data()
{
    QTest::addColumn<bool>("useKeychain");
    QTest::newRow("file only") << false;
    QTest::newRow("keychain or its fallback") << true;
}

void TestDesktopTokenStore::roundTrip()
{
    QFETCH(bool, useKeychain);
    QTemporaryDir dir;
    TokenStore store(dir.filePath(u"config"_s), useKeychain);
    const QString key = u"https://127.0.0.1:1 tester@example.com"_s;
    const QString token = u"ddlr_test_%1"_s.arg(useKeychain);

    QSignalSpy written(&store, &TokenStore::tokenWritten);
    store.write(key, token);
    QTRY_COMPARE_WITH_TIMEOUT(written.size(), 1, 20000);
    QVERIFY(written.first().at(1).toBool());
    if (!useKeychain || store.usedFallback()) {
        const QString file = store.fallbackFile();
        QVERIFY(QFile::exists(file));
        QCOMPARE(int(QFile::permissions(file) & 0x0777), int(QFile::ReadUser | QFile::WriteUser));
    }

    QSignalSpy read(&store, &TokenStore::tokenRead);
    store.read(key);
    QTRY_COMPARE_WITH_TIMEOUT(read.size(), 1, 20000);
    QCOMPARE(read.first().at(1).toString(), token);

    QSignalSpy removed(&store, &TokenStore::tokenRemoved);
    store.remove(key);
    QTRY_COMPARE_WITH_TIMEOUT(removed.size(), 1, 20000);
    QTest::qWait(200); // the keychain's delete, where there is one, ends on its own
    store.read(key);
    QTRY_COMPARE_WITH_TIMEOUT(read.size(), 2, 20000);
    QCOMPARE(read.last().at(1).toString(), QString());
}

QTEST_MAIN(TestDesktopTokenStore)
#include "tst_desktop_tokenstore.moc"
