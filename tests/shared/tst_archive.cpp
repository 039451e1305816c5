#include "core/sha256.h"
#include "packaging/archiveextractor.h"
#include "packaging/directoryarchiver.h"
#include "packaging/utf8locale.h"

#include <QDirIterator>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <archive.h>
#include <archive_entry.h>

#include <sys/stat.h>
#include <unistd.h>

using namespace ddl;

namespace {

// One entry of a hand-made tar: data is the content of a file, the target of a symlink or
// the original of a hard link.
struct TarEntry
{
    enum Type { File, Directory, Symlink, Hardlink, CharDevice, Fifo };
    Type type = File;
    QByteArray path;
    QByteArray data;
};
using TarEntries = QList<TarEntry>;

TarEntry tarFile(const QByteArray &path, const QByteArray &data = "x")
{
    return {TarEntry::File, path, data};
}
TarEntry tarDirectory(const QByteArray &path)
{
    return {TarEntry::Directory, path, {}};
}
TarEntry tarSymlink(const QByteArray &path, const QByteArray &target)
{
    return {TarEntry::Symlink, path, target};
}

// Writes entries as they are, without any of the checks of our writers.
bool writeTar(const QString &path, const TarEntries &entries, bool zstd)
{
    const ScopedUtf8Locale utf8;
    struct archive *a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    if (zstd)
        archive_write_add_filter_zstd(a);
    if (archive_write_open_filename(a, QFile::encodeName(path).constData()) != ARCHIVE_OK)
        return false;
    bool ok = true;
    for (const TarEntry &e : entries) {
        struct archive_entry *entry = archive_entry_new();
        archive_entry_copy_pathname(entry, e.path.constData());
        archive_entry_set_perm(entry, 0644);
        switch (e.type) {
        case TarEntry::File:
            archive_entry_set_filetype(entry, AE_IFREG);
            archive_entry_set_size(entry, e.data.size());
            break;
        case TarEntry::Directory:
            archive_entry_set_filetype(entry, AE_IFDIR);
            archive_entry_set_perm(entry, 0755);
            break;
        case TarEntry::Symlink:
            archive_entry_set_filetype(entry, AE_IFLNK);
            archive_entry_copy_symlink(entry, e.data.constData());
            break;
        case TarEntry::Hardlink:
            archive_entry_set_filetype(entry, AE_IFREG);
            archive_entry_copy_hardlink(entry, e.data.constData());
            archive_entry_set_size(entry, 0);
            break;
        case TarEntry::CharDevice:
            archive_entry_set_filetype(entry, AE_IFCHR);
            archive_entry_set_rdevmajor(entry, 1);
            archive_entry_set_rdevminor(entry, 3);
            break;
        case TarEntry::Fifo:
            archive_entry_set_filetype(entry, AE_IFIFO);
            break;
        }
        ok = ok && archive_write_header(a, entry) == ARCHIVE_OK;
        if (e.type == TarEntry::File && !e.data.isEmpty())
            ok = ok && archive_write_data(a, e.data.constData(), size_t(e.data.size())) > 0;
        archive_entry_free(entry);
    }
    ok = archive_write_close(a) == ARCHIVE_OK && ok;
    archive_write_free(a);
    return ok;
}

bool writeFile(const QString &path, const QByteArray &data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray linkTarget(const QString &path)
{
    QByteArray buffer(4096, '\0');
    const ssize_t n = ::readlink(QFile::encodeName(path).constData(), buffer.data(), 4096);
    return n < 0 ? QByteArray() : buffer.left(n);
}

bool makeLink(const QByteArray &target, const QString &path)
{
    return ::symlink(target.constData(), QFile::encodeName(path).constData()) == 0;
}

mode_t modeOf(const QString &path)
{
    struct stat st
    {
    };
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_mode : 0;
}

// Everything below root, as relative paths, symlinks not followed.
QStringList listTree(const QString &root)
{
    QStringList paths;
    QDirIterator it(root,
                    QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        paths.append(QDir(root).relativeFilePath(it.next()));
    paths.sort();
    return paths;
}

} // namespace

Q_DECLARE_METATYPE(TarEntries)

class tst_Archive : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip();
    void reproducible();
    void archiveInsideFolderRefused();
    void skippedNamesLeftOutAtAnyDepth();
    void extractsSafeArchive();
    void rejectsUnsafeArchive_data();
    void rejectsUnsafeArchive();
    void rejectionLeavesGivenFolderEmpty();
    void nonEmptyDestinationRefused();
    void corruptArchive();

private:
    // A folder with every kind of entry the archiver meets.
    bool makeSampleFolder(const QString &root);
};

bool tst_Archive::makeSampleFolder(const QString &root)
{
    QByteArray big(300 * 1024, Qt::Uninitialized);
    QRandomGenerator generator(42);
    generator.fillRange(reinterpret_cast<quint32 *>(big.data()), big.size() / 4);
    QDir dir(root);
    return dir.mkpath(QStringLiteral("bin")) && dir.mkpath(QStringLiteral("data")) &&
           dir.mkpath(QStringLiteral("empty")) && dir.mkpath(QStringLiteral("données")) &&
           writeFile(root + u"/a.txt", "hello\n") && writeFile(root + u"/empty.txt", {}) &&
           writeFile(root + u"/bin/run.sh", "#!/bin/sh\necho hi\n") &&
           QFile::setPermissions(root + u"/bin/run.sh",
                                 QFile::permissions(root + u"/bin/run.sh") | QFile::ExeOwner |
                                     QFile::ExeGroup | QFile::ExeOther) &&
           writeFile(root + u"/data/big.bin", big) &&
           writeFile(root + u"/données/été.txt", "non-ascii\n") &&
           writeFile(root + u"/.hidden", "dot\n") && makeLink("a.txt", root + u"/link") &&
           makeLink("../data/big.bin", root + u"/bin/big") &&
           makeLink("/etc/passwd", root + u"/outside") &&
           makeLink("../../escape", root + u"/bin/escape") &&
           ::mkfifo(QFile::encodeName(root + u"/pipe").constData(), 0644) == 0;
}

void tst_Archive::roundTrip()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString source = tmp.filePath(QStringLiteral("source"));
    QVERIFY(makeSampleFolder(source));

