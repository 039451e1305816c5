// The languages: translations/ddl_zh_CN.ts is complete (no unfinished message), both languages
// are compiled into the resources, and the real window shows them after a switch.
#include "app/desktopapp.h"
#include "app/workspacebuilder.h"
#include "core/desktopsettings.h"
#include "views/mainwindow.h"

#include <QApplication>
#include <QFile>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

class TestDesktopTranslations : public QObject
{
    Q_OBJECT

private slots:
    void chineseIsComplete();
    void windowSpeaksTheLanguage_data();
    void windowSpeaksTheLanguage();
    void unknownLanguageFallsBackToEnglish();
    void englishPlurals();
};

void TestDesktopTranslations::chineseIsComplete()
{
    QFile ts(qEnvironmentVariable("DDL_SOURCE_DIR") + u"/translations/ddl_zh_CN.ts"_s);
    QVERIFY2(ts.open(QIODevice::ReadOnly), qPrintable(ts.fileName()));
    QXmlStreamReader xml(&ts);
    int messages = 0;
    QStringList unfinished;
    QString source;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        if (xml.name() == u"source"_s) {
            source = xml.readElementText();
            ++messages;
        } else if (xml.name() == u"translation"_s
                   && xml.attributes().value(u"type"_s) == u"unfinished"_s) {
            unfinished << source;
        }
    }
    QVERIFY(!xml.hasError());
    QVERIFY(messages > 200);
    QVERIFY2(unfinished.isEmpty(), qPrintable(unfinished.join(u" | "_s)));
}

void TestDesktopTranslations::windowSpeaksTheLanguage_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("connect");
    QTest::addColumn<QString>("jobsTab");
    QTest::newRow("zh_CN") << u"zh_CN"_s << u"连接"_s << u"作业"_s;
    QTest::newRow("de") << u"de"_s << u"Verbinden"_s << u"Jobs"_s;
}

void TestDesktopTranslations::windowSpeaksTheLanguage()
{
    QFETCH(QString, language);
    QFETCH(QString, connect);
    QFETCH(QString, jobsTab);
    QVERIFY(DesktopApp::installTranslation(*qApp, language));
    QTemporaryDir dir;
    DesktopSettings settings(dir.filePath(u"s.ini"_s));
    MainWindow window(settings);
    WorkspaceBuilder::build(window);
    QCOMPARE(window.findChild<QPushButton *>(u"connectButton"_s)->text(), connect);
    QCOMPARE(window.workspace()->tabText(0), jobsTab);
}

void TestDesktopTranslations::unknownLanguageFallsBackToEnglish()
{
    QVERIFY(!DesktopApp::installTranslation(*qApp, u"fr"_s));
    QTemporaryDir dir;
    DesktopSettings settings(dir.filePath(u"s.ini"_s));
    MainWindow window(settings);
    QCOMPARE(window.findChild<QPushButton *>(u"connectButton"_s)->text(), u"Connect"_s);
}

void TestDesktopTranslations::englishPlurals()
{
    QVERIFY(DesktopApp::installTranslation(*qApp, u"en"_s));
    QCOMPARE(QCoreApplication::translate("ddl::desktop::JobListView", "%n job(s)", nullptr, 1),
             u"1 job"_s);
    QCOMPARE(QCoreApplication::translate("ddl::desktop::JobListView", "%n job(s)", nullptr, 3),
             u"3 jobs"_s);
}

QTEST_MAIN(TestDesktopTranslations)
#include "tst_desktop_translations.moc"
