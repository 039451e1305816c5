// The languages: translations/ddl_zh_CN.ts is complete (no unfinished message), both languages
// are compiled into the resources, the real window shows them after a start in that language,
// and a switch in the Language menu changes the running window (and an open submit wizard) at
// once, keeping what was typed.
#include "app/desktopapp.h"
#include "app/workspacebuilder.h"
#include "core/desktopsettings.h"
#include "editor/jobeditor.h"
#include "models/joblistmodel.h"
#include "views/joblistview.h"
#include "views/mainwindow.h"
#include "wizard/folderfield.h"
#include "wizard/submitwizard.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QHeaderView>
#include <QTemporaryDir>
#include <QTest>
#include <QWizard>
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
    void qtOwnButtonsSpeakTheLanguage_data();
    void qtOwnButtonsSpeakTheLanguage();
    void unknownLanguageFallsBackToEnglish();
    void englishPlurals();
    void liveSwitch();
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
        } else if (xml.name() == u"translation"_s &&
                   xml.attributes().value(u"type"_s) == u"unfinished"_s) {
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
    QCOMPARE(window.workspace()->tabText(window.workspace()->indexOf(window.jobListView())),
             jobsTab);
}

// Qt's own strings come from Debian's qt6-translations-l10n: without it the submit wizard's
// Next/Finish and a dialog's Cancel stay English in a translated window.
void TestDesktopTranslations::qtOwnButtonsSpeakTheLanguage_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("next");
    QTest::addColumn<QString>("finish");
    QTest::newRow("zh_CN") << u"zh_CN"_s << u"下一步(&N) >"_s << u"完成(&F)"_s;
    QTest::newRow("de") << u"de"_s << u"&Weiter >"_s << u"Ab&schließen"_s;
}