    const QString archivePath = tmp.filePath(QStringLiteral("out.tar.zst"));
    const Result<ArchiveInfo> info = DirectoryArchiver().archive(source, archivePath);
    QVERIFY2(info.ok(), qPrintable(info.ok() ? QString() : info.error().message));
    QCOMPARE(info->archivePath, archivePath);
    QCOMPARE(info->fileCount, 8); // 6 regular files + 2 symlinks that stay inside
    QCOMPARE(info->totalBytes, qint64(6 + 0 + 18 + 300 * 1024 + 10 + 4));
    QCOMPARE(info->size, QFileInfo(archivePath).size());
    QCOMPARE(info->sha256, sha256OfFile(archivePath).value());
    QCOMPARE(info->warnings.size(), 3);
    const QString warnings = info->warnings.join(u'\n');
    QVERIFY(warnings.contains(QStringLiteral("outside")));
    QVERIFY(warnings.contains(QStringLiteral("bin/escape")));
    QVERIFY(warnings.contains(QStringLiteral("pipe")));

    const QString target = tmp.filePath(QStringLiteral("extracted/here"));
    const Result<ExtractionInfo> extracted = ArchiveExtractor().extract(archivePath, target);
    QVERIFY2(extracted.ok(), qPrintable(extracted.ok() ? QString() : extracted.error().message));
    QCOMPARE(extracted->fileCount, qint64(6));
    QCOMPARE(extracted->totalBytes, info->totalBytes);

    const QStringList expected{
        QStringLiteral(".hidden"),
        QStringLiteral("a.txt"),
        QStringLiteral("bin"),
        QStringLiteral("bin/big"),
        QStringLiteral("bin/run.sh"),
        QStringLiteral("data"),
        QStringLiteral("data/big.bin"),
        QStringLiteral("données"),
        QStringLiteral("données/été.txt"),
        QStringLiteral("empty"),
        QStringLiteral("empty.txt"),
        QStringLiteral("link"),
    };
    QCOMPARE(listTree(target), expected);
    for (const QString &name : {QStringLiteral("a.txt"),
                                QStringLiteral("data/big.bin"),
                                QStringLiteral("bin/run.sh"),
                                QStringLiteral("données/été.txt"),
                                QStringLiteral("empty.txt"),
                                QStringLiteral(".hidden")})
        QCOMPARE(readFile(target + u'/' + name), readFile(source + u'/' + name));
    QVERIFY(modeOf(target + u"/bin/run.sh") & S_IXUSR);
    QVERIFY(!(modeOf(target + u"/a.txt") & S_IXUSR));
    QVERIFY(S_ISLNK(modeOf(target + u"/link")));
    QCOMPARE(linkTarget(target + u"/link"), QByteArray("a.txt"));
    QCOMPARE(linkTarget(target + u"/bin/big"), QByteArray("../data/big.bin"));
    QCOMPARE(readFile(target + u"/bin/big"), readFile(source + u"/data/big.bin"));
}

