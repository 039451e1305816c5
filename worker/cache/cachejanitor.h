#pragma once

#include <QHash>
#include <QList>
#include <QString>

#include <functional>

namespace ddl::worker {

// Keeps WORK_DIR/cache under a size limit. The cache holds blobs (blobs/<sha256>), datasets
// extracted from tar blobs (datasets/<sha256>/) and datasets laid out from manifests
// (datasets/m-<sha256>/, hard links to blobs, so they cost next to nothing). Each blob's or
// folder's modification time is its last use (markUsed). When the cache is over its limit, the
// manifest folders no running task uses go first (they are only links and are laid out again in
// moments), then the least recently used blobs that no folder links to any more and extracted
// datasets, until the cache fits. Nothing pinned by a running task is ever removed. Every
// removal is logged. Runs on the thread that owns the cache, so that nothing is pinned while it
// decides.
class CacheJanitor
{
public:
    struct Eviction
    {
        QString path;
        qint64 bytes = 0;
    };
    using PinCheck = std::function<bool(const QString &sha256)>;

    explicit CacheJanitor(const QString &cacheRoot);

    // 0: no limit.
    void setLimit(qint64 bytes) { m_limit = bytes; }
    qint64 limit() const { return m_limit; }

    // Bytes the cache holds on disk: each blob once, and what dataset folders hold beside
    // links to blobs.
    qint64 usage();
    // Makes room for reserveBytes more under the limit; returns what it removed.
    QList<Eviction> trim(qint64 reserveBytes, const PinCheck &isPinned);

    // Removes the half-made dataset folders (".partial-*") that a worker killed while it laid
    // out or extracted a dataset left behind; returns how many.
    static int removePartials(const QString &cacheRoot);

private:
    enum class Kind { Blob, Extracted, Manifest };
    struct Entry
    {
        Kind kind = Kind::Blob;
        QString path;
        QString sha256;
        qint64 bytes = 0;
        qint64 lastUsedNs = 0;
        bool linked = false; // a blob that a dataset folder links to
    };

    QList<Entry> scan();
    // Bytes of the files in folder; only those that are no hard link to a blob for Manifest.
    qint64 folderBytes(const QString &path, Kind kind);
    bool remove(const Entry &entry);

    QString m_root;
    qint64 m_limit = 0;
    QHash<QString, qint64> m_folderBytes; // dataset folders never change once in place
};

} // namespace ddl::worker
