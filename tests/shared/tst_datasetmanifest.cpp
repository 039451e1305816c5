#include "packaging/datasetmanifest.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace ddl;

// The manifest's bytes are its identity (the dataset's digest): they must stay the canonical
// JSON Qt writes, whatever the file names hold, or an unchanged folder would get a new digest.
class tst_DatasetManifest : public QObject
{
    Q_OBJECT
private slots:
    void bytesAreQtsCanonicalJson_data();
    void bytesAreQtsCanonicalJson();
    void scannedFolderGivesTheSameBytesAsQt();
};

// What QJsonDocument makes of files (sorted by path, as a manifest keeps them).
static QByteArray qtJson(QList<ManifestFile> files)
{
    std::sort(files.begin(), files.end(), [](const ManifestFile &a, const ManifestFile &b) {
        return a.path < b.path;
    });
    QJsonArray array;
    for (const ManifestFile &file : files) {
        QJsonObject entry{{QStringLiteral("path"), file.path},
                          {QStringLiteral("size"), file.size},
                          {QStringLiteral("sha256"), file.sha256}};
        if (file.executable)
            entry.insert(QStringLiteral("executable"), true);
        array.append(entry);
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("kind"), QStringLiteral("ddl-dataset")},
                                     {QStringLiteral("version"), 1},
                                     {QStringLiteral("files"), array}})
        .toJson(QJsonDocument::Compact);
}

void tst_DatasetManifest::bytesAreQtsCanonicalJson_data()
{
    QTest::addColumn<QStringList>("paths");
    QTest::newRow("plain") << QStringList{u"a.bin"_qs, u"train/x-1.png"_qs, u"b/c/d.txt"_qs};
    QTest::newRow("quotes and backslashes")
        << QStringList{u"say \"hi\".txt"_qs, u"back\\slash"_qs, u"tab\there"_qs};
    QTest::newRow("control characters") << QStringList{u"new\nline"_qs,
                                                       QStringLiteral("bell") + QChar(7),
                                                       u"cr\rlf"_qs,
                                                       QStringLiteral("del") + QChar(0x7f),
                                                       QStringLiteral("esc") + QChar(0x1b)};
    QTest::newRow("not ascii") << QStringList{
        u"données/été.csv"_qs, u"日本語/ファイル"_qs, u"emoji 🚀.bin"_qs, u"ü"_qs};
    QTest::newRow("none") << QStringList{};
}

void tst_DatasetManifest::bytesAreQtsCanonicalJson()
{
    QFETCH(QStringList, paths);
    QList<ManifestFile> files;
    for (qsizetype i = 0; i < paths.size(); ++i) {
        files.append({paths[i],
                      qint64(i) * 1'000'000'007LL,
                      QString(64, QChar(char16_t(u'0' + i % 10))),
                      i % 2 == 1});
    }
    const QByteArray expected = qtJson(files);
    Result<DatasetManifest> manifest = DatasetManifest::parse(expected);
    QVERIFY2(manifest, manifest ? "" : qPrintable(manifest.error().message));
    QCOMPARE(manifest->toJson(), expected);
}

void tst_DatasetManifest::scannedFolderGivesTheSameBytesAsQt()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QStringList names{
        u"plain.bin"_qs, u"quote\"d"_qs, u"sub/été.txt"_qs, u"sub/deeper/x\\y"_qs, u"new\nline"_qs};
    for (const QString &name : names) {
        QVERIFY(QDir(dir.path()).mkpath(QFileInfo(dir.filePath(name)).path()));
        QFile file(dir.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(name.toUtf8());
    }
    // The owner's execute bit is kept (a script of the dataset stays runnable on the worker).
    QFile script(dir.filePath(u"plain.bin"_qs));
    QVERIFY(script.setPermissions(script.permissions() | QFileDevice::ExeOwner));
    Result<DatasetManifest> manifest = DatasetManifest::scan(dir.path());
    QVERIFY2(manifest, manifest ? "" : qPrintable(manifest.error().message));
    QCOMPARE(manifest->files().size(), names.size());
    for (const ManifestFile &file : manifest->files())
        QCOMPARE(file.executable, file.path == u"plain.bin"_qs);
    QCOMPARE(manifest->toJson(), qtJson(manifest->files()));
    Result<DatasetManifest> again = DatasetManifest::parse(manifest->toJson());
    QVERIFY(again);
    QCOMPARE(again->files(), manifest->files());
}

QTEST_GUILESS_MAIN(tst_DatasetManifest)
#include "tst_datasetmanifest.moc"