void tst_Archive::reproducible()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString source = tmp.filePath(QStringLiteral("source"));
    QVERIFY(makeSampleFolder(source));

    const Result<ArchiveInfo> first =
        DirectoryArchiver().archive(source, tmp.filePath(QStringLiteral("1.tar.zst")));
    QVERIFY(first.ok());
    QFile touched(source + u"/a.txt");
    QVERIFY(touched.open(QIODevice::ReadWrite));
    QVERIFY(touched.setFileTime(QDateTime::fromSecsSinceEpoch(1'000'000'000),
                                QFileDevice::FileModificationTime));
    touched.close();
    const Result<ArchiveInfo> second =
        DirectoryArchiver().archive(source, tmp.filePath(QStringLiteral("2.tar.zst")));
    QVERIFY(second.ok());
    QCOMPARE(second->sha256, first->sha256);
    QCOMPARE(second->size, first->size);

    QVERIFY(writeFile(source + u"/a.txt", "changed\n"));
    const Result<ArchiveInfo> third =
        DirectoryArchiver().archive(source, tmp.filePath(QStringLiteral("3.tar.zst")));
    QVERIFY(third.ok());
    QVERIFY(third->sha256 != first->sha256);
}

// A code folder sent as it is (paddle --package-path): its .git and __pycache__ folders are left
// out wherever they are, and what changes in them changes nothing in the package.
void tst_Archive::skippedNamesLeftOutAtAnyDepth()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString source = tmp.filePath(QStringLiteral("code"));
    QVERIFY(QDir().mkpath(source + u"/.git/objects"));
    QVERIFY(QDir().mkpath(source + u"/pkg/__pycache__"));
    QVERIFY(writeFile(source + u"/train.py", "print('train')\n"));
    QVERIFY(writeFile(source + u"/.git/HEAD", "ref: refs/heads/main\n"));
    QVERIFY(writeFile(source + u"/pkg/model.py", "x = 1\n"));
    QVERIFY(writeFile(source + u"/pkg/__pycache__/model.cpython-311.pyc", "bytes"));
    QVERIFY(writeFile(source + u"/pkg/.gitignore", "__pycache__/\n"));

    DirectoryArchiver archiver;
    archiver.setSkippedNames({QStringLiteral(".git"), QStringLiteral("__pycache__")});
    const Result<ArchiveInfo> first =
        archiver.archive(source, tmp.filePath(QStringLiteral("1.tar.zst")));
    QVERIFY2(first.ok(), qPrintable(first.ok() ? QString() : first.error().message));
    QCOMPARE(first->fileCount, 3);
    const QString target = tmp.filePath(QStringLiteral("out"));
    QVERIFY(ArchiveExtractor().extract(first->archivePath, target).ok());
    QCOMPARE(listTree(target),
             (QStringList{QStringLiteral("pkg"),
                          QStringLiteral("pkg/.gitignore"),
                          QStringLiteral("pkg/model.py"),
                          QStringLiteral("train.py")}));

    QVERIFY(writeFile(source + u"/.git/HEAD", "ref: refs/heads/other\n"));
    QVERIFY(writeFile(source + u"/pkg/__pycache__/other.pyc", "more"));
    const Result<ArchiveInfo> second =
        archiver.archive(source, tmp.filePath(QStringLiteral("2.tar.zst")));
    QVERIFY(second.ok());
    QCOMPARE(second->sha256, first->sha256);
    // Without the names, everything goes.
    const Result<ArchiveInfo> all =
        DirectoryArchiver().archive(source, tmp.filePath(QStringLiteral("3.tar.zst")));
    QVERIFY(all.ok());
    QCOMPARE(all->fileCount, 6);
}

