// The JSON job editor: live validation from shared/jobspec with a marker on the offending line,
// the form and the text in sync both ways, templates that validate, task.yaml export/import.
#include "editor/jobeditor.h"
#include "editor/jobtemplates.h"
#include "editor/jsonlocator.h"
#include "jobspec/jobspecparser.h"

#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

static const QString ValidJob = uR"({
  "kind": "openpai",
  "jobName": "demo",
  "image": "python3",
  "taskRoles": [
    {"name": "ps", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 512, "gpuNumber": 0,
     "command": "python3 ps.py"},
    {"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 512,
     "gpuNumber": 0,
     "command": "python3 worker.py"}
  ]
})"_s;

// The 1-based line of the first occurrence of needle.
static int lineOf(const QString &text, const QString &needle)
{
    return int(text.left(text.indexOf(needle)).count(u'\n')) + 1;
}

class TestDesktopEditor : public QObject
{
    Q_OBJECT

private slots:
    void templatesAreValid_data();
    void templatesAreValid();
    void markerOnTheOffendingLine_data();
    void markerOnTheOffendingLine();
    void syntaxErrorMarked();
    void validatesAfterTypingPause();
    void formEditsTheText();
    void textFillsTheForm();
    void taskYamlRoundTrip();
    void locatorPaths();
    void openPaiTextRecognised_data();
    void openPaiTextRecognised();
    void openPaiTextWithErrorsStays();
    void importRecognisesOpenPaiByContent();
};

// An OpenPAI protocol v2 job as the portal writes it.
static const QString V2Job = u"protocolVersion: 2\nname: v2-demo\ntype: job\nprerequisites:\n"
                             "  - name: img\n    type: dockerimage\n    uri: python:3.11\n"
                             "parameters:\n  n: 3\ntaskRoles:\n  main:\n    instances: 2\n"
                             "    dockerImage: img\n"
                             "    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n"
                             "    commands:\n      - python3 -c 'print(<% $parameters.n %>)'\n"
                             "defaults:\n  virtualCluster: default\n"_s;

void TestDesktopEditor::templatesAreValid_data()
{
    QTest::addColumn<QString>("id");
    for (const JobTemplate &entry : JobTemplates::all())
        QTest::newRow(qPrintable(entry.id)) << entry.id;
}

void TestDesktopEditor::templatesAreValid()
{
    QFETCH(QString, id);
    JobEditor editor;
    editor.loadTemplate(id);
    QVERIFY(!editor.text().isEmpty());
    QVERIFY2(editor.problems().isEmpty(),
             qPrintable(editor.problems().isEmpty() ? QString() : editor.problems().first().message));
    QVERIFY(editor.spec().has_value());
    QVERIFY(editor.markedLines().isEmpty());
}

void TestDesktopEditor::markerOnTheOffendingLine_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("lineOfText");
    QTest::newRow("negative gpus") << u"\"gpuNumber\": 0,\n"_s << u"\"gpuNumber\": -1,\n"_s
                                   << u"taskRoles[1].gpuNumber"_s << u"\"gpuNumber\": -1"_s;
    QTest::newRow("bad job name") << u"\"demo\""_s << u"\"no spaces allowed\""_s << u"jobName"_s
                                  << u"\"jobName\""_s;
    QTest::newRow("duplicate role") << u"\"name\": \"worker\""_s << u"\"name\": \"ps\""_s
                                    << u"taskRoles[1].name"_s << u"\"name\": \"ps\", \"taskNumber\": 2"_s;
    QTest::newRow("tiny memory") << u"\"memoryMB\": 512,\n     \"gpuNumber\": 0"_s
                                 << u"\"memoryMB\": 5,\n     \"gpuNumber\": 0"_s
                                 << u"taskRoles[1].memoryMB"_s << u"\"memoryMB\": 5,"_s;
}

void TestDesktopEditor::markerOnTheOffendingLine()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, field);
    QFETCH(QString, lineOfText);
    QString text = ValidJob;
    QVERIFY(text.contains(from));
    text.replace(text.lastIndexOf(from), from.size(), to);
    JobEditor editor;
    editor.setText(text);
    QVERIFY(!editor.spec());
    QCOMPARE(editor.problems().size(), 1);
    const EditorProblem problem = editor.problems().first();
    QCOMPARE(problem.field, field);
    QCOMPARE(problem.line, lineOf(text, lineOfText));
    QCOMPARE(editor.markedLines(), QList<int>{problem.line});
    QVERIFY(editor.problemList()->item(0)->text().contains(field));
}

