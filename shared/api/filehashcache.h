#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QHash>
#include <QMutex>
#include <QString>

#include <atomic>
#include <optional>

namespace ddl {

// The SHA-256 of local files, remembered between runs so that an unchanged dataset is checked
// without reading it: a file's entry holds while its absolute path, size, modification time (ns)
// and inode are the same. Kept in one small file under the user's cache folder
// ($XDG_CACHE_HOME/ddl/file-hashes), at most MaxEntries entries (those used last are kept).
// save() merges with what another run wrote meanwhile and replaces the file atomically (temp +
// rename), so concurrent runs never leave it half-written. sha256() may be called from several
// threads at once (files are hashed in parallel, outside the lock).
class FileHashCache
{
public:
    static constexpr qsizetype MaxEntries = 100'000;
    static constexpr qint64 MaxFileBytes = 64LL << 20; // of the cache file that is read
    // A file modified less than this before it is recorded is not remembered (see sha256()).
    static constexpr qint64 RacyWindowNs = 1'000'000'000;

    // path empty: the default file under the user's cache folder.
    explicit FileHashCache(const QString &path = {});

    QString path() const { return m_path; }
    // The digest of the file at absolutePath, from the cache when its entry still holds,
    // otherwise read and hashed (and remembered). bytesRead: what this call read (0 from the
    // cache). abort, when set, ends the reading with an Aborted error (checked once per MiB).
    Result<QString> sha256(const QString &absolutePath,
                           qint64 *bytesRead = nullptr,
                           const std::atomic<bool> *abort = nullptr);
    // The digest of the file at absolutePath when its entry still holds; nothing is read.
    std::optional<QString> cached(const QString &absolutePath);
    // Remembers a digest known otherwise (a verified download): the file is as it is now.
    void remember(const QString &absolutePath, const QString &sha256Hex);
    Status save();

    // Uploads begun before their file was hashed (BlobUpload without a digest), by file, in
    // "<path>.uploads" beside the cache: a run stopped before the digest reached the server goes
    // on under the same upload id. An entry holds while the file's size, mtime and inode are
    // the same (the server still checks the digest at the end); at most MaxPendingUploads.
    static constexpr qsizetype MaxPendingUploads = 1000;
    std::optional<QString> pendingUpload(const QString &absolutePath) const;
    void rememberPendingUpload(const QString &absolutePath, const QString &uploadId) const;
    void forgetPendingUpload(const QString &absolutePath) const;

    qint64 bytesHashed() const { return m_bytesHashed.load(); }
    int hits() const { return m_hits.load(); }

    // Bytes read to hash files by every cache of this process (for tests: a re-upload of an
    // unchanged dataset reads none).
    static qint64 totalBytesHashed() { return s_totalBytesHashed.load(); }

    // What says a file is unchanged since it was hashed.
    struct Key
    {
        qint64 size = -1;
        qint64 mtimeNs = 0;
        quint64 inode = 0;
        bool operator==(const Key &) const = default;
    };

private:
    struct Entry
    {
        Key key;
        QByteArray sha256; // 32 raw bytes
        quint64 used = 0;  // a later use is a bigger number
    };
    static std::optional<Key> keyOf(const QString &absolutePath);
    static std::optional<Key> keyOfOpen(int fd);
    std::optional<QString> cached(const QString &absolutePath, const Key &key);
    void load(const QString &path, QHash<QString, Entry> &into) const;
    void ensureLoaded();
    // Lines "upload-id size mtime-ns inode path", newest last.
    QList<QByteArray> pendingLines() const;
    void writePendingLines(const QList<QByteArray> &lines) const;

    QString m_path;
    QMutex m_mutex; // guards what follows, up to m_changed
    QHash<QString, Entry> m_entries;
    quint64 m_clock = 0;
    bool m_loaded = false;
    bool m_changed = false;
    std::atomic<qint64> m_bytesHashed{0};
    std::atomic<int> m_hits{0};
    static std::atomic<qint64> s_totalBytesHashed;
};

} // namespace ddl