void tst_Archive::archiveInsideFolderRefused()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    QVERIFY(writeFile(tmp.filePath(QStringLiteral("a.txt")), "a"));
    const Result<ArchiveInfo> info =
        DirectoryArchiver().archive(tmp.path(), tmp.filePath(QStringLiteral("self.tar.zst")));
    QVERIFY(!info.ok());
    QCOMPARE(info.error().code, QStringLiteral("invalid_argument"));
    QVERIFY(!QFile::exists(tmp.filePath(QStringLiteral("self.tar.zst"))));

    const Result<ArchiveInfo> missing = DirectoryArchiver().archive(
        tmp.filePath(QStringLiteral("nope")), tmp.filePath(QStringLiteral("x.tar.zst")));
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error().code, QStringLiteral("not_found"));
}

void tst_Archive::extractsSafeArchive()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString archivePath = tmp.filePath(QStringLiteral("safe.tar"));
    QVERIFY(writeTar(archivePath,
                     {tarDirectory("./"),
                      tarFile("./a/b.txt", "bee"),
                      tarSymlink("a/c", "b.txt"),
                      tarSymlink("lib/x", "../a/b.txt"),
                      tarSymlink("sub/up", ".."),
                      tarFile("a/b.txt", "second wins")},
                     false));
    const QString target = tmp.filePath(QStringLiteral("out"));
    const Result<ExtractionInfo> info = ArchiveExtractor().extract(archivePath, target);
    QVERIFY2(info.ok(), qPrintable(info.ok() ? QString() : info.error().message));
    QCOMPARE(info->entryCount, qint64(6));
    QCOMPARE(info->fileCount, qint64(2));
    QCOMPARE(readFile(target + u"/a/b.txt"), QByteArray("second wins"));
    QCOMPARE(readFile(target + u"/a/c"), QByteArray("second wins"));
    QCOMPARE(readFile(target + u"/lib/x"), QByteArray("second wins"));
    QCOMPARE(linkTarget(target + u"/sub/up"), QByteArray(".."));
}

void tst_Archive::rejectsUnsafeArchive_data()
{
    QTest::addColumn<TarEntries>("entries");
    QTest::addColumn<qint64>("maxEntries");
    QTest::addColumn<qint64>("maxBytes");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("fragment");

    const qint64 entries = ExtractionLimits().maxEntries;
    const qint64 bytes = ExtractionLimits().maxTotalBytes;
    const QString unsafe = QStringLiteral("unsafe_archive");
    const QString tooLarge = QStringLiteral("archive_too_large");

    QTest::newRow("dotdot") << TarEntries{tarFile("ok.txt"), tarFile("../evil")} << entries << bytes
                            << unsafe << QStringLiteral("'../evil' is refused: path contains");
    QTest::newRow("inner dotdot") << TarEntries{tarFile("a/../../evil")} << entries << bytes
                                  << unsafe << QStringLiteral("a/../../evil");
    QTest::newRow("absolute") << TarEntries{tarFile("/tmp/ddl-evil-abs")} << entries << bytes
                              << unsafe << QStringLiteral("absolute path");
    QTest::newRow("symlink to /etc then file through it")
        << TarEntries{tarSymlink("etc", "/etc"), tarFile("etc/ddl-evil")} << entries << bytes
        << unsafe << QStringLiteral("'etc' is refused: symlink target '/etc' is absolute");
    QTest::newRow("symlink climbing out") << TarEntries{tarSymlink("a/up", "../../evil")} << entries
                                          << bytes << unsafe << QStringLiteral("points outside");
    QTest::newRow("symlink with dotdot after a name")
        << TarEntries{tarSymlink("sub/up", ".."), tarSymlink("x", "sub/up/..")} << entries << bytes
        << unsafe << QStringLiteral("'x' is refused: symlink target 'sub/up/..' has '..' after");
    QTest::newRow("file through an inside symlink")
        << TarEntries{tarDirectory("sub/"), tarSymlink("lnk", "sub"), tarFile("lnk/f")} << entries
        << bytes << unsafe << QStringLiteral("goes through the symlink lnk");
    QTest::newRow("hard link") << TarEntries{tarFile("a"), {TarEntry::Hardlink, "b", "a"}}
                               << entries << bytes << unsafe
                               << QStringLiteral("'b' is refused: hard links");
    QTest::newRow("char device") << TarEntries{{TarEntry::CharDevice, "null", {}}} << entries
                                 << bytes << unsafe << QStringLiteral("character devices");
    QTest::newRow("fifo") << TarEntries{{TarEntry::Fifo, "pipe", {}}} << entries << bytes << unsafe
                          << QStringLiteral("FIFOs");
    QTest::newRow("too many entries")
        << TarEntries{tarFile("1"), tarFile("2"), tarFile("3"), tarFile("4")} << qint64(3) << bytes
        << tooLarge << QStringLiteral("more than 3 entries");
    QTest::newRow("too many bytes")
        << TarEntries{tarFile("1", QByteArray(600, 'a')), tarFile("2", QByteArray(600, 'b'))}
        << entries << qint64(1000) << tooLarge << QStringLiteral("more than 1000 bytes");
}