void TestDesktopEditor::syntaxErrorMarked()
{
    JobEditor editor;
    editor.setText(u"{\n  \"kind\": \"ddl\",\n  \"jobName\": \"x\"\n  \"taskRoles\": []\n}"_s);
    QCOMPARE(editor.problems().size(), 1);
    QVERIFY(editor.problems().first().message.contains(u"JSON"_s));
    QCOMPARE(editor.problems().first().line, 4); // where the missing comma is noticed
    QCOMPARE(editor.markedLines(), QList<int>{4});
}

void TestDesktopEditor::validatesAfterTypingPause()
{
    JobEditor editor;
    editor.setText(ValidJob);
    QVERIFY(editor.spec());
    QSignalSpy validated(&editor, &JobEditor::validated);
    QTextCursor cursor = editor.textEdit()->document()->find(u"\"taskNumber\": 2"_s);
    cursor.insertText(u"\"taskNumber\": 0"_s);
    QCOMPARE(validated.size(), 0); // not on every key stroke
    QTRY_COMPARE(validated.size(), 1);
    QCOMPARE(validated.first().first().toBool(), false);
    QCOMPARE(editor.problems().first().field, u"taskRoles[1].taskNumber"_s);
}

void TestDesktopEditor::formEditsTheText()
{
    JobEditor editor;
    editor.setText(ValidJob);
    editor.jobNameEdit()->clear();
    QTest::keyClicks(editor.jobNameEdit(), u"renamed"_s);
    QVERIFY(editor.text().contains(u"\"jobName\": \"renamed\""_s));
    editor.rolesTable()->item(1, 1)->setText(u"5"_s); // worker tasks
    QVERIFY(editor.spec());
    QCOMPARE(editor.spec()->taskRoles.at(1).taskNumber, 5);
    QCOMPARE(editor.spec()->jobName, u"renamed"_s);
}

void TestDesktopEditor::textFillsTheForm()
{
    JobEditor editor;
    QString text = ValidJob;
    text.replace(u"\"demo\""_s, u"\"from-text\""_s);
    editor.setText(text);
    QCOMPARE(editor.jobNameEdit()->text(), u"from-text"_s);
    QCOMPARE(editor.rolesTable()->rowCount(), 2);
    QCOMPARE(editor.rolesTable()->item(1, 0)->text(), u"worker"_s);
    QCOMPARE(editor.rolesTable()->item(1, 5)->text(), u"python3 worker.py"_s);
}

void TestDesktopEditor::taskYamlRoundTrip()
{
    QTemporaryDir dir;
    JobEditor editor;
    editor.loadTemplate(u"ddl-training"_s);
    editor.rolesTable()->item(0, 4)->setText(u"2"_s); // GPUs
    QVERIFY(editor.spec());
    QSignalSpy done(&editor, &JobEditor::fileDone);
    const QString path = dir.filePath(u"task.yaml"_s);
    editor.exportFile(path);
    QTRY_COMPARE(done.size(), 1);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    ddl::Result<ddl::JobSpec> spec = ddl::JobSpecParser::parseTaskYaml(file.readAll(), u"x"_s);
    QVERIFY(spec.ok());
    QCOMPARE(spec->jobName, u"my-model"_s);
    QCOMPARE(spec->taskRoles.first().gpuNumber, 2);

    JobEditor other;
    QSignalSpy imported(&other, &JobEditor::fileDone);
    other.importFile(path);
    QTRY_COMPARE(imported.size(), 1);
    QVERIFY(other.spec());
    QCOMPARE(other.spec()->taskRoles.first().gpuNumber, 2);
    QCOMPARE(other.spec()->kind, ddl::JobSpec::Kind::Ddl);
}

void TestDesktopEditor::locatorPaths()
{
    const QString text = u"{\"a\": {\"b\": [1, {\"c\": 2}]}, \"d\": \"x\\\"y\"}"_s;
    JsonLocator locator(text);
    QCOMPARE(locator.offsetOf(u"a.b[1].c"_s), text.indexOf(u"\"c\""_s));
    QCOMPARE(locator.offsetOf(u"d"_s), text.indexOf(u"\"d\""_s));
    // Absent: the nearest parent that is there.
    QCOMPARE(locator.offsetOf(u"a.b[1].missing"_s), text.indexOf(u"{\"c\""_s));
    QCOMPARE(locator.offsetOf(u"nothing"_s), 0);
}