void TestDesktopTranslations::qtOwnButtonsSpeakTheLanguage()
{
    QFETCH(QString, language);
    QFETCH(QString, next);
    QFETCH(QString, finish);
    QVERIFY(DesktopApp::installTranslation(*qApp, language));
    QWizard wizard;
    wizard.setWizardStyle(QWizard::ClassicStyle);
    QCOMPARE(wizard.buttonText(QWizard::NextButton), next);
    QCOMPARE(wizard.buttonText(QWizard::FinishButton), finish);
    QDialogButtonBox buttons(QDialogButtonBox::Cancel);
    QVERIFY2(buttons.button(QDialogButtonBox::Cancel)->text() != u"Cancel"_s,
             "Qt's own Cancel button is not translated");
    QVERIFY(DesktopApp::installTranslation(*qApp, u"en"_s));
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

// The texts a person sees first, read from the running window.
struct VisibleTexts
{
    QStringList menus;
    QStringList tabs;
    QString connectButton;
    QString refreshButton;
    QString stateFilter;
    QString nameHeader;
    QString submittedHeader;
};

static VisibleTexts visibleTexts(MainWindow &window)
{
    VisibleTexts texts;
    for (QAction *menu : window.menuBar()->actions())
        texts.menus << menu->text();
    for (int i = 0; i < window.workspace()->count(); ++i)
        texts.tabs << window.workspace()->tabText(i);
    texts.connectButton = window.findChild<QPushButton *>(u"connectButton"_s)->text();
    for (QPushButton *button : window.jobListView()->findChildren<QPushButton *>()) {
        if (button->objectName() != u"newJobButton"_s)
            texts.refreshButton = button->text();
    }
    texts.stateFilter = window.jobListView()->findChild<QAction *>(u"allStates"_s)->text();
    // What the table's header shows, asked the way the header asks.
    QAbstractItemModel *shown = window.jobListView()->table()->model();
    texts.nameHeader = shown->headerData(JobListModel::NameColumn, Qt::Horizontal).toString();
    texts.submittedHeader =
        shown->headerData(JobListModel::SubmittedColumn, Qt::Horizontal).toString();
    return texts;
}

// Picks a language in the window's Language menu, as a person would.
static bool chooseLanguage(MainWindow &window, const QString &menuEntry)
{
    const QList<QAction *> menus = window.menuBar()->actions();
    if (menus.isEmpty() || !menus.last()->menu()) // Language is the last menu
        return false;
    for (QAction *action : menus.last()->menu()->actions()) {
        if (action->text() == menuEntry) {
            action->trigger();
            return true;
        }
    }
    return false;
}

void TestDesktopTranslations::liveSwitch()
{
    QVERIFY(DesktopApp::installTranslation(*qApp, u"en"_s));
    QTemporaryDir dir;
    DesktopSettings settings(dir.filePath(u"s.ini"_s));
    MainWindow window(settings);
    WorkspaceBuilder::build(window);
    window.show();
    QCOMPARE(visibleTexts(window).tabs,
             (QStringList{u"Home"_s, u"Jobs"_s, u"Editor"_s, u"Workers"_s, u"Datasets"_s,
                          u"Images"_s}));

    // Things typed and chosen before the switch, none of them sent anywhere yet.
    window.findChild<QLineEdit *>(u"serverEdit"_s)->setText(u"https://ddl.example:8443"_s);
    window.findChild<QLineEdit *>(u"emailEdit"_s)->setText(u"ada@example.com"_s);
    window.findChild<QLineEdit *>(u"passwordEdit"_s)->setText(u"not sent yet"_s);
    window.jobListView()->findChild<QLineEdit *>(u"searchEdit"_s)->setText(u"resnet"_s);
    window.jobListView()->stateActions().at(1)->setChecked(true); // RUNNING
    const QString spec = u"{\n  \"jobName\": \"half-typed\"\n}\n"_s;
    window.findChild<JobEditor *>(u"jobEditor"_s)->setText(spec);
    window.workspace()->setCurrentIndex(3); // Workers

    struct Expected
    {
        QString entry; // the language's name in the menu
        QString file, view, language, home, jobs, editor, workers, datasets, images, connect,
            refresh,
            allStates, name,
            submitted, uploadFolder, wizardTitle, projectTitle, projectLabel, wednesday;
    };
    const QList<Expected> steps{
        {u"简体中文"_s,
         u"文件(&F)"_s,
         u"视图(&V)"_s,
         u"语言(&L)"_s,
         u"首页"_s,
         u"作业"_s,
         u"编辑器"_s,
         u"工作节点"_s,
         u"数据集"_s,
         u"镜像"_s,
         u"连接"_s,
         u"刷新"_s,
         u"所有状态"_s,
         u"名称"_s,
         u"提交时间"_s,
         u"上传文件夹…"_s,
         u"提交作业"_s,
         u"项目"_s,
         u"项目文件夹："_s,
         u"星期三"_s},
        {u"Deutsch"_s,
         u"&Datei"_s,
         u"&Ansicht"_s,
         u"&Sprache"_s,
         u"Start"_s,
         u"Jobs"_s,
         u"Editor"_s,
         u"Worker"_s,
         u"Datensätze"_s,
         u"Images"_s,
         u"Verbinden"_s,
         u"Aktualisieren"_s,
         u"Alle Status"_s,
         u"Name"_s,
         u"Abgeschickt"_s,
         u"Ordner hochladen…"_s,
         u"Job absenden"_s,
         u"Projekt"_s,
         u"Projektordner:"_s,
         u"Mittwoch"_s},
        {u"English"_s,
         u"&File"_s,
         u"&View"_s,
         u"&Language"_s,
         u"Home"_s,
         u"Jobs"_s,
         u"Editor"_s,
         u"Workers"_s,
         u"Datasets"_s,
         u"Images"_s,
         u"Connect"_s,
         u"Refresh"_s,
         u"All states"_s,
         u"Name"_s,
         u"Submitted"_s,
         u"Upload folder…"_s,
         u"Submit a job"_s,
         u"Project"_s,
         u"Project folder:"_s,
         u"Wednesday"_s},
    };
    // An open submit wizard (it may be uploading) is kept, and retranslates itself, with the
    // folder typed in it; so does the datasets screen (also uploading, maybe).
    ddl::JobSpec job;
    job.kind = ddl::JobSpec::Kind::Ddl;
    SubmitWizard *wizard = window.openSubmitWizard(job);
    auto *projectFolder = wizard->findChild<FolderField *>(u"projectFolder"_s);
    projectFolder->setPath(dir.path());
    QWidget *datasets = window.findChild<QWidget *>(u"datasetsView"_s);
    QVERIFY(datasets);
    QWidget *images = window.findChild<QWidget *>(u"imagesView"_s);
    QVERIFY(images);
    for (const Expected &step : steps) {
        QVERIFY2(chooseLanguage(window, step.entry), qPrintable(step.entry));
        const VisibleTexts texts = visibleTexts(window);
        QCOMPARE(texts.menus, (QStringList{step.file, step.view, step.language}));
        // No column header cut short (German "Wiederholungen" once was).
        QHeaderView *header = window.jobListView()->table()->horizontalHeader();
        for (int column = 0; column < header->count() - 1; ++column) {
            QVERIFY2(header->sectionSize(column) >= header->sectionSizeHint(column),
                     qPrintable(header->model()->headerData(column, Qt::Horizontal).toString()));
        }
        // Dates in the language too (the job list, the timeline, the datasets format with it).
        QCOMPARE(QLocale().toString(QDate(2026, 11, 25), u"dddd"_s), step.wednesday);
        QCOMPARE(texts.tabs,
                 (QStringList{step.home, step.jobs, step.editor, step.workers, step.datasets,
                              step.images}));
        QCOMPARE(texts.connectButton, step.connect);
        QCOMPARE(texts.refreshButton, step.refresh);
        QCOMPARE(texts.stateFilter, step.allStates);
        QCOMPARE(texts.nameHeader, step.name);
        QCOMPARE(texts.submittedHeader, step.submitted);
        QCOMPARE(window.findChild<QWidget *>(u"datasetsView"_s), datasets);
        QCOMPARE(window.findChild<QWidget *>(u"imagesView"_s), images);
        QStringList datasetButtons;
        for (QPushButton *button : datasets->findChildren<QPushButton *>())
            datasetButtons << button->text();
        QVERIFY2(datasetButtons.contains(step.uploadFolder), qPrintable(datasetButtons.join(u'|')));
        QCOMPARE(window.findChild<SubmitWizard *>(), wizard);
        QCOMPARE(wizard->windowTitle(), step.wizardTitle);
        QCOMPARE(wizard->currentPage()->title(), step.projectTitle);
        QStringList pageLabels;
        for (QLabel *label : wizard->currentPage()->findChildren<QLabel *>())
            pageLabels << label->text();
        QVERIFY2(pageLabels.contains(step.projectLabel), qPrintable(pageLabels.join(u'|')));
        QCOMPARE(projectFolder->path(), dir.path());

        // Nothing typed was lost, the same tab is in front, and the choice is kept for the
        // next start.
        QCOMPARE(window.findChild<QLineEdit *>(u"serverEdit"_s)->text(),
                 u"https://ddl.example:8443"_s);
        QCOMPARE(window.findChild<QLineEdit *>(u"emailEdit"_s)->text(), u"ada@example.com"_s);
        QCOMPARE(window.findChild<QLineEdit *>(u"passwordEdit"_s)->text(), u"not sent yet"_s);
        QCOMPARE(window.jobListView()->findChild<QLineEdit *>(u"searchEdit"_s)->text(),
                 u"resnet"_s);
        QVERIFY(window.jobListView()->stateActions().at(1)->isChecked());
        QCOMPARE(window.jobModel()->stateFilter(), QStringList{u"RUNNING"_s});
        QCOMPARE(window.findChild<JobEditor *>(u"jobEditor"_s)->text(), spec);
        QCOMPARE(window.workspace()->currentWidget()->objectName(), u"workersView"_s);
        // One of each: the views replaced are gone, not hidden beside the new ones.
        QCOMPARE(window.findChildren<JobEditor *>().size(), 1);
        QCOMPARE(window.findChildren<JobListView *>().size(), 1);
        QCOMPARE(window.findChildren<QPushButton *>(u"connectButton"_s).size(), 1);
    }
    QCOMPARE(DesktopSettings(settings.filePath()).language(), u"en"_s);
    wizard->reject();
}

QTEST_MAIN(TestDesktopTranslations)
#include "tst_desktop_translations.moc"