void tst_Archive::rejectsUnsafeArchive()
{
    QFETCH(TarEntries, entries);
    QFETCH(qint64, maxEntries);
    QFETCH(qint64, maxBytes);
    QFETCH(QString, code);
    QFETCH(QString, fragment);

    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    for (const bool zstd : {false, true}) {
        const QString archivePath =
            tmp.filePath(zstd ? QStringLiteral("in.tar.zst") : QStringLiteral("in.tar"));
        QVERIFY(writeTar(archivePath, entries, zstd));
        // Deep enough that "../evil" would still land inside tmp, where we can look for it.
        const QString target = tmp.filePath(QStringLiteral("x/y/out"));
        ExtractionLimits limits;
        limits.maxEntries = maxEntries;
        limits.maxTotalBytes = maxBytes;
        const Result<ExtractionInfo> info = ArchiveExtractor(limits).extract(archivePath, target);
        QVERIFY(!info.ok());
        QCOMPARE(info.error().code, code);
        QVERIFY2(info.error().message.contains(fragment), qPrintable(info.error().message));
        QVERIFY(!QFileInfo::exists(target));
        QVERIFY(!QFileInfo::exists(QStringLiteral("/tmp/ddl-evil-abs")));
        QVERIFY(!QFileInfo::exists(QStringLiteral("/etc/ddl-evil")));
        const QStringList left = listTree(tmp.path()).filter(QStringLiteral("evil"));
        QVERIFY2(left.isEmpty(), qPrintable(left.join(u' ')));
    }
}

void tst_Archive::rejectionLeavesGivenFolderEmpty()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString archivePath = tmp.filePath(QStringLiteral("in.tar"));
    QVERIFY(
        writeTar(archivePath, {tarFile("a/ok.txt"), tarFile("b.txt"), tarFile("../evil")}, false));
    const QString target = tmp.filePath(QStringLiteral("given"));
    QVERIFY(QDir().mkpath(target));
    const Result<ExtractionInfo> info = ArchiveExtractor().extract(archivePath, target);
    QVERIFY(!info.ok());
    QVERIFY(QFileInfo(target).isDir());
    QCOMPARE(listTree(target), QStringList());
}

void tst_Archive::nonEmptyDestinationRefused()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString archivePath = tmp.filePath(QStringLiteral("in.tar"));
    QVERIFY(writeTar(archivePath, {tarFile("a.txt")}, false));
    const QString target = tmp.filePath(QStringLiteral("full"));
    QVERIFY(QDir().mkpath(target));
    QVERIFY(writeFile(target + u"/keep.txt", "mine"));
    const Result<ExtractionInfo> info = ArchiveExtractor().extract(archivePath, target);
    QVERIFY(!info.ok());
    QCOMPARE(info.error().code, QStringLiteral("destination_not_empty"));
    QCOMPARE(readFile(target + u"/keep.txt"), QByteArray("mine"));
}

void tst_Archive::corruptArchive()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString archivePath = tmp.filePath(QStringLiteral("junk.tar.zst"));
    QVERIFY(writeFile(archivePath, QByteArray(5000, 'j')));
    const QString target = tmp.filePath(QStringLiteral("out"));
    const Result<ExtractionInfo> info = ArchiveExtractor().extract(archivePath, target);
    QVERIFY(!info.ok());
    QCOMPARE(info.error().code, QStringLiteral("corrupt_archive"));
    QVERIFY(!QFileInfo::exists(target));

    const Result<ExtractionInfo> missing =
        ArchiveExtractor().extract(tmp.filePath(QStringLiteral("missing.tar")), target);
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error().code, QStringLiteral("io_error"));
    QVERIFY(!QFileInfo::exists(target));
}

QTEST_GUILESS_MAIN(tst_Archive)
#include "tst_archive.moc"