void TestDesktopEditor::openPaiTextRecognised_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("jobName");
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("noteFields");

    QTest::newRow("v1 JSON without kind, with comments")
        << u"{\n  // pasted from OpenPAI\n  \"jobName\": \"pasted\", \"image\": \"ubuntu\",\n"
           "  \"gpuType\": \"K80\", /* kept */\n  \"taskRoles\": [{\"name\": \"r\", "
           "\"taskNumber\": 1, \"cpuNumber\": 1, \"memoryMB\": 256, \"gpuNumber\": 0, "
           "\"command\": \"curl http://x//y\"}]\n}\n"_s
        << u"pasted"_s << u"curl http://x//y"_s << QStringList{u"image"_s};
    QTest::newRow("v1 JSON without kind") << u"{\"jobName\": \"plain\", \"image\": \"i\", "
                                             "\"taskRoles\": [{\"name\": \"r\", "
                                             "\"taskNumber\": 1, \"cpuNumber\": 1, "
                                             "\"memoryMB\": 256, \"gpuNumber\": 0, "
                                             "\"command\": \"true\"}]}"_s
                                          << u"plain"_s << u"true"_s << QStringList{u"image"_s};
    QTest::newRow("protocol v2 YAML") << V2Job << u"v2-demo"_s << u"python3 -c 'print(3)'"_s
                                      << QStringList{u"image"_s, u"virtualCluster"_s};
}

void TestDesktopEditor::openPaiTextRecognised()
{
    QFETCH(QString, text);
    QFETCH(QString, jobName);
    QFETCH(QString, command);
    QFETCH(QStringList, noteFields);

    JobEditor editor;
    editor.setText(text);
    QVERIFY2(
        editor.problems().isEmpty(),
        qPrintable(editor.problems().isEmpty() ? QString() : editor.problems().first().message));
    QVERIFY(editor.spec().has_value());
    QCOMPARE(editor.spec()->kind, ddl::JobSpec::Kind::OpenPai);
    QCOMPARE(editor.spec()->jobName, jobName);
    QCOMPARE(editor.spec()->taskRoles.first().command, command);
    // The text is now the wire form, and the form shows it.
    QVERIFY(editor.text().contains(u"\"kind\": \"openpai\""_s));
    QCOMPARE(editor.jobNameEdit()->text(), jobName);
    QStringList fields;
    for (const QString &note : editor.notes())
        fields << note.section(u':', 0, 0);
    QCOMPARE(fields, noteFields);
    bool listed = false;
    for (int row = 0; row < editor.problemList()->count(); ++row)
        listed = listed || editor.problemList()->item(row)->text().startsWith(u"note: image:"_s);
    QVERIFY(listed);
}

void TestDesktopEditor::openPaiTextWithErrorsStays()
{
    JobEditor editor;
    QString broken = V2Job;
    broken.replace(u"gpu: 0"_s, u"gpu: -1"_s);
    editor.setText(broken);
    QVERIFY(!editor.spec().has_value());
    QCOMPARE(editor.text(), broken); // not replaced: the user fixes what they wrote
    QCOMPARE(editor.problems().size(), 1);
    QCOMPARE(editor.problems().first().field, u"taskRoles.main.resourcePerInstance.gpu"_s);
    QCOMPARE(editor.problems().first().message, u"must be >= 0, got -1"_s);
}

void TestDesktopEditor::importRecognisesOpenPaiByContent()
{
    QTemporaryDir dir;
    const QMap<QString, QString> files{
        {u"job.yaml"_s, V2Job},
        {u"job.json"_s,
         u"// a comment first\n{\"jobName\": \"imported\", \"image\": \"i\", "
         "\"taskRoles\": [{\"name\": \"r\", \"taskNumber\": 1, "
         "\"cpuNumber\": 1, \"memoryMB\": 256, \"gpuNumber\": 0, "
         "\"command\": \"true\"}]}"_s}};
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        QFile file(dir.filePath(it.key()));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(it.value().toUtf8());
        file.close();
        JobEditor editor;
        QSignalSpy done(&editor, &JobEditor::fileDone);
        editor.importFile(file.fileName());
        QTRY_COMPARE(done.size(), 1);
        QVERIFY2(editor.spec().has_value(), qPrintable(it.key()));
        QCOMPARE(editor.spec()->kind, ddl::JobSpec::Kind::OpenPai);
        QCOMPARE(editor.spec()->jobName, it.key() == u"job.yaml"_s ? u"v2-demo"_s : u"imported"_s);
    }
}

QTEST_MAIN(TestDesktopEditor)
#include "tst_desktop_editor.moc"
