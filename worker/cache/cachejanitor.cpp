#include "cachejanitor.h"

#include "config/bytesize.h"
#include "core/sha256.h"
#include "workerlogging.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>

#include <algorithm>
#include <sys/stat.h>

using namespace Qt::StringLiterals;

namespace ddl::worker {

namespace {

const QString ManifestPrefix = u"m-"_s;

bool statOf(const QString &path, struct stat &info)
{
    return ::lstat(QFile::encodeName(path).constData(), &info) == 0;
}

qint64 mtimeNs(const struct stat &info)
{
    return qint64(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
}

QString describeTime(qint64 ns)
{
    return QDateTime::fromMSecsSinceEpoch(ns / 1000000).toUTC().toString(Qt::ISODate);
}

} // namespace

CacheJanitor::CacheJanitor(const QString &cacheRoot)
    : m_root(cacheRoot)
{
}

int CacheJanitor::removePartials(const QString &cacheRoot)
{
    QDir datasets(cacheRoot + u"/datasets"_s);
    const QStringList partials =
        datasets.entryList({u".partial-*"_s}, QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot);
    for (const QString &name : partials) {
        qCInfo(lcWorkerCache).noquote()
            << u"removing %1, a dataset folder left half-made by an earlier run"_s.arg(
                   datasets.filePath(name));
        QDir(datasets.filePath(name)).removeRecursively();
    }
    return int(partials.size());
}

qint64 CacheJanitor::folderBytes(const QString &path, Kind kind)
{
    const auto known = m_folderBytes.constFind(path);
    if (known != m_folderBytes.constEnd())
        return *known;
    qint64 bytes = 0;
    QDirIterator it(path, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        struct stat info = {};
        if (!statOf(it.next(), info))
            continue;
        // A hard link to a blob is counted with the blob.
        if (kind == Kind::Extracted || info.st_nlink == 1)
            bytes += info.st_size;
    }
    m_folderBytes.insert(path, bytes);
    return bytes;
}

QList<CacheJanitor::Entry> CacheJanitor::scan()
{
    QList<Entry> entries;
    const QString blobs = m_root + u"/blobs"_s;
    for (const QString &name : QDir(blobs).entryList(QDir::Files)) {
        struct stat info = {};
        if (!isSha256Hex(name) || !statOf(blobs + u'/' + name, info))
            continue; // downloads in progress (.part) are not the janitor's
        entries.append({Kind::Blob,
                        blobs + u'/' + name,
                        name,
                        info.st_size,
                        mtimeNs(info),
                        info.st_nlink > 1});
    }
    const QString datasets = m_root + u"/datasets"_s;
    for (const QString &name : QDir(datasets).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        const bool manifest = name.startsWith(ManifestPrefix);
        const QString sha = manifest ? name.mid(ManifestPrefix.size()) : name;
        struct stat info = {};
        if (!isSha256Hex(sha) || !statOf(datasets + u'/' + name, info))
            continue;
        const Kind kind = manifest ? Kind::Manifest : Kind::Extracted;
        const QString path = datasets + u'/' + name;
        entries.append({kind, path, sha, folderBytes(path, kind), mtimeNs(info), false});
    }
    return entries;
}

qint64 CacheJanitor::usage()
{
    qint64 total = 0;
    for (const Entry &entry : scan())
        total += entry.bytes;
    return total;
}

bool CacheJanitor::remove(const Entry &entry)
{
    const bool removed =
        entry.kind == Kind::Blob ? QFile::remove(entry.path) : QDir(entry.path).removeRecursively();
    if (!removed) {
        qCWarning(lcWorkerCache).noquote()
            << u"cannot remove %1 from the cache; check its permissions"_s.arg(entry.path);
        return false;
    }
    m_folderBytes.remove(entry.path);
    return true;
}

QList<CacheJanitor::Eviction> CacheJanitor::trim(qint64 reserveBytes, const PinCheck &isPinned)
{
    QList<Eviction> evicted;
    if (m_limit <= 0)
        return evicted;
    QList<Entry> entries = scan();
    qint64 usage = 0;
    for (const Entry &entry : std::as_const(entries))
        usage += entry.bytes;
    if (usage + reserveBytes <= m_limit)
        return evicted;
    qCInfo(lcWorkerCache).noquote()
        << u"the cache holds %1 and needs room for %2 more under its limit of %3: evicting"_s.arg(
               formatByteSize(usage), formatByteSize(reserveBytes), formatByteSize(m_limit));

    // Manifest folders first: they only link to blobs, which stay until their turn below.
    bool removedFolder = false;
    for (const Entry &entry : std::as_const(entries)) {
        if (entry.kind != Kind::Manifest || isPinned(entry.sha256) || !remove(entry))
            continue;
        qCInfo(lcWorkerCache).noquote()
            << u"removed dataset folder %1 (no running task uses it; last used %2)"_s.arg(
                   entry.path, describeTime(entry.lastUsedNs));
        usage -= entry.bytes;
        evicted.append({entry.path, entry.bytes});
        removedFolder = true;
    }
    if (removedFolder)
        entries = scan(); // the blobs those folders linked to are free now

    QList<Entry> candidates;
    for (const Entry &entry : std::as_const(entries)) {
        const bool evictable =
            (entry.kind == Kind::Blob && !entry.linked) || entry.kind == Kind::Extracted;
        if (evictable && !isPinned(entry.sha256))
            candidates.append(entry);
    }
    std::stable_sort(candidates.begin(), candidates.end(), [](const Entry &a, const Entry &b) {
        return a.lastUsedNs < b.lastUsedNs;
    });
    for (const Entry &entry : std::as_const(candidates)) {
        if (usage + reserveBytes <= m_limit)
            break;
        if (!remove(entry))
            continue;
        qCInfo(lcWorkerCache).noquote() << u"evicted %1 %2 (%3, last used %4)"_s.arg(
            entry.kind == Kind::Blob ? u"blob"_s : u"extracted dataset"_s,
            entry.sha256,
            formatByteSize(entry.bytes),
            describeTime(entry.lastUsedNs));
        usage -= entry.bytes;
        evicted.append({entry.path, entry.bytes});
    }
    if (usage + reserveBytes > m_limit) {
        qCWarning(lcWorkerCache).noquote()
            << u"the cache holds %1 (with %2 to come) over its limit of %3: the rest is in use "
               u"by running tasks"_s.arg(
                   formatByteSize(usage), formatByteSize(reserveBytes), formatByteSize(m_limit));
    }
    return evicted;
}

} // namespace ddl::worker
